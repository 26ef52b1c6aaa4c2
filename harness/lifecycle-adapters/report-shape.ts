// The shape of a lifecycle adapter's report (LIFECYCLE-RULES §7.1 (2), (3)): an object whose
// `results` is an array of objects. Every family that runs through the lifecycle adapters reads its
// client's report with it before its own checks.

import { isJsonObject, type JsonObject } from '../protocol/json.ts';
import { describeValue } from '../protocol/json-text.ts';
import { LABEL } from './labels.ts';

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
