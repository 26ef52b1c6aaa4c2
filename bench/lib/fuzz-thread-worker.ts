// One worker thread of the fuzz-threads bench: generates `cases` fuzz cases from its own seed and
// judges each with the oracle and the reference row logic (what the in-process fuzz target does), then
// reports how many it judged.
import { parentPort, workerData } from 'node:worker_threads';

import fc from 'fast-check';

import { fuzzCase } from '../../harness/fuzz/case-arbitrary.ts';
import { fuzzScenario } from '../../harness/fuzz/scenario-rows.ts';
import { evaluate } from '../../harness/oracle/evaluate.ts';
import { judgeVerdict } from '../../harness/oracle/report-row.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';

const { seed, cases, schemas } = workerData as { seed: number; cases: number; schemas: string };
const validators = loadValidators(schemas);
let judged = 0;
for (const [index, fuzz] of fc.sample(fuzzCase(), { seed, numRuns: cases }).entries()) {
  const row = fuzzScenario(fuzz, `t-${seed}-${index}`, validators);
  if (judgeVerdict(row, evaluate(row.request, row.response, validators)).id === row.id) judged++;
}
parentPort!.postMessage(judged);
