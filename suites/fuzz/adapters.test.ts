// Differential fuzzing through the configured adapters: every configured pairing × transport (auth
// `none`) runs batches of generated scenarios — one client run per batch and target — and must agree
// with the oracle on every case. Pairings of the embedded reference adapter are fuzzed unconstrained
// (profile `wide`); any other adapter inside the host envelope its discovery advertises (profile
// `host`; AHP_FUZZ_PROFILE overrides). Failures are triaged — adapter refused the batch, host
// limitation, semantic disagreement — and what each leaves behind goes to fixtures/counterexamples/
// (or AHP_COUNTEREXAMPLE_DIR); the message has the class first, the seed, the files and a replay command.
//
// CI budget: the fixed seed, 8 batches × 100 cases per target (about half a minute for the reference
// adapter over http and stdio). AHP_FUZZ_SEED, AHP_FUZZ_RUNS (batches), AHP_FUZZ_BATCH (cases per
// batch) and AHP_FUZZ_SHRINK_SECONDS override it; `npm run fuzz` runs a long campaign.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { stopAll } from '../../harness/adapters/supervise.ts';
import { loadConfig } from '../../harness/config/load-config.ts';
import { counterexampleDir } from '../../harness/fuzz/counterexample-file.ts';
import { configuredTargetLabels, fuzzConfiguredAdapters } from '../../harness/fuzz/fuzz-configured.ts';
import { fuzzBudget } from '../../harness/fuzz/parameters.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';

const config = await loadConfig();
const validators = loadValidators(config.schemas);
const workDir = mkdtempSync(path.join(os.tmpdir(), 'ahp-fuzz-'));
const budget = fuzzBudget({ runs: 8, batchSize: 100 });

afterAll(async () => {
  await stopAll(1000);
  rmSync(workDir, { recursive: true, force: true });
});

describe('differential fuzzing through adapter processes', () => {
  test(`${budget.numRuns} batches × ${budget.batchSize} cases: ${configuredTargetLabels(config).join(', ')}`, async () => {
    const run = await fuzzConfiguredAdapters(config, validators, budget, {
      workDir,
      counterexampleDir: counterexampleDir(),
      progress: (line) => console.log(line),
    });
    console.log(run.message);
    expect(run.ok, run.message).toBe(true);
  });
});
