// Self-tests of the differential-fuzzing machinery (harness/fuzz): the batched shrinker walks exactly
// like fast-check's own shrinker, run-level failures are attributed to rows by bisection, generated
// batches are valid, lint-clean central-format files, and counterexample files are stable.

import { mkdtempSync, rmSync } from 'node:fs';
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
import { bisectingJudge, inProcessTarget, type RunOnce } from '../../harness/fuzz/targets.ts';
import { evaluate } from '../../harness/oracle/evaluate.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';
import { lintOwnScenarioFile } from '../../harness/scenarios/lint-scenario-file.ts';
import { loadScenarioFileSync } from '../../harness/scenarios/load-scenarios.ts';
import type { Scenario } from '../../harness/scenarios/types.ts';
import type { RowVerdict } from '../../harness/verify/verify-run.ts';

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

describe('run-level failures are attributed by bisection', () => {
  const rows = (n: number): Scenario[] => Array.from({ length: n }, (_, i) => ({ id: `row-${i}` }) as Scenario);
  const fakeRun = (bad: Set<string>, systematic = false): { once: RunOnce; calls: () => number } => {
    let calls = 0;
    const once: RunOnce = async (scenarios) => {
      calls++;
      const broken = systematic || scenarios.some((s) => bad.has(s.id));
      const verdicts = new Map<string, RowVerdict>(
        scenarios.map((s) => [
          s.id,
          { id: s.id, verdict: broken ? 'failed' : 'passed', reason: broken ? 'run integrity failure: no report' : '', adapterStatus: 'passed', actual: {}, faults: [] },
        ]),
      );
      return { rows: verdicts, integrity: broken ? ['[report/missing] no report'] : [] };
    };
    return { once, calls: () => calls };
  };

  test('one row that breaks the whole run is found; every other row passes', async () => {
    const run = fakeRun(new Set(['row-37']));
    const judgements = await bisectingJudge(run.once)(rows(100));
    expect(judgements.filter((j) => j.failed).map((j) => j.id)).toEqual(['row-37']);
    expect(run.calls()).toBeLessThanOrEqual(2 + 2 * Math.ceil(Math.log2(100)) + 2);
  });

  test('a systematic failure fails every row after two runs', async () => {
    const run = fakeRun(new Set(), true);
    const judgements = await bisectingJudge(run.once)(rows(50));
    expect(judgements.every((j) => j.failed)).toBe(true);
    expect(run.calls()).toBe(2);
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
