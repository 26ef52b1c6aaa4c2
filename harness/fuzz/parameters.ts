// Budgets of the fuzz runs. The seed comes from AHP_FUZZ_SEED (default: the suite's fixed seed), the
// number of batches from AHP_FUZZ_RUNS and the cases per batch from AHP_FUZZ_BATCH; each caller
// (CI test, in-process pre-check, long campaign) has its own defaults for the latter two.

import { fuzzParameters } from '../generate/arbitraries.ts';

export interface FuzzBudget {
  seed: number;
  /** Batches (fast-check runs). */
  numRuns: number;
  /** Cases per batch. */
  batchSize: number;
}

export function fuzzBudget(defaults: { runs: number; batchSize: number }, env: NodeJS.ProcessEnv = process.env): FuzzBudget {
  const { seed, numRuns } = fuzzParameters(env); // validates both variables
  const runsSet = (env.AHP_FUZZ_RUNS?.trim() ?? '') !== '';
  const batchText = env.AHP_FUZZ_BATCH?.trim();
  const batchSize = batchText ? Number(batchText) : defaults.batchSize;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
    throw new Error(`AHP_FUZZ_BATCH: expected a positive integer, got ${JSON.stringify(batchText)}`);
  }
  return { seed, numRuns: runsSet ? numRuns : defaults.runs, batchSize };
}
