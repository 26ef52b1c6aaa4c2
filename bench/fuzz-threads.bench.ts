// Does in-process fuzzing pay on more threads? The campaign's threaded in-process phase
// (harness/fuzz/in-process-threads.ts, tinypool) on one thread versus one per core, for a CI-sized
// budget and for a slice of a campaign: each thread pays its start (tsx, validators) once, so
// threads only pay when there is enough to share. The answer is why the campaign uses them and the
// CI-sized in-process test does not (README, performance).

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

import { projectRoot } from '../harness/config/load-config.ts';
import { fuzzInProcessOnThreads } from '../harness/fuzz/in-process-threads.ts';
import type { Bench } from './lib/measure.ts';

const BATCH = 200;

async function casesPerSecond(threads: number, cases: number, dir: string): Promise<{ rate: number; seconds: number }> {
  const started = performance.now();
  const report = await fuzzInProcessOnThreads({
    seed: 1000,
    numRuns: Math.ceil(cases / BATCH),
    batchSize: BATCH,
    threads,
    schemasDir: path.join(projectRoot(), 'schemas'),
    counterexampleDir: dir,
    progressEvery: Number.MAX_SAFE_INTEGER,
  });
  const seconds = (performance.now() - started) / 1000;
  return { rate: report.cases / seconds, seconds };
}

export const fuzzThreadsBench: Bench = {
  name: 'fuzz threads',
  async run(out) {
    const cores = os.availableParallelism();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ahp-bench-fuzz-threads-'));
    try {
      out.section(`in-process fuzzing on worker threads: 1 thread vs ${cores} (generation, judging and thread start included)`);
      await casesPerSecond(1, 2 * BATCH, dir); // warm the tsx and validator caches
      for (const cases of [8_000, 40_000]) {
        const one = await casesPerSecond(1, cases, dir);
        const many = await casesPerSecond(cores, cases, dir);
        const rate = (r: { rate: number }): string => Math.round(r.rate).toLocaleString('en-US');
        out.line(
          `  ${cases.toLocaleString('en-US').padStart(6)} cases: 1 thread ${rate(one)} cases/s (${one.seconds.toFixed(2)} s), ` +
            `${cores} threads ${rate(many)} cases/s (${many.seconds.toFixed(2)} s), ×${(many.rate / one.rate).toFixed(2)}`,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
