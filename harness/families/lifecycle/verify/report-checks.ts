// The client's report (LIFECYCLE-RULES §6, §7.1 (2)–(6) and the result checks of §7.8): its shape,
// exactly one result per selected row, no status but a pass, and `actual` strictly equal to
// `expected`. The client's `status` can only fail a row here, never pass one.

import { isJsonObject, jsonEqual, type JsonObject } from '../../../protocol/json.ts';
import { describeValue } from '../../../protocol/json-text.ts';
import { jsonDiff } from '../../../protocol/json-diff.ts';
import type { LifecycleScenario } from '../../../lifecycle-adapters/scenario-types.ts';
import type { Findings } from '../../../lifecycle-adapters/findings.ts';
import { LABEL, chainMismatchLabel, localMismatchLabel } from '../../../lifecycle-adapters/labels.ts';
import type { IndexedResult } from '../../../lifecycle-adapters/report-shape.ts';

export interface ResultLabels {
  multiplicity: string;
  notAPass: string;
  mismatch: (scenarioId: string) => string;
}

export const STEP_RESULT_LABELS: ResultLabels = {
  multiplicity: LABEL.resultIds,
  notAPass: LABEL.notAPass,
  mismatch: localMismatchLabel,
};

export const CHAIN_RESULT_LABELS: ResultLabels = {
  multiplicity: LABEL.chainResultMultiplicity,
  notAPass: LABEL.chainNotAPass,
  mismatch: chainMismatchLabel,
};

/**
 * (4) the result ids are the rows' ids, each exactly once — a missing or repeated id is that row's
 * fault, an id of no selected row is the run's; (5) a `status` other than `"passed"` (absent counts
 * as passed) fails its row; (6) `actual` must equal `expected` strictly.
 */
export function checkResults(rows: readonly LifecycleScenario[], results: readonly IndexedResult[], findings: Findings, labels: ResultLabels): void {
  const byId = new Map<string, IndexedResult[]>();
  for (const row of rows) byId.set(row.id, []);
  for (const indexed of results) {
    const id = indexed.result.id;
    const list = typeof id === 'string' ? byId.get(id) : undefined;
    if (list === undefined) {
      findings.run(labels.multiplicity, 'client', `report.results[${indexed.index}] has id ${describeValue(id)}, which is not a selected scenario`);
      continue;
    }
    list.push(indexed);
  }
  for (const row of rows) {
    const own = byId.get(row.id) ?? [];
    if (own.length !== 1) {
      const where = own.map((r) => `results[${r.index}]`).join(', ');
      findings.row(row.id, labels.multiplicity, 'client', own.length === 0 ? 'the report has no result for this scenario' : `the report has ${own.length} results for this scenario (${where})`);
    }
    for (const { index, result } of own) {
      if (result.status !== undefined && result.status !== 'passed') {
        findings.row(row.id, labels.notAPass, 'client', `results[${index}].status is ${describeValue(result.status)}; only "passed" (or no status) is a pass`);
      }
      if (!jsonEqual(result.actual, row.expected)) {
        findings.row(row.id, labels.mismatch(row.id), 'client', `results[${index}].actual differs from expected: ${jsonDiff(row.expected, result.actual).join('; ')}`);
      }
    }
  }
}
