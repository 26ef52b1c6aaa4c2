// The catalogue client's report (CATALOGUE-RULES §5, §6 (2)–(5)): its type and language, a list of
// result objects, exactly one result per row, and per row — judging the last result with its id, or
// `{}` when there is none — no status but a pass and `actual` exactly `expected` without `deliveries`.
// The client's `status` can only fail a row here, never pass one.

import { expectedActual, type CatalogueScenario } from '../scenario-types.ts';
import { isJsonObject, jsonEqual, type JsonObject } from '../../../protocol/json.ts';
import { jsonDiff } from '../../../protocol/json-diff.ts';
import { describeValue } from '../../../protocol/json-text.ts';
import type { Findings } from '../../../lifecycle-adapters/findings.ts';
import { readReportShape } from '../../../lifecycle-adapters/report-shape.ts';
import { CATALOGUE_LABEL, notPassedLabel, resultMismatchLabel } from './labels.ts';

/**
 * (2) and (3): the report when it is an object in the client's language whose `results` is a list of
 * objects; otherwise the failure is recorded and the verification stops (undefined). The shape is
 * the lifecycle verifier's reading (same labels); the language comes first, as in §6.
 */
export function readCatalogueReport(report: unknown, clientLanguage: string, findings: Findings): { report: JsonObject; results: JsonObject[] } | undefined {
  if (isJsonObject(report) && report.language !== clientLanguage) {
    findings.run(CATALOGUE_LABEL.wrongReport, 'client', `report.language is ${describeValue(report.language)}, expected ${JSON.stringify(clientLanguage)}`);
    return undefined;
  }
  const shape = readReportShape(report, 'a list');
  if (!shape.ok) {
    findings.run(shape.label, 'client', shape.message);
    return undefined;
  }
  return { report: shape.report, results: shape.results.map(({ result }) => result) };
}

/** (4) and (5). */
export function checkCatalogueResults(rows: readonly CatalogueScenario[], results: readonly JsonObject[], findings: Findings): void {
  const positions = new Map<string, number[]>(rows.map((row) => [row.id, []]));
  results.forEach((result, index) => {
    const list = typeof result.id === 'string' ? positions.get(result.id) : undefined;
    if (list === undefined) findings.run(CATALOGUE_LABEL.resultIds, 'client', `report.results[${index}] has id ${describeValue(result.id)}, which is not a row of this run`);
    else list.push(index);
  });
  for (const row of rows) {
    const own = positions.get(row.id) ?? [];
    if (own.length !== 1) {
      const where = own.map((i) => `results[${i}]`).join(', ');
      findings.row(row.id, CATALOGUE_LABEL.resultIds, 'client', own.length === 0 ? 'the report has no result for this row' : `the report has ${own.length} results for this row (${where}); the last one is judged`);
    }
    const last = own.at(-1);
    const result: JsonObject = last === undefined ? {} : results[last]!;
    const at = last === undefined ? 'the missing result' : `results[${last}]`;
    const status = result.status === undefined ? 'passed' : result.status;
    if (status !== 'passed') findings.row(row.id, notPassedLabel(row.id), 'client', `${at}.status is ${describeValue(status)}; only "passed" (or no status) is a pass`);
    const wanted = expectedActual(row.expected);
    if (!jsonEqual(result.actual, wanted)) {
      findings.row(row.id, resultMismatchLabel(row.id), 'client', `${at}.actual differs from expected without deliveries: ${jsonDiff(wanted, result.actual).join('; ')}`);
    }
  }
}
