// One thread of the campaign's in-process phase (in-process-threads.ts): its own seed and share of
// the batches against the reference client's apply step, counterexamples written here; only a plain
// summary goes back to the main thread.

import { evaluate } from '../oracle/evaluate.ts';
import { loadValidators } from '../protocol/load-validators.ts';
import { differentialFuzz } from './differential.ts';
import { inProcessTarget } from './targets.ts';

export interface InProcessTask {
  index: number;
  seed: number;
  numRuns: number;
  batchSize: number;
  schemasDir: string;
  counterexampleDir: string;
  shrinkSeconds?: number;
  progressEvery: number;
  /**
   * A module URL whose `apply` replaces the reference apply step (the oracle): the self-tests give a
   * deliberately wrong one to prove that a thread's disagreement reaches the report.
   */
  applyModule?: string;
}

export interface InProcessSummary {
  index: number;
  seed: number;
  ok: boolean;
  batches: number;
  cases: number;
  casesPerSecond: number;
  endToEndCasesPerSecond: number;
  message: string;
}

export default async function fuzzOneThread(task: InProcessTask): Promise<InProcessSummary> {
  const validators = loadValidators(task.schemasDir);
  const apply = task.applyModule === undefined ? evaluate : ((await import(task.applyModule)) as { apply: typeof evaluate }).apply;
  const report = await differentialFuzz({
    targets: [inProcessTarget({ apply, validators })],
    validators,
    seed: task.seed,
    numRuns: task.numRuns,
    batchSize: task.batchSize,
    counterexampleDir: task.counterexampleDir,
    ...(task.shrinkSeconds === undefined ? {} : { shrinkSeconds: task.shrinkSeconds }),
    // Ids stay unique across threads: their counterexample files share one folder.
    idPrefix: `ip${task.index}`,
    onBatch: (p) => {
      if (p.batch % task.progressEvery === 0) console.log(`  [thread ${task.index}] batch ${p.batch}/${task.numRuns}: ${p.cases} cases`);
    },
  });
  return {
    index: task.index,
    seed: task.seed,
    ok: report.ok,
    batches: report.batches,
    cases: report.cases,
    casesPerSecond: report.casesPerSecond,
    endToEndCasesPerSecond: report.endToEndCasesPerSecond,
    message: report.message,
  };
}
