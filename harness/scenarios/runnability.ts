// Runnability: whether a row of a step-script family (lifecycle, catalogue) can be run by a client
// that follows the family's rules and nothing else. A well-formed row can still be unrunnable: a
// catalogue notification without an event id leaves the client nothing to `/wait-observed` on, a
// lifecycle `wait` for an attempt never sent blocks until the watchdog. A real SDK client stops at
// such a row (and takes the whole run's report with it), so it would charge the adapter for a fault
// of the fixture.
//
// Each family lints its own rows (lifecycle-runnability.ts, catalogue-runnability.ts) against rules
// named after the section of the rules document they come from. Two consumers:
//   - the generators refuse to write any unrunnable row of ours;
//   - the suites load any configured file (ours, a user's, the protocol's), keep it, and skip each
//     unrunnable row with the reason (file, row, JSON path, rule), so the rest still runs.

import { isJsonObject, type JsonValue } from '../protocol/json.ts';
import { indexPath, joinPath } from './json-path.ts';

/** A rule a runnable row keeps: where in the rules it comes from, and what it demands. */
export interface RunnabilityRule {
  /** The rules section, e.g. `LIFECYCLE-RULES §4 wait`. */
  section: string;
  /** What a row must do, completing "a runnable row ...". */
  demand: string;
}

/** One row that breaks one rule. */
export interface RunnabilityProblem {
  /** The row's id. */
  row: string;
  /** JSON path from the file's top, e.g. `scenarios[3].steps[0].message.params.event`. */
  path: string;
  rule: RunnabilityRule;
  /** `expected ..., got ...` in our own words. */
  problem: string;
}

/** The rule's name as messages print it: `LIFECYCLE-RULES §4 wait (a runnable row ...)`. */
export function ruleName(rule: RunnabilityRule): string {
  return `${rule.section} (a runnable row ${rule.demand})`;
}

/** One problem as one line: `<file>: <path>: <problem> [rule: <rule>]`. */
export function describeRunnabilityProblem(file: string, problem: RunnabilityProblem): string {
  return `${file}: ${problem.path}: ${problem.problem} [rule: ${ruleName(problem.rule)}]`;
}

/**
 * Row id → why the row is not run: every problem of the row, each naming the file, the JSON path and
 * the rule. Rows without problems are absent.
 */
export function unrunnableRowReasons(file: string, problems: readonly RunnabilityProblem[]): Map<string, string> {
  const byRow = new Map<string, string[]>();
  for (const problem of problems) {
    const lines = byRow.get(problem.row) ?? [];
    lines.push(describeRunnabilityProblem(file, problem));
    byRow.set(problem.row, lines);
  }
  return new Map([...byRow].map(([row, lines]) => [row, `unrunnable fixture row (no client following the rules can run it, so it is not run): ${lines.join('; ')}`]));
}

/** A `body: {ref}` found in a message or content items: the ref and the JSON path of it. */
export interface BodyReference {
  ref: JsonValue;
  path: string;
}

/** Every `body` object holding a `ref`, at any depth below `value` (message parts included). */
export function bodyReferences(value: JsonValue | undefined, at: string): BodyReference[] {
  if (Array.isArray(value)) return value.flatMap((entry, k) => bodyReferences(entry, indexPath(at, k)));
  if (!isJsonObject(value)) return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const path = joinPath(at, key);
    if (key === 'body' && isJsonObject(inner) && Object.hasOwn(inner, 'ref')) return [{ ref: inner.ref!, path: joinPath(path, 'ref') }];
    return bodyReferences(inner, path);
  });
}
