// Assertions on one `<server>→<client> <transport>/<auth>` group of a child lifecycle-family run
// (lifecycle, catalogue): exactly the given rows fail, each with exactly its recorded labels (the
// row's `errors` in the matrix meta) and with every label and needle in its failure message, and
// every other row passes.

import { expect } from 'vitest';

import type { ChildRun } from './child-vitest-run.ts';
import { groupRows } from './vitest-json-report.ts';

/** What one failing row must show: exactly these labels, each as `[label]` in its message, plus the needles. */
export interface Failing {
  labels: string[];
  needles?: string[];
}

/**
 * The rows of `group` are exactly `ids`; those in `failing` fail with exactly their labels (the row's
 * recorded `errors`) and messages, and every other row passes.
 */
export function expectRows(run: ChildRun, group: string, ids: readonly string[], failing: Record<string, Failing>): void {
  expect(run.rows.length, `the child wrote no JSON report rows; its output:\n${run.output.slice(-4000)}`).toBeGreaterThan(0);
  const rows = groupRows(run.rows, group);
  expect(rows.map((row) => row.title), `rows of ${group}`).toEqual([...ids]);
  for (const row of rows) {
    const message = row.failureMessages.join('\n');
    const expected = failing[row.title];
    if (expected === undefined) {
      expect(row.status, `${row.fullName} should pass; it failed with:\n${message}`).toBe('passed');
      continue;
    }
    expect(row.status, `${row.fullName} should fail`).toBe('failed');
    expect(new Set(row.meta?.ahpMatrix?.errors ?? []), `${row.fullName}: its labels; the message:\n${message}`).toEqual(new Set(expected.labels));
    for (const needle of [...expected.labels.map((label) => `[${label}]`), ...(expected.needles ?? [])]) {
      expect(message, `${row.fullName}: the failure message should contain ${JSON.stringify(needle)}`).toContain(needle);
    }
  }
}

/** Every row of `ids` failing the same way. */
export function allRows(ids: readonly string[], failing: Failing): Record<string, Failing> {
  return Object.fromEntries(ids.map((id) => [id, failing]));
}
