// Fuzzing other people's SDKs: every failure is triaged into one of four classes, printed first, and
// the evidence a message names outlives the run. Fake adapters (the reference adapter through module
// seams, suites/harness/fixtures/) cover each class:
// - refusing-server: a server whose strict scenario loader refuses to start on a file with one shape
//   of response → "adapter refused the batch", bisected to that one scenario, with the batch file,
//   configs and logs copied next to the counterexamples (HTTP and stdio);
// - host-strict: a narrower manifest, and a client whose host refuses (before sending) requests that
//   advertise more → unconstrained fuzzing reports "host limitation", never a disagreement; fuzzing
//   inside the envelope discovered from its server passes;
// - host-strict-buggy: the same host with a real apply bug → "semantic disagreement", shrunk to a
//   counterexample inside the envelope;
// - ignores-carried-state and host-task-tool-only: apply steps that differ from the oracle only where
//   the protocol leaves the outcome undefined (carried flow/instructions/injections; the task rule on
//   a tool other than `task`) → "undefined by the protocol", kept, and no failure of the run; the
//   same with one defined bug added is still a disagreement. host-task-tool-only, as a real client,
//   passes every row of our default core fixtures.
// Fixed seeds and small budgets: each case is a handful of short client runs.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { loadAdapter } from '../../harness/adapters/adapter-manifest.ts';
import { stopAll } from '../../harness/adapters/supervise.ts';
import type { LoadedAdapter } from '../../harness/adapters/types.ts';
import { projectRoot } from '../../harness/config/load-config.ts';
import { DEFAULT_FUZZ_SEED } from '../../harness/generate/arbitraries.ts';
import { differentialFuzz } from '../../harness/fuzz/differential.ts';
import { describeEnvelope, envelopeFromManifest, outsideEnvelope } from '../../harness/fuzz/host-envelope.ts';
import { discoveredEnvelopes, planFuzzGroups } from '../../harness/fuzz/profile-plan.ts';
import { inProcessTarget, processTarget, type ApplyStep } from '../../harness/fuzz/targets.ts';
import { evaluate } from '../../harness/oracle/evaluate.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';
import type { Transport } from '../../harness/config/define-config.ts';
import { lintOwnScenarioFile } from '../../harness/scenarios/lint-scenario-file.ts';
import { loadScenarioFileSync } from '../../harness/scenarios/load-scenarios.ts';
import { buildManifest } from './fixtures/host-strict-common/manifest.ts';
import { unknownMember } from './fixtures/refusing-server/load-scenarios.ts';
import { evaluate as ignoresCarriedState, withDefinedStateOnly } from './fixtures/ignores-carried-state/apply.ts';
import { evaluate as taskToolOnly } from './fixtures/host-task-tool-only/apply.ts';
import { apply as dropsMessages } from './fixtures/fuzz-thread-apply/drops-messages.ts';

const root = projectRoot();
const schemas = path.join(root, 'schemas');
const validators = loadValidators(schemas);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ahp-fuzz-triage-'));
const watchdogs = { startupMs: 30_000, runMs: 120_000 };

afterAll(async () => {
  await stopAll(1000);
  rmSync(tmp, { recursive: true, force: true });
});

function fixture(name: string): LoadedAdapter {
  const cwd = name === 'reference' ? path.join(root, 'adapters', 'reference') : path.join(root, 'suites', 'harness', 'fixtures', name);
  return loadAdapter({ name, cwd, adapterFile: path.join(cwd, 'interop', 'adapter.json') });
}

/** A fresh work dir (removed by the test, as teardown would) and counterexample dir per test. */
function dirs(label: string): { workDir: string; counterexamples: string } {
  const base = mkdtempSync(path.join(tmp, `${label}-`));
  return { workDir: path.join(base, 'work'), counterexamples: path.join(base, 'counterexamples') };
}

/** Every temp path the message names is in the counterexample dir, and exists after the work dir is gone. */
function expectPathsOutliveTheRun(message: string, counterexamples: string): void {
  const paths = (message.match(new RegExp(`${tmp.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/[^\\s;]+`, 'g')) ?? []).map((p) => p.replace(/[.,)]+$/, ''));
  expect(paths.length, message).toBeGreaterThan(0);
  for (const named of paths) {
    expect(named.startsWith(`${counterexamples}/`), `${named} is outside the counterexample dir`).toBe(true);
    // "before writing readiness file X" names a file that was never written, by definition.
    if (!named.endsWith('readiness.json')) expect(existsSync(named), `${named} does not exist after the run`).toBe(true);
  }
}

const envelope = envelopeFromManifest(buildManifest('none'), 'the strict host fixture');

describe.concurrent('fuzz triage with fake SDK adapters', () => {
  // Seed 16 puts exactly one response with an unknown member in the middle of a 16-case batch.
  test.each<Transport>(['http', 'stdio'])(
    'adapter refused the batch (%s): a server refusing one response shape is bisected to that scenario; evidence outlives the run',
    async (transport) => {
      const { workDir, counterexamples } = dirs(`refused-${transport}`);
      const target = processTarget({ server: fixture('refusing-server'), client: fixture('reference'), transport, schemasDir: schemas, watchdogs, workDir });
      const lines: string[] = [];
      const report = await differentialFuzz({ targets: [target], validators, seed: 16, numRuns: 1, batchSize: 16, counterexampleDir: counterexamples, progress: (line) => lines.push(line) });
      rmSync(workDir, { recursive: true, force: true }); // what teardown does

      expect(report.ok).toBe(false);
      expect(report.error, report.message).toBeUndefined();
      expect(report.message.split('\n')[0]).toMatch(/^adapter refused the batch \(1 target\(s\)\) — /);
      expect(report.failures).toEqual([]);
      expect(report.hostLimitations).toEqual([]);
      expect(report.refusals).toHaveLength(1);
      const refused = report.refusals[0]!;
      expect(refused).toMatchObject({ class: 'refused', batch: 1, batchSize: 16, refusedRows: 1, systematic: false });
      expect(refused.smallest).toHaveLength(1);
      expect(refused.integrity.join('\n')).toMatch(/\[startup\/exited\] \(server\)/);
      expect(lines.some((line) => /bisecting: run \d+/.test(line))).toBe(true);

      // The smallest refused set is a lint-clean file holding exactly the one refused shape.
      const file = loadScenarioFileSync(refused.file);
      expect(lintOwnScenarioFile(file)).toEqual([]);
      expect(file.scenarios.map((s) => s.id)).toEqual(refused.smallest);
      expect(unknownMember(file.scenarios)).toBeDefined();
      expect(file.scenarios[0]!.description).toContain(refused.evidenceDir);

      // The whole batch, its configs and the logs are kept; the server log says why it refused.
      const batchFile = loadScenarioFileSync(path.join(refused.evidenceDir, 'batch', 'scenarios.json'));
      expect(batchFile.scenarios).toHaveLength(16);
      expect(batchFile.scenarios.filter((s) => unknownMember([s]) !== undefined).map((s) => s.id)).toEqual(refused.smallest);
      const logs = findFiles(refused.evidenceDir, (name) => name === 'server.log');
      expect(logs.some((log) => readFileSync(log, 'utf8').includes('strict scenario loader: unknown member'))).toBe(true);
      expect(findFiles(refused.evidenceDir, (name) => name.endsWith('config.json')).length).toBeGreaterThan(0);
      expectPathsOutliveTheRun(report.message, counterexamples);
    },
    120_000,
  );

  test('host limitation: a host refusing unadvertised capabilities is reported as such, never as a disagreement', async () => {
    const { workDir, counterexamples } = dirs('host-limited');
    const strict = fixture('host-strict');
    const target = processTarget({ server: strict, client: strict, transport: 'http', schemasDir: schemas, watchdogs, workDir });
    const report = await differentialFuzz({ targets: [target], validators, seed: DEFAULT_FUZZ_SEED, numRuns: 2, batchSize: 30, counterexampleDir: counterexamples });
    rmSync(workDir, { recursive: true, force: true });

    expect(report.ok).toBe(false);
    expect(report.message.split('\n')[0]).toMatch(/^host limitation \(1 target\(s\)\) — /);
    expect(report.failures, report.message).toEqual([]);
    expect(report.refusals, report.message).toEqual([]);
    const limited = report.hostLimitations[0]!;
    expect(limited.rows).toBeGreaterThan(0);
    expect(limited.rows).toBeLessThan(60); // some requests were inside what the host offers, and passed
    for (const message of limited.messages) {
      expect(message.error).toMatch(/^host refused the request before sending it: /);
      expect(message.requestSent).toBe(false);
    }
    // Every sampled row is outside the host's envelope and carries the host's message.
    const file = loadScenarioFileSync(limited.file);
    expect(lintOwnScenarioFile(file)).toEqual([]);
    for (const row of file.scenarios) {
      expect(outsideEnvelope(envelope, row.request), row.id).toBeDefined();
      expect(row.description).toContain('host refused the request before sending it');
    }
    expectPathsOutliveTheRun(report.message, counterexamples);
  }, 120_000);

  test('host profile: the envelope is discovered from the server through the real transport, and fuzzing inside it passes', async () => {
    const { workDir, counterexamples } = dirs('host-inside');
    const strict = fixture('host-strict');
    const targets = (['http', 'stdio'] as const).map((transport) =>
      processTarget({ server: strict, client: strict, transport, schemasDir: schemas, watchdogs, workDir }),
    );
    const plan = await planFuzzGroups(targets, { envelopeOf: discoveredEnvelopes({ schemasDir: schemas, workDir, watchdogs, evidenceDir: counterexamples }) });
    expect(plan.problems).toEqual([]);
    // Both transports' discovery answered the same offer: one group, both sources named.
    expect(plan.groups).toHaveLength(1);
    const profile = plan.groups[0]!.profile;
    expect(profile.name).toBe('host');
    if (profile.name !== 'host') return;
    expect({ ...profile.envelope, sources: [], notes: [] }).toEqual({ ...envelope, sources: [], notes: [] });
    expect(profile.envelope.sources.join(' ')).toMatch(/POST \/capabilities.*hooks\/capabilities/);
    expect(profile.envelope.notes).toContain('turn.finish.before: not offered in intercept mode');

    const report = await differentialFuzz({ targets: [targets[0]!], profile, validators, seed: DEFAULT_FUZZ_SEED, numRuns: 2, batchSize: 30, counterexampleDir: counterexamples });
    rmSync(workDir, { recursive: true, force: true });
    expect(report.ok, report.message).toBe(true);
    expect(report.message).toContain('profile host');
  }, 120_000);

  test('semantic disagreement: a real apply bug is found and shrunk inside the envelope', async () => {
    const { workDir, counterexamples } = dirs('semantic');
    const buggy = fixture('host-strict-buggy');
    const target = processTarget({ server: buggy, client: buggy, transport: 'http', schemasDir: schemas, watchdogs, workDir });
    const plan = await planFuzzGroups([target], { envelopeOf: discoveredEnvelopes({ schemasDir: schemas, workDir, watchdogs, evidenceDir: counterexamples }) });
    const profile = plan.groups[0]!.profile;
    expect(profile.name).toBe('host');
    const report = await differentialFuzz({
      targets: [target],
      profile,
      validators,
      seed: DEFAULT_FUZZ_SEED,
      numRuns: 6,
      batchSize: 40,
      counterexampleDir: counterexamples,
      shrink: { maxRounds: 10 },
    });
    rmSync(workDir, { recursive: true, force: true });

    expect(report.message.split('\n')[0]).toMatch(/^semantic disagreement \(1 target\(s\)\) — /);
    expect(report.hostLimitations, report.message).toEqual([]); // generated inside: the host never refused
    expect(report.refusals).toEqual([]);
    const failure = report.failures[0]!;
    expect(failure.shrink.reproduced, report.message).toBe(true);
    expect(failure.reason).toContain('decision');
    expect(failure.effects).toBeLessThanOrEqual(3);
    const file = loadScenarioFileSync(failure.counterexample.file);
    expect(lintOwnScenarioFile(file)).toEqual([]);
    const row = file.scenarios[0]!;
    expect(outsideEnvelope(envelope, row.request), JSON.stringify(row.request)).toBeUndefined();
    expect(row.description).toContain(`Generated in the host profile, inside the host envelope ${describeEnvelope(profile.name === 'host' ? profile.envelope : envelope)}.`);
    const verdict = evaluate(row.request, row.response, validators);
    expect(verdict.accepted && row.expected).toEqual(verdict.accepted ? verdict.result : false);
    expectPathsOutliveTheRun(report.message, counterexamples);
  }, 120_000);

  test('a discovery that fails leaves its pairing out, with the config and logs kept and named', async () => {
    const { workDir, counterexamples } = dirs('discovery');
    const broken = fixture('broken-server-exit');
    const target = processTarget({ server: broken, client: broken, transport: 'http', schemasDir: schemas, watchdogs, workDir });
    const plan = await planFuzzGroups([target], { envelopeOf: discoveredEnvelopes({ schemasDir: schemas, workDir, watchdogs, evidenceDir: counterexamples }) });
    rmSync(workDir, { recursive: true, force: true });
    expect(plan.groups).toEqual([]);
    expect(plan.problems).toHaveLength(1);
    expect(plan.problems[0]).toMatch(/broken-server-exit→broken-server-exit http\/none left out: the host envelope of adapter "broken-server-exit" could not be discovered: .*exited with code 3/);
    expect(plan.problems[0]).toContain('AHP_FUZZ_PROFILE=wide');
    expectPathsOutliveTheRun(plan.problems[0]!, counterexamples);
  }, 60_000);
});

function findFiles(dir: string, wanted: (name: string) => boolean): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && wanted(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe('undefined by the protocol: a client that differs only where the protocol is silent is no fault', () => {
  const fuzzInProcess = (apply: ApplyStep, name: string, label: string) => {
    const { counterexamples } = dirs(label);
    return differentialFuzz({ targets: [inProcessTarget({ apply, validators, name })], validators, seed: DEFAULT_FUZZ_SEED, numRuns: 10, batchSize: 100, counterexampleDir: counterexamples });
  };

  test.each<[string, ApplyStep, string[]]>([
    ['ignores-carried-state', ignoresCarriedState, ['carried-flow', 'carried-instructions', 'carried-injections']],
    ['host-task-tool-only', taskToolOnly, ['task-rule-other-tool']],
  ])('%s: every difference is classed undefined by the protocol, its rows kept; the run passes', async (name, apply, aspects) => {
    const report = await fuzzInProcess(apply, name, `undefined-${name}`);
    expect(report.ok, report.message).toBe(true);
    expect(report.failures, report.message).toEqual([]);
    expect(report.hostLimitations).toEqual([]);
    expect(report.undefinedOutcomes).toHaveLength(1);
    const open = report.undefinedOutcomes[0]!;
    expect(open.rows).toBeGreaterThan(0);
    expect(Object.keys(open.aspects).sort()).toEqual([...aspects].sort());
    expect(report.message.split('\n')[0]).toMatch(/^differential fuzzing passed: /);
    expect(report.message).toContain(`undefined by the protocol — ${name} in-process: ${open.rows} row(s)`);
    expect(report.message).toContain(open.file);

    // The kept rows are lint-clean, each says what is undefined and why, and the oracle's expectation
    // really is what this client departs from.
    const file = loadScenarioFileSync(open.file);
    expect(lintOwnScenarioFile(file)).toEqual([]);
    for (const row of file.scenarios) {
      expect(row.description).toMatch(/^Undefined by the protocol, seen by differential fuzzing against /);
      expect(row.description).toContain("The expectation is the oracle's extrapolation, not a requirement.");
      const judged = await inProcessTarget({ apply, validators, name }).judge([row]);
      expect(judged[0]!.class, row.id).toBe('undefined');
    }
  }, 60_000);

  test('the same client with one defined bug is still a semantic disagreement', async () => {
    const both: ApplyStep = (request, response, v) => dropsMessages(withDefinedStateOnly(request), response, v);
    const report = await fuzzInProcess(both, 'ignores-carried-drops-messages', 'undefined-and-defined');
    expect(report.ok).toBe(false);
    expect(report.message.split('\n')[0]).toMatch(/semantic disagreement \(1 target\(s\)\)/);
    expect(report.failures).toHaveLength(1);
    expect(report.failures[0]!.reason).toContain('messages');
  }, 60_000);

  test("host-task-tool-only as a real client passes every row of our default core fixtures (they call the fixture host's task)", async () => {
    const { workDir } = dirs('task-tool-only');
    const target = processTarget({ server: fixture('reference'), client: fixture('host-task-tool-only'), transport: 'http', schemasDir: schemas, watchdogs, workDir });
    const scenarios = loadScenarioFileSync(path.join(root, 'fixtures', 'scenarios.json')).scenarios;
    const judgements = await target.judge(scenarios);
    rmSync(workDir, { recursive: true, force: true });
    expect(judgements.filter((j) => j.failed).map((j) => `${j.id}: ${j.reason}`)).toEqual([]);
    expect(judgements).toHaveLength(scenarios.length);
    // It is a different host from the oracle's: on another tool it does not apply the task rule.
    const taskRow = scenarios.find((s) => s.id === 'modify.task-zero')!;
    const elsewhere = structuredClone(taskRow.request);
    elsewhere.params.event.tool!.name = 'shell';
    expect(evaluate(elsewhere, taskRow.response, validators).accepted).toBe(false);
    expect(taskToolOnly(elsewhere, taskRow.response, validators).accepted).toBe(true);
  }, 120_000);
});

