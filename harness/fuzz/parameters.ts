// Budgets of the fuzz runs. The seed comes from AHP_FUZZ_SEED (default: the suite's fixed seed), the
// number of batches from AHP_FUZZ_RUNS and the cases per batch from AHP_FUZZ_BATCH; each caller
// (CI test, in-process pre-check, long campaign) has its own defaults for the latter two.
// AHP_FUZZ_SHRINK_SECONDS caps the time spent shrinking one failure (unset: only the round limit),
// and AHP_FUZZ_PROFILE forces the generation profile (`host` or `wide`) for every pairing.

import { fuzzParameters } from '../generate/arbitraries.ts';

export interface FuzzBudget {
  seed: number;
  /** Batches (fast-check runs). */
  numRuns: number;
  /** Cases per batch. */
  batchSize: number;
  /** Cap on the time spent shrinking one failure, in seconds; undefined: no cap but the round limit. */
  shrinkSeconds?: number;
}

export type ProfileName = 'host' | 'wide';

export function fuzzBudget(defaults: { runs: number; batchSize: number }, env: NodeJS.ProcessEnv = process.env): FuzzBudget {
  const { seed, numRuns } = fuzzParameters(env); // validates both variables
  const runsSet = (env.AHP_FUZZ_RUNS?.trim() ?? '') !== '';
  const batchText = env.AHP_FUZZ_BATCH?.trim();
  const batchSize = batchText ? Number(batchText) : defaults.batchSize;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
    throw new Error(`AHP_FUZZ_BATCH: expected a positive integer, got ${JSON.stringify(batchText)}`);
  }
  const shrinkText = env.AHP_FUZZ_SHRINK_SECONDS?.trim();
  const shrinkSeconds = shrinkText ? Number(shrinkText) : undefined;
  if (shrinkSeconds !== undefined && !(Number.isFinite(shrinkSeconds) && shrinkSeconds >= 0)) {
    throw new Error(`AHP_FUZZ_SHRINK_SECONDS: expected a non-negative number of seconds, got ${JSON.stringify(shrinkText)}`);
  }
  return { seed, numRuns: runsSet ? numRuns : defaults.runs, batchSize, ...(shrinkSeconds === undefined ? {} : { shrinkSeconds }) };
}

/** AHP_FUZZ_PROFILE: `host` or `wide` for every pairing; undefined (unset) lets each pairing choose. */
export function profileOverride(env: NodeJS.ProcessEnv = process.env): ProfileName | undefined {
  const text = env.AHP_FUZZ_PROFILE?.trim();
  if (!text) return undefined;
  if (text === 'host' || text === 'wide') return text;
  throw new Error(`AHP_FUZZ_PROFILE: expected "host" (requests inside each adapter's discovered host envelope) or "wide" (unconstrained requests), got ${JSON.stringify(text)}`);
}

/** AHP_FUZZ_THREADS: worker threads for the campaign's in-process phase; default one per core. */
export function fuzzThreads(env: NodeJS.ProcessEnv = process.env, cores: number): number {
  const text = env.AHP_FUZZ_THREADS?.trim();
  if (!text) return Math.max(1, cores);
  const threads = Number(text);
  if (!Number.isSafeInteger(threads) || threads < 1) throw new Error(`AHP_FUZZ_THREADS: expected a positive integer, got ${JSON.stringify(text)}`);
  return threads;
}
