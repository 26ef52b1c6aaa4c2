// Differential-fuzzing throughput: cases per second judged in process (the reference client's apply
// step and row logic, no processes) and batched through each configured pairing × transport (one
// client run per batch), with the ratio between them. Generation of the cases is reported apart.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { stopAll } from '../harness/adapters/supervise.ts';
import { loadConfig } from '../harness/config/load-config.ts';
import { differentialFuzz, type DifferentialFuzzReport } from '../harness/fuzz/differential.ts';
import { configuredTargets, inProcessTarget } from '../harness/fuzz/targets.ts';
import { evaluate } from '../harness/oracle/evaluate.ts';
import { loadValidators } from '../harness/protocol/load-validators.ts';
import type { Bench, BenchOutput } from './lib/measure.ts';

const SEED = 20_240_601;

function line(out: BenchOutput, label: string, report: DifferentialFuzzReport): void {
  out.line(
    `  ${label.padEnd(44)} ${Math.round(report.casesPerSecond).toLocaleString('en-US').padStart(9)} cases/s judged  ` +
      `${Math.round(report.endToEndCasesPerSecond).toLocaleString('en-US').padStart(7)} cases/s with generation  (n=${report.cases})`,
  );
}

export const fuzzBench: Bench = {
  name: 'fuzz',
  async run(out) {
    out.section('differential fuzzing: cases per second, in process vs batched through adapter processes');
    const config = await loadConfig();
    const validators = loadValidators(config.schemas);
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'ahp-fuzz-bench-'));
    try {
      const common = { validators, seed: SEED, counterexampleDir: path.join(scratch, 'counterexamples') };
      const inProcess = await differentialFuzz({ ...common, targets: [inProcessTarget({ apply: evaluate, validators })], numRuns: 50, batchSize: 100 });
      line(out, 'in process (reference apply step)', inProcess);
      for (const target of configuredTargets(config, { workDir: path.join(scratch, 'runs') })) {
        const report = await differentialFuzz({ ...common, targets: [target], numRuns: 3, batchSize: 200 });
        line(out, `${target.label} (batches of 200)`, report);
        if (report.casesPerSecond > 0) {
          out.line(`  ratio in process vs ${target.label}: ${(inProcess.casesPerSecond / report.casesPerSecond).toFixed(0)}× faster`);
        }
        if (!report.ok) out.line(`  (disagreement found: ${report.message.split('\n')[0]})`);
      }
    } finally {
      await stopAll(1000);
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};
