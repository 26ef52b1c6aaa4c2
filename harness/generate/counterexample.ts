// Turns a generated (request, response) pair into a row of the central scenario format, so that a
// failing property prints something that can be pasted straight into a scenario file, and recovers
// such rows from a failure message (used by the self-test that proves the printing works).

import type { JsonValue } from '../protocol/json.ts';
import type { InterceptRequest } from '../protocol/messages.ts';
import type { ApplicationResult, Verdict } from '../oracle/types.ts';

/** A row of `{version:1, scenarios:[...]}`: exactly one of `expected` / `expectError`. */
export interface ScenarioRow {
  id: string;
  request: InterceptRequest;
  response: JsonValue;
  expected?: ApplicationResult;
  expectError?: true;
  tags?: string[];
}

const ROW_START = '--- scenario row (paste into a scenario file; expected/expectError is the oracle verdict) ---';
const ROW_END = '--- end scenario row ---';

/**
 * The scenario row for one case. `expected`/`expectError` is what the oracle concluded, so a row
 * printed by a failing property documents the disputed verdict; edit it to the correct
 * expectation before committing it. Negative rows carry the seed's tag for the rejecting layer.
 */
export function toScenarioRow(request: InterceptRequest, response: unknown, verdict: Verdict): ScenarioRow {
  const row: ScenarioRow = {
    id: String(request.id),
    request: JSON.parse(JSON.stringify(request)) as InterceptRequest,
    response: JSON.parse(JSON.stringify(response ?? null)) as JsonValue,
  };
  if (verdict.accepted) row.expected = JSON.parse(JSON.stringify(verdict.result)) as ApplicationResult;
  else {
    row.expectError = true;
    row.tags = [`${verdict.layer}-invalid`];
  }
  return row;
}

/** The row as one JSON line between markers, so it is easy to find in any runner's output. */
export function formatScenarioRow(row: ScenarioRow): string {
  return `${ROW_START}\n${JSON.stringify(row)}\n${ROW_END}`;
}

/** Every scenario row printed by `formatScenarioRow` inside `text` (e.g. a fast-check report). */
export function parseScenarioRows(text: string): ScenarioRow[] {
  const rows: ScenarioRow[] = [];
  let from = 0;
  for (;;) {
    const start = text.indexOf(ROW_START, from);
    if (start < 0) return rows;
    const bodyStart = start + ROW_START.length;
    const end = text.indexOf(ROW_END, bodyStart);
    if (end < 0) return rows;
    rows.push(JSON.parse(text.slice(bodyStart, end).trim()) as ScenarioRow);
    from = end + ROW_END.length;
  }
}

/** A property failure that carries the scenario row of its case. */
export class CounterexampleError extends Error {
  override readonly name = 'CounterexampleError';
  constructor(
    readonly row: ScenarioRow,
    readonly failure: unknown,
  ) {
    const reason = failure instanceof Error ? failure.message : String(failure);
    super(`${reason}\n${formatScenarioRow(row)}`, { cause: failure });
  }
}

/**
 * Runs `check` (the assertions of one property case). If it throws, rethrows a CounterexampleError
 * whose message holds the original failure and the scenario row; fast-check reports the error of
 * the shrunk case, so the printed row is the minimal counterexample.
 */
export function withScenarioRow(request: InterceptRequest, response: unknown, verdict: Verdict, check: () => void): void {
  try {
    check();
  } catch (failure) {
    throw new CounterexampleError(toScenarioRow(request, response, verdict), failure);
  }
}
