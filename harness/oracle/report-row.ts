// What an honest client reports for one scenario row, given the oracle's verdict on the response it
// received: the reference client's report rows and the in-process fuzz target's are the same thing,
// so both take them from here (the harness never imports from an adapter). This only decides
// pass/fail against `expected` / `expectError`; `evaluate` is the application step.
// Error strings are short fixed labels plus scenario keys: never response bodies or endpoints.

import type { Verdict } from './types.ts';
import type { JsonValue } from '../protocol/json.ts';
import type { Scenario } from '../scenarios/types.ts';
import { compareExpected } from './compare-result.ts';

export type RowStatus = 'passed' | 'failed' | 'unsupported' | 'inapplicable';

export interface ReportRow {
  id: string;
  status: RowStatus;
  actual: JsonValue | null;
  error?: string;
}

export interface Report {
  language: string;
  results: ReportRow[];
}

/** A row whose response was acquired and run through the oracle. */
export function judgeVerdict(scenario: Scenario, verdict: Verdict): ReportRow {
  if (!verdict.accepted) {
    const actual = { rejected: true };
    return scenario.expectError === true
      ? { id: scenario.id, status: 'passed', actual }
      : { id: scenario.id, status: 'failed', actual, error: `response rejected at the ${verdict.layer} layer, but the scenario expects it to be applied` };
  }
  const actual = verdict.result as unknown as JsonValue;
  if (scenario.expectError === true) {
    return { id: scenario.id, status: 'failed', actual, error: 'response was accepted, but the scenario expects a rejection' };
  }
  const differences = compareExpected(scenario.expected ?? {}, actual);
  if (differences.length === 0) return { id: scenario.id, status: 'passed', actual };
  const keys = [...new Set(differences.map((d) => d.key))].join(', ');
  return { id: scenario.id, status: 'failed', actual, error: `result differs from expected at: ${keys}` };
}

/** A row that never reached the oracle (transport failure, timeout, failed discovery, spawn failure). */
export function failedRow(scenario: Pick<Scenario, 'id'>, error: string): ReportRow {
  return { id: scenario.id, status: 'failed', actual: null, error };
}

export function isApplicableFailure(row: ReportRow): boolean {
  return row.status === 'failed';
}
