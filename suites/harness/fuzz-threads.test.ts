// The long campaign's in-process phase on worker threads (harness/fuzz/in-process-threads.ts): the
// batches are shared out, thread i fuzzes with seed + i, and a disagreement found on any thread —
// here from a deliberately wrong apply step — makes the whole phase fail, naming that thread's seed.

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { projectRoot } from '../../harness/config/load-config.ts';
import { fuzzInProcessOnThreads, threadShares } from '../../harness/fuzz/in-process-threads.ts';
import { fuzzThreads } from '../../harness/fuzz/parameters.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ahp-fuzz-threads-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const schemasDir = path.join(projectRoot(), 'schemas');

describe('sharing the batches', () => {
  test('as evenly as possible, never a thread with nothing to do', () => {
    expect(threadShares(10, 3)).toEqual([4, 3, 3]);
    expect(threadShares(2, 4)).toEqual([1, 1]);
    expect(threadShares(5, 1)).toEqual([5]);
  });

  test('AHP_FUZZ_THREADS: one per core unless set; anything but a positive integer is refused', () => {
    expect(fuzzThreads({}, 6)).toBe(6);
    expect(fuzzThreads({ AHP_FUZZ_THREADS: '1' }, 6)).toBe(1);
    expect(() => fuzzThreads({ AHP_FUZZ_THREADS: '0' }, 6)).toThrow('AHP_FUZZ_THREADS: expected a positive integer, got "0"');
    expect(() => fuzzThreads({ AHP_FUZZ_THREADS: 'many' }, 6)).toThrow('AHP_FUZZ_THREADS');
  });
});

describe('fuzzing on two threads', () => {
  test('every batch of every thread is judged, each thread with its own seed', async () => {
    const report = await fuzzInProcessOnThreads({ seed: 7, numRuns: 5, batchSize: 20, threads: 2, schemasDir, counterexampleDir: path.join(tmp, 'clean'), progressEvery: 1000 });
    expect(report.ok).toBe(true);
    expect(report.threads.map((thread) => [thread.index, thread.seed, thread.batches])).toEqual([
      [0, 7, 3],
      [1, 8, 2],
    ]);
    expect(report.cases).toBe(5 * 20);
    expect(report.message).toContain('[thread 1, AHP_FUZZ_SEED=8]');
  }, 60_000);

  test('a thread that finds a disagreement fails the phase, names its seed and writes its counterexample', async () => {
    const dir = path.join(tmp, 'caught');
    const report = await fuzzInProcessOnThreads({
      seed: 11,
      numRuns: 6,
      batchSize: 40,
      threads: 2,
      schemasDir,
      counterexampleDir: dir,
      shrinkSeconds: 5,
      progressEvery: 1000,
      applyModule: new URL('./fixtures/fuzz-thread-apply/drops-messages.ts', import.meta.url).href,
    });
    expect(report.ok).toBe(false);
    const failed = report.threads.filter((thread) => !thread.ok);
    expect(failed.length).toBeGreaterThan(0);
    for (const thread of failed) {
      expect(report.message).toContain(`[thread ${thread.index}, AHP_FUZZ_SEED=${11 + thread.index}]`);
      expect(thread.message).toMatch(/messages/);
    }
    expect(readdirSync(dir).filter((file) => file.endsWith('.json')).length).toBeGreaterThan(0);
  }, 120_000);
});
