import { isJsonObject, jsonEqual } from '../protocol/json.ts';
import { GUARDED_RESULT_KEYS } from './types.ts';

/** One way an actual result differs from what a scenario asserts. */
export interface ResultDifference {
  key: string;
  problem: 'mismatch' | 'missing' | 'unasserted';
  expected?: unknown;
  actual?: unknown;
}

/**
 * The seed's comparison rules for an accepted row: `expected` is partial at the top level, every
 * present key compares deeply and exactly (arrays by length and order, key order irrelevant, JSON
 * types strict, explicit null is an assertion), and a guarded key (`result`, `flow`, ...) that the
 * expectation omits must not be present in the actual result at all, whatever its value.
 */
export function compareExpected(expected: Record<string, unknown>, actual: unknown): ResultDifference[] {
  if (!isJsonObject(actual)) return [{ key: '(result)', problem: 'mismatch', expected, actual }];
  const differences: ResultDifference[] = [];
  for (const [key, value] of Object.entries(expected)) {
    if (!Object.prototype.hasOwnProperty.call(actual, key)) {
      differences.push({ key, problem: 'missing', expected: value });
    } else if (!jsonEqual(value, actual[key])) {
      differences.push({ key, problem: 'mismatch', expected: value, actual: actual[key] });
    }
  }
  for (const key of GUARDED_RESULT_KEYS) {
    if (!Object.prototype.hasOwnProperty.call(expected, key) && Object.prototype.hasOwnProperty.call(actual, key)) {
      differences.push({ key, problem: 'unasserted', actual: actual[key] });
    }
  }
  return differences;
}

/** Exact equality of whole results (used for `hostExpected`), reported key by key. */
export function compareExact(expected: Record<string, unknown>, actual: unknown): ResultDifference[] {
  if (!isJsonObject(actual)) return [{ key: '(result)', problem: 'mismatch', expected, actual }];
  const differences = compareExpected(expected, actual).filter((d) => d.problem !== 'unasserted');
  for (const key of Object.keys(actual)) {
    if (!Object.prototype.hasOwnProperty.call(expected, key)) {
      differences.push({ key, problem: 'unasserted', actual: actual[key] });
    }
  }
  return differences;
}

/** A readable, line-per-key rendering of differences for failure messages. */
export function formatDifferences(differences: ResultDifference[]): string {
  return differences
    .map((d) => {
      switch (d.problem) {
        case 'missing':
          return `  ${d.key}: expected ${render(d.expected)} but the key is missing`;
        case 'unasserted':
          return `  ${d.key}: not asserted by the scenario, yet present as ${render(d.actual)}`;
        default:
          return `  ${d.key}:\n    - expected ${render(d.expected)}\n    + actual   ${render(d.actual)}`;
      }
    })
    .join('\n');
}

function render(value: unknown): string {
  return value === undefined ? 'undefined' : JSON.stringify(value);
}
