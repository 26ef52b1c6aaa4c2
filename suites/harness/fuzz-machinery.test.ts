// Self-tests of the differential-fuzzing machinery (harness/fuzz): the batched shrinker walks exactly
// like fast-check's own shrinker, run-level failures are attributed to rows by bisection, generated
// batches are valid, lint-clean central-format files, and counterexample files are stable.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';

import { projectRoot } from '../../harness/config/load-config.ts';
import { shrinkBatched } from '../../harness/fuzz/batched-shrink.ts';
import { captured, type Captured } from '../../harness/fuzz/captured.ts';
import { fuzzCase, materializeCase } from '../../harness/fuzz/case-arbitrary.ts';
import { counterexampleDir, counterexampleHash, writeCounterexample } from '../../harness/fuzz/counterexample-file.ts';
import { batchScenarioIds, fuzzScenario } from '../../harness/fuzz/scenario-rows.ts';
import { bisectingJudge, discardRefusal, type RunOnce } from '../../harness/fuzz/refusal-search.ts';
import { judgeRows } from '../../harness/fuzz/triage.ts';
import { inProcessTarget } from '../../harness/fuzz/targets.ts';
import { evaluate } from '../../harness/oracle/evaluate.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';
import { lintOwnScenarioFile } from '../../harness/scenarios/lint-scenario-file.ts';
import { loadScenarioFileSync } from '../../harness/scenarios/load-scenarios.ts';
import type { Scenario } from '../../harness/scenarios/types.ts';
import type { RowVerdict } from '../../harness/runs/verdicts.ts';

const validators = loadValidators(path.join(projectRoot(), 'schemas'));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ahp-fuzz-machinery-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('batched shrinking', () => {
  const arbitrary = fc.array(fc.integer({ min: -1000, max: 1000 }), { maxLength: 30 });
  const fails = (values: number[]): boolean => values.filter((v) => v > 300).length >= 2 && values.reduce((a, b) => a + b, 0) > 900;

  test.each([1, 2, 3, 42, 1234])('seed %i: finds exactly the counterexample fast-check itself shrinks to', async (seed) => {
    const own = fc.check(fc.property(arbitrary, (values) => !fails(values)), { seed, numRuns: 500 });
    expect(own.failed).toBe(true);
    let start: Captured<number[]> | undefined;
    fc.check(
      fc.property(captured(arbitrary), (item) => {
        if (!fails(item.value)) return true;
        start ??= item;
        return false;
      }),
      { seed, numRuns: 500, endOnFailure: true },
    );
    let calls = 0;
    const result = await shrinkBatched(
      arbitrary,
      start!.origin,
      async (values) => {
        calls++;
        return values.map(fails);
      },
      (failed) => failed,
      { maxRounds: 1000 },
    );
    expect(result.reproduced).toBe(true);
    expect(result.minimal).toBe(true);
    expect(result.value).toEqual(own.counterexample![0]);
    expect(calls).toBe(result.rounds);
    expect(result.rounds).toBeLessThanOrEqual(Math.max(2, own.numShrinks)); // batching saves judge calls
  });

  test('a start that does not fail on its own is reported, not shrunk', async () => {
    const start = new fc.Value([400, 400, 400], undefined);
    const result = await shrinkBatched(arbitrary, start, async (values) => values.map(() => false), (failed) => failed);
    expect(result).toMatchObject({ reproduced: false, steps: 0, rounds: 1 });
  });

  test('the round limit is honoured', async () => {
    const start = new fc.Value(Array.from({ length: 30 }, (_, i) => i * 50), undefined);
    const big = fc.array(fc.integer({ min: 0, max: 2000 }), { maxLength: 30 });
    const result = await shrinkBatched(big, start, async (values) => values.map(fails), (failed) => failed, { maxRounds: 2, width: 1, widths: [], fanouts: [] });
    expect(result.rounds).toBe(2);
    expect(result.minimal).toBe(false);
    expect(fails(result.value)).toBe(true);
  });
});

describe('refused batches are bisected to the smallest refused set', () => {
  const rows = (n: number): Scenario[] => Array.from({ length: n }, (_, i) => ({ id: `row-${i}`, request: { id: `row-${i}` } }) as unknown as Scenario);
  const verdicts = (scenarios: Scenario[], verdict: (s: Scenario) => Pick<RowVerdict, 'verdict' | 'adapterStatus' | 'actual'>): Map<string, RowVerdict> =>
    new Map(scenarios.map((s) => [s.id, { id: s.id, reason: '', faults: [], ...verdict(s) }]));

  /** A run that fails as a whole when it contains a bad row (or always); each run keeps a folder. */
  const fakeRun = (bad: Set<string>, systematic = false): { once: RunOnce; calls: () => number; dirs: string[] } => {
    let calls = 0;
    const dirs: string[] = [];
    const once: RunOnce = async (scenarios) => {
      calls++;
      const broken = systematic || scenarios.some((s) => bad.has(s.id));
      const rowsOf = verdicts(scenarios, () => (broken ? { verdict: 'failed', adapterStatus: 'missing', actual: undefined } : { verdict: 'passed', adapterStatus: 'passed', actual: {} }));
      if (!broken) return { rows: rowsOf, integrity: [] };
      const dir = mkdtempSync(path.join(tmp, 'run-'));
      dirs.push(dir);
      return { rows: rowsOf, integrity: [`[report/missing] (client) no report; see ${dir}/client.log`], dir };
    };
    return { once, calls: () => calls, dirs };
  };

  test('one row that breaks the whole run is found; every other row passes; only the two kept folders stay', async () => {
    const run = fakeRun(new Set(['row-37']));
    const judgements = await bisectingJudge(run.once)(rows(100));
    expect(judgements.filter((j) => j.failed).map((j) => j.id)).toEqual(['row-37']);
    expect(judgements.find((j) => j.failed)!.class).toBe('refused');
    const refusal = judgements.find((j) => j.failed)!.refusal!;
    expect(refusal).toMatchObject({ smallest: ['row-37'], refusedRows: 1, systematic: false, runs: run.calls() });
    expect(run.calls()).toBeLessThanOrEqual(3 + 2 * Math.ceil(Math.log2(100)));
    expect(run.dirs.filter(existsSync).sort()).toEqual([refusal.evidence.batch, refusal.evidence.smallest].sort());
    expect(refusal.integrity[0]).toContain(refusal.evidence.smallest);
    discardRefusal(refusal);
    expect(run.dirs.filter(existsSync)).toEqual([]);
  });

  test('a first row that is the only culprit is not mistaken for a systematic refusal', async () => {
    const run = fakeRun(new Set(['row-0']));
    const judgements = await bisectingJudge(run.once)(rows(20));
    expect(judgements.filter((j) => j.failed).map((j) => j.id)).toEqual(['row-0']);
    expect(judgements[0]!.refusal).toMatchObject({ smallest: ['row-0'], systematic: false });
  });

  test('a systematic refusal fails every row after three runs (the first and the last alone)', async () => {
    const run = fakeRun(new Set(), true);
    const judgements = await bisectingJudge(run.once)(rows(50));
    expect(judgements.every((j) => j.class === 'refused')).toBe(true);
    expect(judgements[0]!.refusal).toMatchObject({ smallest: ['row-0'], refusedRows: 50, systematic: true, runs: 3 });
    expect(run.calls()).toBe(3);
  });

  test('a client that gives up on every row with one error refuses the batch; a sub-run refused with another error does not reproduce it', async () => {
    // The client fails every row before sending anything with "discovery failed" when row-5 is in the
    // run; otherwise its strict host refuses rows 6–11 with "host refused" (so the sub-run of rows
    // 7–11 fails every row with one error too — another one).
    const once: RunOnce = async (scenarios) => {
      const broken = scenarios.some((s) => s.id === 'row-5');
      const refusedByHost = (s: Scenario): boolean => Number(s.id.slice(4)) >= 6;
      const rowsOf = verdicts(scenarios, (s) =>
        broken || refusedByHost(s) ? { verdict: 'failed', adapterStatus: 'failed', actual: null } : { verdict: 'passed', adapterStatus: 'passed', actual: {} },
      );
      const errors = new Map(scenarios.map((s) => [s.id, broken ? 'discovery failed' : 'host refused']));
      const allFailed = broken || scenarios.every(refusedByHost);
      return { rows: rowsOf, integrity: [], clientErrors: errors, reached: new Set(), ...(allFailed ? { clientWideError: broken ? 'discovery failed' : 'host refused' } : {}) };
    };
    const judgements = await bisectingJudge(once)(rows(12));
    expect(judgements.filter((j) => j.class === 'refused').map((j) => j.id)).toEqual(['row-5']);
    expect(judgements[5]!.refusal!.integrity[0]).toContain('discovery failed');
    // The host's refusals are host limitations with the client's message, never part of the refusal.
    const limited = judgements.filter((j) => j.class === 'host-limitation');
    expect(limited.map((j) => j.id)).toEqual(['row-6', 'row-7', 'row-8', 'row-9', 'row-10', 'row-11']);
    expect(limited.every((j) => j.clientError === 'host refused' && j.requestSent === false)).toBe(true);
  });
});

describe('triage of rows that failed', () => {
  const scenario = { id: 'r', request: { id: 'r' }, expected: { decision: 'allow' }, tags: ['fuzz'] } as unknown as Scenario;
  const judge = (row: Partial<RowVerdict>): string =>
    judgeRows([scenario], { rows: new Map([['r', { id: 'r', verdict: 'failed', reason: 'x', adapterStatus: 'failed', actual: null, faults: [], ...row }]]), integrity: [] })[0]!.class;

  test('no result and no rejection, only client faults: host limitation', () => {
    expect(judge({})).toBe('host-limitation');
    expect(judge({ faults: [{ label: 'receipts/count', party: 'client', message: 'sent no request' }] })).toBe('host-limitation');
  });

  test('a result, a rejection, a server fault or a passed status with faults: semantic disagreement', () => {
    expect(judge({ actual: { decision: 'deny' } })).toBe('disagreement');
    expect(judge({ actual: { rejected: true } })).toBe('disagreement');
    expect(judge({ faults: [{ label: 'responses/mismatch', party: 'server', message: 'altered' }] })).toBe('disagreement');
    expect(judge({ adapterStatus: 'passed', actual: { decision: 'allow' } })).toBe('disagreement');
  });

  describe('an input the protocol leaves undefined', () => {
    // A finish row carrying instructions: the oracle puts them first; nothing defines that.
    const carried = {
      id: 'c',
      request: {
        jsonrpc: '2.0',
        id: 'c',
        method: 'hooks/intercept',
        params: { protocolVersion: 'draft', event: { id: 'c', type: 'turn.finish.before', items: [] }, capabilities: { effects: [] }, state: { permission: 'none', candidate: null, instructions: ['earlier'] } },
      },
      expected: { decision: 'allow', executed: false, messages: [], continuationInstructions: ['earlier'] },
      tags: ['fuzz'],
    } as unknown as Scenario;
    const judged = (row: Partial<RowVerdict>) =>
      judgeRows([carried], { rows: new Map([['c', { id: 'c', verdict: 'failed', reason: 'x', adapterStatus: 'failed', actual: null, faults: [], ...row }]]), integrity: [] })[0]!;

    test('a difference only in what it decides: undefined by the protocol, with the aspect and the parts', () => {
      const judgement = judged({ actual: { decision: 'allow', executed: false, messages: [] } });
      expect(judgement.class).toBe('undefined');
      expect(judgement.failed).toBe(true);
      expect(judgement.differingParts).toEqual(['continuationInstructions']);
      expect(judgement.undefinedAspects?.map((a) => a.id)).toEqual(['carried-instructions']);
    });

    test('a difference in a defined part too, a rejection, or a server fault: still a disagreement', () => {
      expect(judged({ actual: { decision: 'allow', executed: false, messages: ['leaked'] } }).class).toBe('disagreement');
      expect(judged({ actual: { decision: 'deny', executed: false, messages: [] } }).class).toBe('disagreement');
      expect(judged({ actual: { rejected: true } }).class).toBe('disagreement');
      const altered = { actual: { decision: 'allow', executed: false, messages: [] }, faults: [{ label: 'responses/mismatch', party: 'server' as const, message: 'altered' }] };
      expect(judged(altered).class).toBe('disagreement');
    });
  });

  test('a passed or skipped row is no failure', () => {
    expect(judge({ verdict: 'passed' })).toBe('pass');
    expect(judge({ verdict: 'skipped', adapterStatus: 'unsupported' })).toBe('pass');
  });
});

describe('generated batches and counterexample files', () => {
  const cases = fc.sample(fuzzCase(), { seed: 99, numRuns: 150 });

  test('a batch is a lint-clean central-format file: unique ids, request.id === event.id === scenario id, oracle expectations', () => {
    const ids = batchScenarioIds('fz-b1', cases.length);
    const scenarios = cases.map((c, i) => fuzzScenario(c, ids[i]!, validators));
    expect(lintOwnScenarioFile({ version: 1, scenarios })).toEqual([]);
    for (const row of scenarios) {
      expect(row.request.params.event.id).toBe(row.id);
      const verdict = evaluate(row.request, row.response, validators);
      if (verdict.accepted) expect(row.expected).toEqual(verdict.result);
      else expect(row.expectError).toBe(true);
    }
  });

  test('the in-process target agrees with the oracle on the reference apply step', async () => {
    const ids = batchScenarioIds('fz-b2', cases.length);
    const scenarios = cases.map((c, i) => fuzzScenario(c, ids[i]!, validators));
    const judgements = await inProcessTarget({ apply: evaluate, validators }).judge(scenarios);
    expect(judgements.filter((j) => j.failed)).toEqual([]);
  });

  test('a case materializes the same under any id, so its hash and file name are stable', () => {
    const one = cases[3]!;
    const a = materializeCase(one, 'a');
    const b = materializeCase(one, 'b');
    expect(JSON.stringify(a.request).replaceAll('"a"', '"x"')).toBe(JSON.stringify(b.request).replaceAll('"b"', '"x"'));
    const dir = path.join(tmp, 'ce');
    const target = inProcessTarget({ apply: evaluate, validators });
    const info = { target, seed: 5, path: '0', reason: 'client reported status "failed"\n  input: ...' };
    const first = writeCounterexample(dir, one, info, validators);
    const second = writeCounterexample(dir, one, info, validators);
    expect(second.file).toBe(first.file);
    expect(path.basename(first.file)).toBe(`reference-to-in-process-${counterexampleHash(one)}.json`);
    expect(first.configFile).toBeUndefined(); // in-process targets have no pairing to replay
    const file = loadScenarioFileSync(first.file);
    expect(lintOwnScenarioFile(file)).toEqual([]);
    expect(file.scenarios.map((s) => s.id)).toEqual([`fuzz-${counterexampleHash(one)}`]);
    expect(file.scenarios[0]!.description).toContain('AHP_FUZZ_SEED=5');
  });

  test('AHP_COUNTEREXAMPLE_DIR overrides the fixtures folder', () => {
    expect(counterexampleDir({})).toBe(path.join(projectRoot(), 'fixtures', 'counterexamples'));
    expect(counterexampleDir({ AHP_COUNTEREXAMPLE_DIR: tmp })).toBe(tmp);
  });
});
