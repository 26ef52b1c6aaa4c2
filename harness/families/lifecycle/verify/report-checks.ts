// The client's report (LIFECYCLE-RULES §6, §7.1 (2)–(6) and the result checks of §7.8): its shape,
// exactly one result per selected row, no status but a pass, and `actual` strictly equal to
// `expected`. The client's `status` can only fail a row here, never pass one.

import { isJsonObject, jsonEqual, type JsonObject } from '../../../protocol/json.ts';
import { describeValue } from '../../../protocol/json-text.ts';
import { jsonDiff } from '../../../protocol/json-diff.ts';
import type { LifecycleScenario } from '../scenario-types.ts';
import type { Findings } from './findings.ts';
import { LABEL, chainMismatchLabel, localMismatchLabel } from './labels.ts';

/** A result object and its position in `report.results`. */
export interface IndexedResult {
  index: number;
  result: JsonObject;
}

export type ReportShape =
  | { ok: true; report: JsonObject; results: IndexedResult[] }
  | { ok: false; label: string; message: string };

/**
 * The report when it is an object whose `results` is an array of objects; otherwise the §7.1 label
 * it fails with ((2) wrong type, (3) malformed results). The language is checked separately. The
 * catalogue verifier reads its report with this too (its runner has the same two labels); `list`
 * is how each family's messages name the array `results` should be.
 */
export function readReportShape(report: unknown, list: 'an array' | 'a list' = 'an array'): ReportShape {
  if (report === undefined) return { ok: false, label: LABEL.wrongReport, message: 'the client left no readable report' };
  if (!isJsonObject(report)) return { ok: false, label: LABEL.wrongReport, message: `the report is ${describeValue(report)}, expected an object` };
  if (!Array.isArray(report.results)) return { ok: false, label: LABEL.malformedResults, message: `report.results is ${describeValue(report.results)}, expected ${list}` };
  const results: IndexedResult[] = [];
  for (const [index, result] of report.results.entries()) {
    if (!isJsonObject(result)) return { ok: false, label: LABEL.malformedResults, message: `report.results[${index}] is ${describeValue(result)}, expected an object` };
    results.push({ index, result });
  }
  return { ok: true, report, results };
}

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
