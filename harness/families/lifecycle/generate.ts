// Builds our lifecycle scenario file (fixtures/lifecycle-scenarios.json) from the row intents of
// lifecycle-step-rows.ts and lifecycle-chain-rows.ts, and checks a built file.
//
// Deterministic: no randomness, clock or paths. Every `expected` and `chainProof` is computed by the
// simulators (published states by the oracle), and each row's transports follow from what its script
// does: unsolicited frames exist only on stdio, and stdio allows one outstanding intercept per backend.

import { lifecycleRunnabilityProblems } from '../../lifecycle-adapters/lifecycle-runnability.ts';
import { checkLifecycleScenarioFile } from './load-lifecycle-scenarios.ts';
import { describeRunnabilityProblem } from '../../scenarios/runnability.ts';
import { deriveContentSources, ContentSourceError } from '../../lifecycle-adapters/content-sources.ts';
import { observeNotificationFor } from './observe-message.ts';
import { simulateChain } from './simulate-chain.ts';
import { LifecycleSimulationError } from '../../lifecycle-adapters/simulation-error.ts';
import { simulateStepScript, type StepSimulation } from '../../lifecycle-adapters/simulate-step-script.ts';
import type { ChainScenario, LifecycleScenario, LifecycleScenarioFile, ScenarioRowBase, StepScenario } from '../../lifecycle-adapters/scenario-types.ts';
import { evaluate } from '../../oracle/evaluate.ts';
import { jsonEqual, type JsonObject } from '../../protocol/json.ts';
import type { InterceptRequest } from '../../protocol/messages.ts';
import type { ProtocolValidators } from '../../protocol/validator-types.ts';
import { serializeScenarioFile } from '../../scenarios/load-scenarios.ts';
import { coverageProblems, type RowEvidence } from './coverage.ts';
import { chainRowSpecs, type ChainRowSpec } from './generate-chain-rows.ts';
import { stepRowSpecs, type StepRowSpec } from './generate-step-rows.ts';

/** The generator's own inputs are wrong: a script the simulator refuses, or a row it cannot place. */
export class LifecycleBuildError extends Error {
  override readonly name = 'LifecycleBuildError';
  constructor(readonly problems: string[]) {
    super(`lifecycle scenario build failed:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export const STDIO_SINGLE_OUTSTANDING_REASON =
  'stdio allows one outstanding intercept request per persistent backend process (spec base/transports/stdio.md); this script keeps two outstanding at once.';
export const HTTP_NO_STRAY_FRAMES_REASON =
  'the script writes unsolicited frames on the stdio stream; over HTTP every reply is bound to its own exchange, so there is no stream to write them on.';

type Placement = Pick<ScenarioRowBase, 'transports' | 'inapplicableReason'>;

/** Where a step script can run, from what the simulator saw it do. */
export function placementFor(simulation: Pick<StepSimulation, 'emits' | 'maxOutstanding'>): Placement | { problem: string } {
  const twoOutstanding = simulation.maxOutstanding > 1;
  if (simulation.emits && twoOutstanding) return { problem: 'writes stray stdio frames and keeps two intercepts outstanding: it runs on no transport' };
  if (simulation.emits) return { transports: ['stdio'], inapplicableReason: HTTP_NO_STRAY_FRAMES_REASON };
  if (twoOutstanding) return { transports: ['http'], inapplicableReason: STDIO_SINGLE_OUTSTANDING_REASON };
  return {};
}

type Validators = Pick<ProtocolValidators, 'interceptResponse'>;

function buildStepRow(spec: StepRowSpec, validators: Validators): StepScenario {
  const draft: StepScenario = {
    id: spec.id,
    requests: spec.requests,
    responses: spec.responses,
    steps: spec.steps,
    expected: { published: [], cancelled: [], ignored: [], states: {}, observations: [], uploadStatuses: [] },
  };
  if (spec.responseSequences !== undefined) draft.responseSequences = spec.responseSequences;
  const simulation = simulateStepScript(draft, validators);
  const placement = placementFor(simulation);
  if ('problem' in placement) throw new LifecycleBuildError([`${spec.id}: ${placement.problem}`]);
  // Key order is the file's reading order: what the row is, where it runs, its messages, its script, its outcome.
  const row: StepScenario = { id: spec.id, description: spec.description, tags: spec.tags, ...placement, requests: spec.requests, responses: spec.responses } as StepScenario;
  if (spec.responseSequences !== undefined) row.responseSequences = spec.responseSequences;
  row.steps = spec.steps;
  row.expected = simulation.expected;
  return row;
}

function buildChainRow(spec: ChainRowSpec, validators: Validators): ChainScenario {
  const last = spec.replies[spec.replies.length - 1];
  if (last === undefined) throw new LifecycleBuildError([`${spec.id}: a chain row needs at least one reply`]);
  const draft: ChainScenario = {
    id: spec.id,
    requests: { a: spec.request },
    responses: { a: last },
    responseSequences: { a: spec.replies },
    chain: spec.chain,
    steps: [],
    expected: { called: [], failures: [], observations: [], input: {} },
    chainProof: { requests: [], observations: [] },
  };
  const simulation = simulateChain(draft, validators);
  return {
    id: spec.id,
    description: spec.description,
    tags: spec.tags,
    requests: draft.requests,
    responses: draft.responses,
    responseSequences: draft.responseSequences,
    chain: spec.chain,
    steps: [],
    expected: simulation.expected,
    chainProof: simulation.proof,
  } as ChainScenario;
}

/** The lifecycle scenario file; `--check` reproduces it byte for byte. */
export function buildLifecycleScenarios(validators: Validators): LifecycleScenarioFile {
  try {
    const steps = stepRowSpecs().map((spec) => buildStepRow(spec, validators));
    const chains = chainRowSpecs().map((spec) => buildChainRow(spec, validators));
    return { version: 1, scenarios: [...steps, ...chains] };
  } catch (error) {
    if (error instanceof LifecycleSimulationError) throw new LifecycleBuildError([error.message]);
    throw error;
  }
}

export function serializeLifecycleScenarioFile(file: LifecycleScenarioFile): string {
  return serializeScenarioFile(file);
}

// ----- checks of a built file ----------------------------------------------------------------------

const GENERATED_FILE = 'fixtures/lifecycle-scenarios.json (generated)';

type CheckValidators = Pick<ProtocolValidators, 'interceptRequest' | 'interceptResponse' | 'observeNotification'>;

/**
 * Every problem of a generated lifecycle file, one line each (`<row id>: <problem>`); empty when the
 * file is publishable: it loads through the lifecycle loader, every row is runnable under the step
 * rules (lifecycle-runnability.ts), every message is schema-valid, its
 * content sources derive, each row's `expected`, `chainProof` and transports are what the simulators
 * compute, discarded replies would have been accepted (so only the cancel explains the discard),
 * and every coverage item has a tagged row whose witness holds.
 */
export function checkLifecycleScenarioBuild(file: LifecycleScenarioFile, validators: CheckValidators): string[] {
  const problems: string[] = [];
  try {
    checkLifecycleScenarioFile(JSON.parse(serializeLifecycleScenarioFile(file)), GENERATED_FILE);
  } catch (error) {
    problems.push(`format: ${error instanceof Error ? error.message : String(error)}`);
    return problems;
  }
  for (const problem of lifecycleRunnabilityProblems(file)) problems.push(`${problem.row}: runnability: ${describeRunnabilityProblem(GENERATED_FILE, problem)}`);
  try {
    if (deriveContentSources(file.scenarios).length === 0) problems.push('contentSources: no confirmed upload in the file');
  } catch (error) {
    if (!(error instanceof ContentSourceError)) throw error;
    problems.push(`contentSources: ${error.message}`);
  }

  const evidence: RowEvidence[] = [];
  for (const row of file.scenarios) {
    const add = (problem: string): void => {
      problems.push(`${row.id}: ${problem}`);
    };
    if (row.description === undefined) add('has no description');
    if ((row.tags ?? []).length === 0) add('has no tags');
    for (const problem of messageProblems(row, validators)) add(problem);
    try {
      if (row.chain !== undefined) {
        const simulation = simulateChain(row, validators);
        if (!jsonEqual(row.expected, simulation.expected)) add(`expected differs from the simulated chain: ${JSON.stringify(simulation.expected)}`);
        if (!jsonEqual(row.chainProof, simulation.proof)) add('chainProof differs from the simulated chain');
        evidence.push({ kind: 'chain', row, simulation });
      } else {
        const simulation = simulateStepScript(row, validators);
        if (!jsonEqual(row.expected, simulation.expected)) add(`expected differs from the simulated script: ${JSON.stringify(simulation.expected)}`);
        const placement = placementFor(simulation);
        if ('problem' in placement) add(placement.problem);
        else if (!jsonEqual(placement.transports, row.transports) || placement.inapplicableReason !== row.inapplicableReason) {
          add(`transports ${JSON.stringify(row.transports ?? 'both')} do not follow from the script (expected ${JSON.stringify(placement.transports ?? 'both')})`);
        }
        for (const problem of discardProblems(row, simulation, validators)) add(problem);
        evidence.push({ kind: 'steps', row, simulation });
      }
    } catch (error) {
      if (!(error instanceof LifecycleSimulationError)) throw error;
      add(`the simulator refuses the row: ${error.problem} (${error.where})`);
    }
  }
  problems.push(...coverageProblems(evidence));
  return problems;
}

/** Schema problems of every wire message the row holds or makes a client send. */
function messageProblems(row: LifecycleScenario, validators: CheckValidators): string[] {
  const problems: string[] = [];
  const check = (where: string, validate: (value: unknown) => { valid: boolean; errors: string[] }, value: unknown): void => {
    const result = validate(value);
    if (!result.valid) problems.push(`${where} is not schema-valid: ${result.errors.slice(0, 3).join('; ')}`);
  };
  for (const [key, request] of Object.entries(row.requests)) {
    check(`requests.${key}`, validators.interceptRequest, request);
    const response = row.responses[key];
    if (response !== undefined && !jsonEqual(response.id, request.id)) problems.push(`responses.${key} answers id ${JSON.stringify(response.id)}, not its request's`);
  }
  for (const [key, response] of Object.entries(row.responses)) check(`responses.${key}`, validators.interceptResponse, response);
  for (const [key, sequence] of Object.entries(row.responseSequences ?? {})) {
    sequence.forEach((response, n) => check(`responseSequences.${key}[${n}]`, validators.interceptResponse, response));
  }
  if (row.chain !== undefined) {
    row.chainProof.requests.forEach((request, n) => check(`chainProof.requests[${n}]`, validators.interceptRequest, request));
    row.chainProof.observations.forEach((notification, n) => check(`chainProof.observations[${n}]`, validators.observeNotification, notification));
    return problems;
  }
  row.steps.forEach((step, n) => {
    if (step.op === 'emit') check(`steps[${n}].response`, validators.interceptResponse, step.response);
    // Aliases stand in for receiver refs: both are opaque strings to the schema.
    if (step.op === 'observe') check(`steps[${n}] observe notification`, validators.observeNotification, observeNotificationFor(row, step));
  });
  return problems;
}

/** A reply lost to a cancel must be one the oracle accepts, or the row would not prove the cancel discarded it. */
function discardProblems(row: StepScenario, simulation: StepSimulation, validators: Validators): string[] {
  const requestById = new Map<string, InterceptRequest>(Object.values(row.requests).map((r) => [String(r.id), r]));
  const lost: Array<{ id: string; response: JsonObject; how: string }> = [];
  for (const event of simulation.trace) {
    if (event.kind === 'cancelled' && event.discarded !== undefined) lost.push({ id: event.id, response: event.discarded, how: `discarded at steps[${event.step}]` });
    if (event.kind === 'ignored' && event.because === 'cancelled') lost.push({ id: event.id, response: event.response, how: `ignored at steps[${event.step}]` });
  }
  return lost.flatMap(({ id, response, how }) => {
    const request = requestById.get(id);
    if (request === undefined) return [`the reply ${how} belongs to no request of the row`];
    const verdict = evaluate(request, response, validators, { hostTaskRule: false });
    return verdict.accepted ? [] : [`the reply ${how} would be rejected anyway (${verdict.layer}: ${verdict.reason}), so the row does not show the cancel discarding it`];
  });
}
