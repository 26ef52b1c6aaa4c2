// The long campaign's in-process phase on every core (tinypool). Generating and judging fuzz cases
// in process is pure CPU, and a campaign judges hundreds of thousands of them: thread i fuzzes with
// seed `seed + i` its share of the batches, writing any counterexample itself, so one thread is
// exactly the single-threaded campaign and each thread's failure is reproduced by its own seed
// (AHP_FUZZ_SEED=<that seed> AHP_FUZZ_THREADS=1). Measured (bench/fuzz-threads.bench.ts): two threads
// judge ×1.25–1.5 the cases per second of one at 40 000 cases, and more as the campaign grows — each
// thread pays about a second to start (tsx and the validators), which is why the CI-sized in-process
// test does not use threads.

import Tinypool from 'tinypool';

import type { InProcessTask, InProcessSummary } from './in-process-thread-worker.ts';

export interface ThreadedInProcessOptions {
  seed: number;
  /** Batches over all threads. */
  numRuns: number;
  batchSize: number;
  threads: number;
  schemasDir: string;
  counterexampleDir: string;
  shrinkSeconds?: number;
  /** Batches between two progress lines of one thread. */
  progressEvery?: number;
  /** Self-tests only: see InProcessTask.applyModule. */
  applyModule?: string;
}

export interface ThreadedInProcessReport {
  ok: boolean;
  threads: InProcessSummary[];
  cases: number;
  /** Summed over threads: the cases judged per second of judging. */
  casesPerSecond: number;
  /** cases ÷ wall time of the phase. */
  endToEndCasesPerSecond: number;
  message: string;
}

const WORKER = new URL('./in-process-thread-entry.mjs', import.meta.url).href;

/** Thread i's batches: `numRuns` shared as evenly as possible, never a thread with none. */
export function threadShares(numRuns: number, threads: number): number[] {
  const count = Math.max(1, Math.min(threads, numRuns));
  return Array.from({ length: count }, (_, i) => Math.floor(numRuns / count) + (i < numRuns % count ? 1 : 0));
}

export async function fuzzInProcessOnThreads(options: ThreadedInProcessOptions): Promise<ThreadedInProcessReport> {
  const shares = threadShares(options.numRuns, options.threads);
  const pool = new Tinypool({ filename: WORKER, minThreads: shares.length, maxThreads: shares.length, isolateWorkers: false });
  const started = performance.now();
  try {
    const tasks = shares.map((numRuns, index): InProcessTask => ({
      index,
      seed: options.seed + index,
      numRuns,
      batchSize: options.batchSize,
      schemasDir: options.schemasDir,
      counterexampleDir: options.counterexampleDir,
      ...(options.shrinkSeconds === undefined ? {} : { shrinkSeconds: options.shrinkSeconds }),
      progressEvery: options.progressEvery ?? Math.max(1, Math.floor(numRuns / 10)),
      ...(options.applyModule === undefined ? {} : { applyModule: options.applyModule }),
    }));
    const threads = (await Promise.all(tasks.map((task) => pool.run(task) as Promise<InProcessSummary>))).sort((a, b) => a.index - b.index);
    const cases = threads.reduce((sum, thread) => sum + thread.cases, 0);
    const wallMs = performance.now() - started;
    return {
      ok: threads.every((thread) => thread.ok),
      threads,
      cases,
      casesPerSecond: threads.reduce((sum, thread) => sum + thread.casesPerSecond, 0),
      endToEndCasesPerSecond: (cases / wallMs) * 1000,
      message: threads.map((thread) => `[thread ${thread.index}, AHP_FUZZ_SEED=${thread.seed}] ${thread.message}`).join('\n'),
    };
  } finally {
    await pool.destroy();
  }
}
