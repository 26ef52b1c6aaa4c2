// Assertions on one `<server>→<client> <transport>/<auth>` group of a child vitest run's JSON report:
// every row passes, every row fails with given needles, or exactly some rows fail (each with its own
// needles) while every other row passes.

import { expect } from 'vitest';

import { SELFTEST_SCENARIO_IDS } from './child-vitest-run.ts';
import { groupRows, type JsonAssertion } from './vitest-json-report.ts';

export type Needle = string | RegExp;

export type Expectation =
  | { kind: 'pass' }
  /** Every row fails, and every failure message contains (or matches) every needle. */
  | { kind: 'fail-all'; needles: Needle[] }
  /** Exactly `failing` fail (each containing its needles); every other row passes. */
  | { kind: 'fail-some'; failing: Record<string, Needle[]> };

export function expectGroup(
  run: { rows: JsonAssertion[]; output: string },
  group: string,
  expectation: Expectation,
  ids: readonly string[] = SELFTEST_SCENARIO_IDS,
): void {
  expect(run.rows.length, `the child wrote no JSON report rows; its output:\n${run.output.slice(-4000)}`).toBeGreaterThan(0);
  const rows = groupRows(run.rows, group);
  expect(rows.map((row) => row.title), `rows of ${group}`).toEqual([...ids]);
  for (const row of rows) {
    const message = row.failureMessages.join('\n');
    const failing =
      expectation.kind === 'fail-all' ? expectation.needles : expectation.kind === 'fail-some' ? expectation.failing[row.title] : undefined;
    if (failing === undefined) {
      expect(row.status, `${row.fullName} should pass; it failed with:\n${message}`).toBe('passed');
      continue;
    }
    expect(row.status, `${row.fullName} should fail`).toBe('failed');
    for (const needle of failing) {
      if (typeof needle === 'string') {
        expect(message, `${row.fullName}: the failure message should contain ${JSON.stringify(needle)}`).toContain(needle);
      } else {
        expect(message, `${row.fullName}: the failure message should match ${String(needle)}`).toMatch(needle);
      }
    }
  }
}
