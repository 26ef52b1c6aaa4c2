// The lifecycle fixture generator: the committed file is exactly a fresh build (and `npm run fixtures
// -- --check` says so), every coverage item is proven by a tagged row, the generator's checks catch
// the mistakes they exist for, and the simulator that computes every `expected` reproduces the
// protocol's own canonical lifecycle file row for row — the evidence that it follows the protocol
// rather than our guesses.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { execa } from 'execa';
import { describe, expect, test } from 'vitest';

import { projectRoot } from '../../harness/config/load-config.ts';
import { FIXTURE_TARGETS } from '../../harness/generate/fixture-targets.ts';
import { LIFECYCLE_SCENARIOS_FILE } from '../../harness/generate/fixture-target.ts';
import { LIFECYCLE_COVERAGE, coverageProblems } from '../../harness/families/lifecycle/coverage.ts';
import { buildLifecycleScenarios, checkLifecycleScenarioBuild, placementFor } from '../../harness/families/lifecycle/generate.ts';
import { loadLifecycleScenarioFileSync } from '../../harness/families/lifecycle/load-lifecycle-scenarios.ts';
import { lintLifecycleScenarioFile } from '../../harness/families/lifecycle/lint-lifecycle-scenario-file.ts';
import { recomputeChainPermissions, simulateChain } from '../../harness/families/lifecycle/simulate-chain.ts';
import { simulateStepScript } from '../../harness/lifecycle-adapters/simulate-step-script.ts';
import type { ChainScenario, LifecycleScenario, LifecycleScenarioFile, StepScenario } from '../../harness/lifecycle-adapters/scenario-types.ts';
import { canonicalInteropCandidate, canonicalInteropFile } from '../../harness/protocol/canonical-interop.ts';
import { canonicalSchemaCandidate, canonicalSchemaDir } from '../../harness/protocol/canonical-schemas.ts';
import { jsonEqual } from '../../harness/protocol/json.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';

const ROOT = projectRoot();
const ours = loadValidators(path.join(ROOT, 'schemas'));
const committedText = readFileSync(LIFECYCLE_SCENARIOS_FILE, 'utf8');
const committed = loadLifecycleScenarioFileSync(LIFECYCLE_SCENARIOS_FILE);
const lifecycleTarget = FIXTURE_TARGETS.find((t) => t.name === 'lifecycle');

const tagged = (file: LifecycleScenarioFile, tag: string): LifecycleScenario[] => file.scenarios.filter((row) => row.tags?.includes(tag) === true);

describe('lifecycle scenario generator', () => {
  test('the committed fixtures/lifecycle-scenarios.json equals a fresh build byte for byte (run `npm run fixtures`)', () => {
    expect(lifecycleTarget, 'FIXTURE_TARGETS has a lifecycle target').toBeDefined();
    const fresh = lifecycleTarget!.generate(ours);
    expect(fresh.problems).toEqual([]);
    expect(committedText === fresh.text, 'fixtures/lifecycle-scenarios.json is stale: run `npm run fixtures`').toBe(true);
  });

  test('`npm run fixtures -- --check` reproduces every committed file and exits 0', async () => {
    const result = await execa(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['harness/generate/fixtures-cli.ts', '--check'], {
      cwd: ROOT,
      reject: false,
      timeout: 120_000,
      env: { AHP_CONFIG: '' },
    });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/core --check: fixtures\/scenarios\.json is up to date/);
    expect(result.stdout).toMatch(/lifecycle --check: fixtures\/lifecycle-scenarios\.json is up to date; \d+ rows/);
    expect(result.stdout).toMatch(/catalogue --check: fixtures\/catalogue-scenarios\.json is up to date; \d+ rows/);
  });

  test('two builds are identical (no randomness, clock or paths)', () => {
    expect(JSON.stringify(buildLifecycleScenarios(ours))).toBe(JSON.stringify(buildLifecycleScenarios(ours)));
  });

  test('the committed file loads through the lifecycle loader with zero problems and passes every generator check', () => {
    expect(lintLifecycleScenarioFile(committed)).toEqual([]);
    expect(checkLifecycleScenarioBuild(committed, ours)).toEqual([]);
  });

  const canonicalSchemas = canonicalSchemaDir();
  test.skipIf(canonicalSchemas === undefined)(
    `every message of the committed file is valid under the canonical schemas too (${canonicalSchemaCandidate()}; skipped when absent)`,
    () => {
      expect(checkLifecycleScenarioBuild(committed, loadValidators(canonicalSchemas as string))).toEqual([]);
    },
  );

  test('ids, request ids and event ids are ours, not the canonical file\'s, and each request id is its event id', () => {
    for (const row of committed.scenarios) {
      expect(row.id).toMatch(/^(cancel|duplicate|acceptance|interrupt|observe|upload|content|stdio|chain)\./);
      for (const [key, request] of Object.entries(row.requests)) {
        expect(request.id).toBe(`${row.id}:${key}`);
        expect(request.params.event.id).toBe(request.id);
        expect(request.params.event.source).toBe('urn:ahp-conformance:lifecycle-host');
      }
    }
  });
});

// LIFECYCLE-RULES §12: each intent of the protocol's scenario table, and the coverage tag of ours that
// proves it. A new canonical row without an entry here fails the test below.
const RULES_12_INTENTS: Record<string, string[]> = {
  'cancel-before-reply': ['cancel-before-reply', 'fail-open-after-cancel'],
  'cancel-after-reply-before-acceptance': ['cancel-after-acquisition', 'discard-retained-effects'],
  'late-old-while-next-pending': ['late-old-reply'],
  'duplicate-reply-ignored': ['duplicate-no-republish'],
  'request-specific-acceptance': ['request-specific-acceptance'],
  'two-staged-reverse-acceptance': ['reverse-order-acceptance'],
  'first-staged-response-wins': ['first-response-retained'],
  'interrupt-after-publication': ['interrupt-after-publication'],
  'settled-observer-effects-ignored': ['settled-observation-views', 'observer-effects-ignored'],
  'denied-boundary-observed': ['denied-boundary-observed'],
  'cancelled-boundary-observed': ['cancelled-boundary-observed'],
  'stopped-boundary-observed': ['stopped-boundary-observed'],
  'ask-boundary-observed': ['ask-boundary-observed'],
  'immutable-upload-and-subscription-views': ['immutable-upload-bindings', 'changed-bytes-new-ref', 'unauthorized-never-rebinds', 'content-authorization-views'],
  'upload-integrity-rejection': ['upload-rejects-size', 'upload-rejects-hash', 'upload-rejects-credential'],
  'changed-body-new-reference': ['changed-bytes-new-ref'],
  'normal-content-kinds': ['content-categories'],
  'arbitrary-binary-and-empty-content': ['binary-octets', 'empty-upload'],
  'intercept-content-upload-before-send': ['upload-before-intercept-body'],
  'stdio-unsolicited-old-before-live': ['unsolicited-stale-frame'],
  'stdio-unknown-before-live': ['unsolicited-unknown-frame'],
  'observation-chain-deny': ['chain-deny'],
  'observation-chain-stop': ['chain-stop'],
  'observation-chain-deny-stop': ['chain-deny-stop'],
  'observation-chain-deny-no-explicit': ['chain-no-explicit-observer'],
  'observation-chain-fail-open': ['chain-fail-open'],
  'observation-chain-fail-closed': ['chain-fail-closed'],
  'observation-chain-interrupt': ['chain-interrupt'],
  'observation-chain-continue': ['chain-continue'],
  'observation-chain-native': ['chain-native'],
};

describe('coverage', () => {
  test('every coverage item has at least one tagged row whose simulated trace shows it', () => {
    const evidence = committed.scenarios.map((row) =>
      row.chain !== undefined
        ? { kind: 'chain' as const, row, simulation: simulateChain(row, ours) }
        : { kind: 'steps' as const, row, simulation: simulateStepScript(row, ours) },
    );
    expect(coverageProblems(evidence)).toEqual([]);
    for (const item of LIFECYCLE_COVERAGE) expect(tagged(committed, item.tag).length, item.tag).toBeGreaterThan(0);
  });

  test('every intent of LIFECYCLE-RULES §12 maps to coverage items that rows of ours prove', () => {
    const tags = new Set(LIFECYCLE_COVERAGE.map((item) => item.tag));
    for (const [intent, proving] of Object.entries(RULES_12_INTENTS)) {
      for (const tag of proving) {
        expect(tags.has(tag), `${intent} → ${tag} is a coverage item`).toBe(true);
        expect(tagged(committed, tag).length, `${intent} → a row tagged ${tag}`).toBeGreaterThan(0);
      }
    }
  });

  const canonical = canonicalInteropFile('lifecycle-scenarios.json');
  test.skipIf(canonical === undefined)(
    `the §12 table names exactly the canonical file's rows (${path.join(canonicalInteropCandidate(), 'lifecycle-scenarios.json')}; skipped when absent)`,
    () => {
      const ids = loadLifecycleScenarioFileSync(canonical as string).scenarios.map((row) => row.id);
      expect(ids.sort()).toEqual(Object.keys(RULES_12_INTENTS).sort());
    },
  );

  test('the transport splits follow §8: one outstanding intercept per stdio backend, stray frames only on stdio', () => {
    for (const row of committed.scenarios) {
      if (row.chain !== undefined) {
        expect(row.transports, row.id).toBeUndefined();
        continue;
      }
      const emits = row.steps.some((step) => step.op === 'emit');
      if (emits) expect(row.transports, row.id).toEqual(['stdio']);
      else if (row.transports !== undefined) {
        expect(row.transports, row.id).toEqual(['http']);
        expect(row.inapplicableReason, row.id).toMatch(/one outstanding intercept request per persistent backend/);
      }
    }
    expect(committed.scenarios.filter((row) => row.transports?.[0] === 'http').length).toBeGreaterThanOrEqual(3);
    expect(committed.scenarios.filter((row) => row.transports?.[0] === 'stdio').length).toBeGreaterThanOrEqual(2);
  });
});

describe('the generator checks catch mistakes', () => {
  const copy = (): LifecycleScenarioFile => structuredClone(committed);
  const row = <R extends LifecycleScenario>(file: LifecycleScenarioFile, id: string): R => {
    const found = file.scenarios.find((s) => s.id === id);
    if (found === undefined) throw new Error(`the committed file has no row ${id}`);
    return found as R;
  };
  const problems = (file: LifecycleScenarioFile): string => checkLifecycleScenarioBuild(file, ours).join('\n');

  test('a hand-edited expected state', () => {
    const file = copy();
    const r = row<StepScenario>(file, 'observe.denied-boundary');
    r.expected.states[String(r.requests.a!.id)]!.executed = true;
    // The loader's own checks pass (the shape is fine); only the simulator knows better.
    expect(lintLifecycleScenarioFile(file)).toEqual([]);
    expect(problems(file)).toMatch(/observe\.denied-boundary: expected differs from the simulated script/);
  });

  test('a hand-edited chain proof permission', () => {
    const file = copy();
    const r = row<ChainScenario>(file, 'chain.serial-calls-carry-input');
    r.chainProof.requests[1]!.params.state!.permission = 'none';
    expect(problems(file)).toMatch(/chain\.serial-calls-carry-input: chainProof differs from the simulated chain/);
  });

  test('an item whose only row loses its tag', () => {
    const file = copy();
    const r = row(file, 'chain.ask-persists-through-allow');
    r.tags = (r.tags ?? []).filter((tag) => tag !== 'chain-ask-permission');
    expect(problems(file)).toMatch(/coverage: no row is tagged chain-ask-permission/);
  });

  test('a tag on a row that does not show the behaviour', () => {
    const file = copy();
    row(file, 'observe.ask-boundary').tags!.push('denied-boundary-observed');
    expect(problems(file)).toMatch(/observe\.ask-boundary: tagged denied-boundary-observed, but no observed deny/);
  });

  test('discarded replies that together no longer carry every effect kind', () => {
    const file = copy();
    const r = row(file, 'cancel.staged-before-acceptance');
    r.responses.a = { ...r.responses.a!, result: { protocolVersion: 'draft', effects: [{ type: 'allow' }] } };
    expect(problems(file)).toMatch(/coverage discard-retained-effects: no discarded staged reply carries modify, return, inject$/m);
  });

  test('an unknown tag', () => {
    const file = copy();
    row(file, 'observe.ask-boundary').tags!.push('made-up');
    expect(problems(file)).toMatch(/observe\.ask-boundary: unknown tag "made-up"/);
  });

  test('an http-only row offered to stdio', () => {
    const file = copy();
    const r = row(file, 'acceptance.names-its-request');
    delete r.transports;
    delete r.inapplicableReason;
    expect(problems(file)).toMatch(/acceptance\.names-its-request: transports "both" do not follow from the script \(expected \["http"\]\)/);
  });

  test('a schema-invalid request', () => {
    const file = copy();
    const r = row(file, 'content.intercept-body-after-upload');
    delete (r.requests.a!.params.event.tool as Record<string, unknown>).name;
    expect(problems(file)).toMatch(/content\.intercept-body-after-upload: requests\.a is not schema-valid/);
  });

  test('a discarded reply that the oracle would have rejected anyway', () => {
    const file = copy();
    const r = row(file, 'cancel.staged-before-acceptance');
    const capabilities = r.requests.a!.params.capabilities;
    capabilities.effects = capabilities.effects.filter((effect) => effect !== 'inject');
    delete capabilities.inject;
    expect(problems(file)).toMatch(/cancel\.staged-before-acceptance: the reply discarded at steps\[4\] would be rejected anyway \(capability/);
  });

  test('a row no client can run under the step rules (a wait for an attempt never sent)', () => {
    const file = copy();
    const r = row<StepScenario>(file, 'observe.ask-boundary');
    const wait = r.steps.findIndex((step) => step.op === 'wait');
    (r.steps[wait] as { count: number }).count = 2;
    expect(lintLifecycleScenarioFile(file)).toEqual([]);
    expect(problems(file)).toMatch(/observe\.ask-boundary: runnability: fixtures\/lifecycle-scenarios\.json \(generated\): scenarios\[\d+\]\.steps\[\d+\]\.count: expected at most the 1 attempt\(s\) of "a" sent so far, got 2 \[rule: LIFECYCLE-RULES §4 wait/);
  });

  test('a script the simulator refuses (a receive before its release)', () => {
    const file = copy();
    const r = row<StepScenario>(file, 'observe.ask-boundary');
    r.steps = r.steps.filter((step) => step.op !== 'release');
    expect(problems(file)).toMatch(/observe\.ask-boundary: the simulator refuses the row: receives slot "a" before .* is released: it would wait forever/);
  });
});

// ----- the simulator against the protocol's canonical file ---------------------------------------

const canonicalLifecycle = canonicalInteropFile('lifecycle-scenarios.json');
const canonicalRows = canonicalLifecycle ? loadLifecycleScenarioFileSync(canonicalLifecycle).scenarios : [];

/** The canonical proof's requests with the permission §7.8's verifier recomputes (the file writes `none` throughout). */
function withRecomputedPermissions(row: ChainScenario): ChainScenario['chainProof']['requests'] {
  const permissions = recomputeChainPermissions(row, row.expected.called, row.expected.failures);
  return row.chainProof.requests.map((request, k) => ({ ...request, params: { ...request.params, state: { ...request.params.state!, permission: permissions[k]! } } }));
}

describe.skipIf(canonicalLifecycle === undefined)(
  canonicalLifecycle
    ? 'the simulator reproduces every row of the canonical lifecycle file'
    : `the simulator reproduces every row of the canonical lifecycle file (SKIPPED: no ${path.join(canonicalInteropCandidate(), 'lifecycle-scenarios.json')}; set AHP_CANONICAL_INTEROP)`,
  () => {
    test('the canonical file has step scripts and chains', () => {
      expect(canonicalRows.filter((r) => r.chain === undefined).length).toBeGreaterThan(0);
      expect(canonicalRows.filter((r) => r.chain !== undefined).length).toBeGreaterThan(0);
    });

    test.each(canonicalRows.filter((r): r is StepScenario => r.chain === undefined).map((r) => [r.id, r] as const))('%s: expected and transports', (_id, canonicalRow) => {
      const simulation = simulateStepScript(canonicalRow, ours);
      expect(simulation.expected).toEqual(canonicalRow.expected);
      const placement = placementFor(simulation);
      expect('problem' in placement ? placement : placement.transports).toEqual(canonicalRow.transports);
    });

    test.each(canonicalRows.filter((r): r is ChainScenario => r.chain !== undefined).map((r) => [r.id, r] as const))('%s: expected and chainProof', (_id, canonicalRow) => {
      const simulation = simulateChain(canonicalRow, ours);
      expect(simulation.expected).toEqual(canonicalRow.expected);
      expect(simulation.proof.observations).toEqual(canonicalRow.chainProof.observations);
      expect(simulation.proof.requests).toEqual(withRecomputedPermissions(canonicalRow));
    });
  },
);

const supersededChains = canonicalInteropFile('observation-chain-scenarios.json');
describe.skipIf(supersededChains === undefined)('the older observation-chain file', () => {
  test('the simulator agrees with every row except the interrupt row LIFECYCLE-RULES §13 says is superseded', () => {
    const rows = loadLifecycleScenarioFileSync(supersededChains as string).scenarios.filter((r): r is ChainScenario => r.chain !== undefined);
    const disagreeing = rows.filter((r) => !jsonEqual(simulateChain(r, ours).expected, r.expected)).map((r) => r.id);
    expect(disagreeing).toEqual(['observation-chain-interrupt']);
  });
});
