// Differential fuzzing through the configured adapters: every configured pairing × transport (auth
// `none`) runs batches of generated scenarios — one client run per batch and target — and must agree
// with the oracle on every case. A disagreement is shrunk against the same pairing and written to
// fixtures/counterexamples/ (or AHP_COUNTEREXAMPLE_DIR); the failure message has the seed, the file,
// a replay command and the minimal diff.
//
// CI budget: the fixed seed, 8 batches × 100 cases per target (about a minute for the reference
// adapter over http and stdio). AHP_FUZZ_SEED, AHP_FUZZ_RUNS (batches) and AHP_FUZZ_BATCH (cases per
// batch) override it; `npm run fuzz` runs a long campaign.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { stopAll } from '../../harness/adapters/supervise.ts';
import { loadConfig } from '../../harness/config/load-config.ts';
import { counterexampleDir } from '../../harness/fuzz/counterexample-file.ts';
import { differentialFuzz } from '../../harness/fuzz/differential.ts';
import { fuzzBudget } from '../../harness/fuzz/parameters.ts';
import { configuredTargets } from '../../harness/fuzz/targets.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';

const config = await loadConfig();
const validators = loadValidators(config.schemas);
const workDir = mkdtempSync(path.join(os.tmpdir(), 'ahp-fuzz-'));
const targets = configuredTargets(config, { workDir });
const budget = fuzzBudget({ runs: 8, batchSize: 100 });

afterAll(async () => {
  await stopAll(1000);
  rmSync(workDir, { recursive: true, force: true });
});

describe('differential fuzzing through adapter processes', () => {
  test(`${budget.numRuns} batches × ${budget.batchSize} cases: ${targets.map((t) => t.label).join(', ')}`, async () => {
    const report = await differentialFuzz({
      targets,
      validators,
      ...budget,
      counterexampleDir: counterexampleDir(),
      parallelism: config.parallelism,
    });
    console.log(report.message);
    expect(report.ok, report.message).toBe(true);
  });
});
