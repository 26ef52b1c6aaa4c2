// Every problem of a lifecycle scenario file, each with its JSON path and what was expected: first
// the closed format schema fixtures/lifecycle-scenario-file.schema.json, then (on a well-formed file)
// the cross-field rules a schema cannot express. Applies to every lifecycle file, ours and the
// protocol's: the lifecycle runner fails unknown operations and fields rather than skipping them.

import { jsonEqual, type JsonObject } from '../../protocol/json.ts';
import { describeValue } from '../../protocol/json-text.ts';
import { FormatSchema, type FormatProblem } from '../../scenarios/format-schema.ts';
import { indexPath, joinPath } from '../../scenarios/json-path.ts';
import { ContentSourceError, deriveContentSources, uploadStepBytes } from '../../lifecycle-adapters/content-sources.ts';
import { observeNotificationFor } from './observe-message.ts';
import {
  LIFECYCLE_STEP_OPS,
  type ChainScenario,
  type LifecycleScenario,
  type LifecycleScenarioFile,
  type ObserveStep,
  type StepScenario,
} from '../../lifecycle-adapters/scenario-types.ts';

export const LIFECYCLE_SCENARIO_FILE_SCHEMA_URL = new URL('../../../fixtures/lifecycle-scenario-file.schema.json', import.meta.url);

/** One problem: where (`scenarios[3].steps[0].key`, empty for the whole file) and what was expected. */
export type LifecycleProblem = FormatProblem;

const FORMAT = new FormatSchema({ url: LIFECYCLE_SCENARIO_FILE_SCHEMA_URL, family: 'lifecycle', ops: LIFECYCLE_STEP_OPS });

/** All problems of `value` as a lifecycle scenario file, in document order; empty when it is clean. */
export function lintLifecycleScenarioFile(value: unknown): LifecycleProblem[] {
  const format = FORMAT.problems(value);
  if (format.length > 0) return format;
  return crossFieldProblems(value as LifecycleScenarioFile);
}

// ---------------------------------------------------------------------------------------------------
// Cross-field rules

type Report = (path: string, problem: string) => void;

function crossFieldProblems(file: LifecycleScenarioFile): LifecycleProblem[] {
  const problems: LifecycleProblem[] = [];
  const report: Report = (path, problem) => problems.push({ path, problem });
  const rowById = new Map<string, string>();
  const requestById = new Map<string, string>();

  file.scenarios.forEach((row, i) => {
    const at = indexPath('scenarios', i);
    const earlier = rowById.get(row.id);
    if (earlier !== undefined) report(joinPath(at, 'id'), `expected a unique scenario id, but ${JSON.stringify(row.id)} is also the id of ${earlier}`);
    else rowById.set(row.id, at);

    // A receiver answers by request id across the whole file, so one id must mean one request.
    for (const [key, request] of Object.entries(row.requests)) {
      const path = joinPath(joinPath(at, 'requests'), key);
      const idKey = JSON.stringify(request.id);
      const owner = requestById.get(idKey);
      if (owner !== undefined) report(joinPath(path, 'id'), `expected a request id unique in the file, but ${idKey} is also the id of ${owner}`);
      else requestById.set(idKey, path);
    }
    for (const map of ['responses', 'responseSequences'] as const) {
      for (const key of Object.keys(row[map] ?? {})) {
        if (!Object.hasOwn(row.requests, key)) report(joinPath(joinPath(at, map), key), `expected a key of requests (${keyList(row)}), got ${JSON.stringify(key)}`);
      }
    }

    if (row.chain !== undefined) lintChainRow(row, at, report);
    else lintStepRow(row, at, report);
  });

  if (problems.length === 0) {
    try {
      deriveContentSources(file.scenarios);
    } catch (error) {
      if (!(error instanceof ContentSourceError)) throw error;
      report(error.path, `${error.label}: ${error.detail}`);
    }
  }
  return problems;
}

function keyList(row: LifecycleScenario): string {
  const keys = Object.keys(row.requests);
  return keys.length === 0 ? 'none' : keys.map((k) => JSON.stringify(k)).join(', ');
}

function lintStepRow(row: StepScenario, at: string, report: Report): void {
  const stepsAt = joinPath(at, 'steps');
  const slots = new Map<string, number>();
  const unsolicited: string[] = [];
  const observeSteps: Array<{ step: ObserveStep; index: number }> = [];
  let uploads = 0;

  row.steps.forEach((step, j) => {
    const stepAt = indexPath(stepsAt, j);
    if ('key' in step && !Object.hasOwn(row.requests, step.key)) {
      report(joinPath(stepAt, 'key'), `expected a key of requests (${keyList(row)}), got ${JSON.stringify(step.key)}`);
      return;
    }
    switch (step.op) {
      case 'send': {
        const previous = slots.get(step.slot);
        if (previous !== undefined) {
          report(joinPath(stepAt, 'slot'), `expected a slot name unique in the row, but ${JSON.stringify(step.slot)} is already the slot of ${indexPath(stepsAt, previous)}`);
        } else slots.set(step.slot, j);
        if (!Object.hasOwn(row.responses, step.key) && !Object.hasOwn(row.responseSequences ?? {}, step.key)) {
          report(joinPath(stepAt, 'key'), `expected a request with a scripted reply, but neither responses nor responseSequences has ${JSON.stringify(step.key)}`);
        }
        break;
      }
      case 'receive':
        if (!slots.has(step.slot)) {
          const sent = [...slots.keys()].map((s) => JSON.stringify(s)).join(', ') || 'none';
          report(joinPath(stepAt, 'slot'), `expected the slot of an earlier send step (sent so far: ${sent}), got ${JSON.stringify(step.slot)}`);
        }
        break;
      case 'upload':
        uploads += 1;
        if (uploadStepBytes(step) === undefined) {
          const field = step.bodyBase64 !== undefined ? 'bodyBase64' : 'body';
          const wanted = field === 'bodyBase64' ? 'canonical base64 (decoding and re-encoding gives the same text)' : 'well-formed text (no lone surrogates)';
          report(joinPath(stepAt, field), `expected ${wanted}`);
        }
        break;
      case 'observe':
        observeSteps.push({ step, index: j });
        break;
      case 'emit':
        unsolicited.push(`unsolicited:${String(step.response.id)}`);
        if (!(row.transports?.length === 1 && row.transports[0] === 'stdio')) {
          report(joinPath(at, 'transports'), `expected ["stdio"]: emit (${stepAt}) writes unsolicited stdio frames, got ${describeValue(row.transports)}`);
        }
        break;
      default:
        break;
    }
  });

  const expectedAt = joinPath(at, 'expected');
  const expected = row.expected;
  const requestIds = new Set(Object.values(row.requests).map((r) => String(r.id)));
  const idList = [...requestIds].map((id) => JSON.stringify(id)).join(', ') || 'none';
  for (const list of ['published', 'cancelled'] as const) {
    expected[list].forEach((id, k) => {
      if (!requestIds.has(id)) report(indexPath(joinPath(expectedAt, list), k), `expected the id of one of the row's requests (${idList}), got ${JSON.stringify(id)}`);
    });
  }
  for (const id of Object.keys(expected.states)) {
    if (!expected.published.includes(id)) {
      report(joinPath(joinPath(expectedAt, 'states'), id), `expected states only for published requests, but ${JSON.stringify(id)} is not in expected.published`);
    }
  }
  expected.ignored.forEach((entry, k) => {
    if (!slots.has(entry) && !unsolicited.includes(entry)) {
      const allowed = [...slots.keys(), ...unsolicited].map((s) => JSON.stringify(s)).join(', ') || 'none';
      report(indexPath(joinPath(expectedAt, 'ignored'), k), `expected a sent slot or "unsolicited:<id>" of an emit step (${allowed}), got ${JSON.stringify(entry)}`);
    }
  });
  if (expected.uploadStatuses.length !== uploads) {
    report(joinPath(expectedAt, 'uploadStatuses'), `expected one status per upload step (${uploads}), got ${expected.uploadStatuses.length}`);
  }
  if (expected.observations.length !== observeSteps.length) {
    report(joinPath(expectedAt, 'observations'), `expected one observation per observe step (${observeSteps.length}), got ${expected.observations.length}`);
    return;
  }
  observeSteps.forEach(({ step, index }, k) => {
    const observationAt = indexPath(joinPath(expectedAt, 'observations'), k);
    const observation = expected.observations[k]!;
    const event = observeNotificationFor(row, step).params.event as JsonObject;
    const tool = event.tool as JsonObject | undefined;
    const stepAt = indexPath(stepsAt, index);
    if (observation.eventId !== event.id) report(joinPath(observationAt, 'eventId'), `expected the event id of ${stepAt} (${describeValue(event.id)}), got ${JSON.stringify(observation.eventId)}`);
    if (observation.subscription !== step.subscription) {
      report(joinPath(observationAt, 'subscription'), `expected the subscription of ${stepAt} (${JSON.stringify(step.subscription)}), got ${JSON.stringify(observation.subscription)}`);
    }
    if (!jsonEqual(observation.input, tool?.input)) {
      report(joinPath(observationAt, 'input'), `expected the tool input ${stepAt} sends (the published state's input, else the request's): ${JSON.stringify(tool?.input)}`);
    }
  });
}

function lintChainRow(row: ChainScenario, at: string, report: Report): void {
  const request = row.requests.a;
  if (request === undefined) {
    report(joinPath(joinPath(at, 'requests'), 'a'), 'expected the chain request under key "a", got nothing (missing)');
    return;
  }
  const subscriptionsAt = joinPath(joinPath(at, 'chain'), 'subscriptions');
  const order = new Map<string, number>();
  row.chain.subscriptions.forEach((subscription, k) => {
    if (order.has(subscription.id)) report(joinPath(indexPath(subscriptionsAt, k), 'id'), `expected a unique subscription id, got ${JSON.stringify(subscription.id)} again`);
    else order.set(subscription.id, k);
  });

  const expectedAt = joinPath(at, 'expected');
  const inDeclarationOrder = (list: 'called' | 'failures' | 'observations', allowed: (id: string) => string | undefined): void => {
    let last = -1;
    row.expected[list].forEach((id, k) => {
      const path = indexPath(joinPath(expectedAt, list), k);
      const position = order.get(id);
      const refusal = position === undefined ? 'it is not a subscription of the chain' : allowed(id);
      if (refusal !== undefined) report(path, `expected ${describeList(list)}, but ${JSON.stringify(id)}: ${refusal}`);
      else if (position !== undefined && position <= last) report(path, `expected ${describeList(list)} in declaration order without repeats, got ${JSON.stringify(id)} out of order`);
      if (position !== undefined) last = Math.max(last, position);
    });
  };
  const modeOf = (id: string): string | undefined => row.chain.subscriptions[order.get(id) ?? -1]?.mode;
  inDeclarationOrder('called', (id) => (modeOf(id) === 'intercept' ? undefined : 'only intercept subscriptions are called'));
  inDeclarationOrder('failures', (id) => (row.expected.called.includes(id) ? undefined : 'it is not in expected.called'));
  inDeclarationOrder('observations', () => undefined);

  const calls = row.expected.called.length;
  const sequence = row.responseSequences?.a;
  if ((sequence?.length ?? 0) < calls) {
    report(joinPath(joinPath(at, 'responseSequences'), 'a'), `expected one response per call (at least ${calls}), got ${sequence?.length ?? 'nothing (missing)'}`);
  }
  const proofAt = joinPath(at, 'chainProof');
  if (row.chainProof.requests.length !== calls) {
    report(joinPath(proofAt, 'requests'), `expected one request per called subscription (${calls}), got ${row.chainProof.requests.length}`);
  }
  if (row.chainProof.observations.length !== row.expected.observations.length) {
    report(joinPath(proofAt, 'observations'), `expected one notification per expected observation (${row.expected.observations.length}), got ${row.chainProof.observations.length}`);
  }
  row.chainProof.requests.forEach((proof, k) => {
    if (!jsonEqual(proof.id, request.id)) report(joinPath(indexPath(joinPath(proofAt, 'requests'), k), 'id'), `expected the chain request id ${JSON.stringify(request.id)}, got ${describeValue(proof.id)}`);
  });
  const eventId = request.params.event.id;
  row.chainProof.observations.forEach((proof, k) => {
    const observed = proof.params.event.id;
    if (observed !== eventId) {
      report(indexPath(joinPath(proofAt, 'observations'), k), `expected a notification for the chain event ${describeValue(eventId)}, got event id ${describeValue(observed)}`);
    }
  });
}

function describeList(list: 'called' | 'failures' | 'observations'): string {
  switch (list) {
    case 'called':
      return 'the called intercept subscriptions';
    case 'failures':
      return 'the called subscriptions that failed';
    case 'observations':
      return 'the observing subscriptions';
  }
}
