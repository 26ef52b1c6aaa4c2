// Does in-process fuzzing pay on more threads? Generation and judging of fuzz cases (the in-process
// target's work) on one worker thread versus one per core, same total number of cases. The answer
// decides whether the package spreads in-process fuzzing over a thread pool (see README, performance).

import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

import { projectRoot } from '../harness/config/load-config.ts';
import type { Bench } from './lib/measure.ts';

const CASES = 8000;

function runThreads(threads: number): Promise<{ ms: number; judged: number }> {
  const started = performance.now();
  const per = Math.ceil(CASES / threads);
  const workers = Array.from({ length: threads }, (_, i) =>
    new Promise<number>((resolve, reject) => {
      const worker = new Worker(new URL('./lib/fuzz-thread-entry.mjs', import.meta.url), {
        workerData: { seed: 1000 + i, cases: per, schemas: path.join(projectRoot(), 'schemas') },
      });
      worker.once('message', (judged: number) => resolve(judged));
      worker.once('error', reject);
    }),
  );
  return Promise.all(workers).then((counts) => ({ ms: performance.now() - started, judged: counts.reduce((a, b) => a + b, 0) }));
}

export const fuzzThreadsBench: Bench = {
  name: 'fuzz threads',
  async run(out) {
    const cores = os.availableParallelism();
    out.section(`in-process fuzzing on worker threads: 1 thread vs ${cores} (${CASES} cases each, generation included)`);
    await runThreads(1); // warm the tsx and validator caches
    const one = await runThreads(1);
    const many = await runThreads(cores);
    const rate = (r: { ms: number; judged: number }): number => (r.judged / r.ms) * 1000;
    out.line(`  1 thread:  ${Math.round(rate(one)).toLocaleString('en-US')} cases/s (${(one.ms / 1000).toFixed(2)} s)`);
    out.line(`  ${cores} threads: ${Math.round(rate(many)).toLocaleString('en-US')} cases/s (${(many.ms / 1000).toFixed(2)} s), ×${(rate(many) / rate(one)).toFixed(2)}`);
  },
};
