// `npm run fuzz`: a long differential-fuzzing campaign. First the in-process pre-check (the
// reference client's apply step, no processes), then batches through every configured pairing ×
// transport (auth none), each in its profile (reference pairings wide, any other adapter inside its
// discovered host envelope; AHP_FUZZ_PROFILE overrides). Prints progress (at least every 10 s) and
// cases per second; counterexamples and evidence go to fixtures/counterexamples/ (kept out of git)
// unless AHP_COUNTEREXAMPLE_DIR says otherwise.
//
//   npm run fuzz [-- --in-process-only | --processes-only]
//   AHP_FUZZ_SEED=<n> AHP_FUZZ_RUNS=<batches> AHP_FUZZ_BATCH=<cases per batch> npm run fuzz
//   AHP_FUZZ_SHRINK_SECONDS=<cap> AHP_FUZZ_PROFILE=host|wide AHP_FUZZ_THREADS=<n> npm run fuzz
//
// Defaults: a random seed (printed, so any failure can be reproduced), 100 batches × 200 cases
// through processes and 20× as many batches in process, spread over one thread per core (thread i
// uses seed + i; in-process-threads.ts). Exit code 1 when anything disagrees.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { stopAll } from '../adapters/supervise.ts';
import { loadConfig } from '../config/load-config.ts';
import { loadValidators } from '../protocol/load-validators.ts';
import { counterexampleDir } from './counterexample-file.ts';
import type { DifferentialFuzzReport } from './differential.ts';
import { fuzzBudget, fuzzThreads } from './parameters.ts';
import { configuredTargetLabels, fuzzConfiguredAdapters } from './fuzz-configured.ts';
import { fuzzInProcessOnThreads } from './in-process-threads.ts';

const args = new Set(process.argv.slice(2));
const unknown = [...args].filter((arg) => arg !== '--in-process-only' && arg !== '--processes-only');
if (unknown.length > 0 || (args.has('--in-process-only') && args.has('--processes-only'))) {
  console.error(`usage: npm run fuzz [-- --in-process-only | --processes-only] (got ${process.argv.slice(2).join(' ')})`);
  process.exit(2);
}

const env = { ...process.env };
// A campaign explores: a fresh seed unless one is given (printed either way).
if (!env.AHP_FUZZ_SEED?.trim()) env.AHP_FUZZ_SEED = String(Math.floor(Math.random() * 0x7fff_ffff));
const budget = fuzzBudget({ runs: 100, batchSize: 200 }, env);
const config = await loadConfig();
const validators = loadValidators(config.schemas);
const dir = counterexampleDir(env);
const reports: DifferentialFuzzReport[] = [];
let inProcess: { ok: boolean; label: string; casesPerSecond: number; endToEnd: number; cases: number } | undefined;

console.log(`ahp-conformance fuzz campaign — seed ${budget.seed} (AHP_FUZZ_SEED=${budget.seed}); counterexamples → ${dir}`);

if (!args.has('--processes-only')) {
  const runs = budget.numRuns * 20;
  const threads = fuzzThreads(env, os.availableParallelism());
  console.log(`\n## in process: ${runs} batches × ${budget.batchSize} cases against the reference client's apply step, on ${threads} thread(s)`);
  const report = await fuzzInProcessOnThreads({
    seed: budget.seed,
    numRuns: runs,
    batchSize: budget.batchSize,
    threads,
    schemasDir: config.schemas,
    counterexampleDir: dir,
    ...(budget.shrinkSeconds === undefined ? {} : { shrinkSeconds: budget.shrinkSeconds }),
  });
  console.log(report.message);
  inProcess = { ok: report.ok, label: `reference in-process (${report.threads.length} thread(s))`, casesPerSecond: report.casesPerSecond, endToEnd: report.endToEndCasesPerSecond, cases: report.cases };
}

let processesOk = true;
if (!args.has('--in-process-only') && (inProcess?.ok ?? true)) {
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'ahp-fuzz-campaign-'));
  try {
    console.log(`\n## through processes: ${budget.numRuns} batches × ${budget.batchSize} cases × ${configuredTargetLabels(config).join(', ')}`);
    // Everything a failure message names is copied to the counterexample folder: the work dir can go.
    const run = await fuzzConfiguredAdapters(config, validators, budget, { workDir, counterexampleDir: dir, env, progress: (line) => console.log(line) });
    console.log(run.message);
    reports.push(...run.reports);
    processesOk = run.ok;
  } finally {
    await stopAll(1000);
    rmSync(workDir, { recursive: true, force: true });
  }
}

console.log('\n## cases per second');
const rows = [
  ...(inProcess ? [inProcess] : []),
  ...reports.map((report) => ({ label: report.targets.join(', '), casesPerSecond: report.casesPerSecond, endToEnd: report.endToEndCasesPerSecond, cases: report.cases })),
];
for (const row of rows) {
  console.log(
    `  ${row.label.padEnd(70)} ${Math.round(row.casesPerSecond).toLocaleString('en-US').padStart(9)} cases/s judged, ` +
      `${Math.round(row.endToEnd).toLocaleString('en-US').padStart(7)} cases/s end to end (${row.cases} cases)`,
  );
}
process.exit(processesOk && (inProcess?.ok ?? true) && reports.every((r) => r.ok) ? 0 : 1);
