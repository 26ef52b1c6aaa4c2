// Which HTTP servers a plain `vitest run` will lease, known before the test file is even loaded, so
// the broker can start them while vitest boots on one core and the other would idle. The forecast
// follows vitest's own selection rule (`-t` is matched against `<group> <row id>`); where the selection
// cannot be known here — watch mode or the IDE (which pick tests later), a `file:line` filter, a
// shard — it forecasts nothing, and servers start on first lease as always. A wrong forecast only
// starts a server early or not at all: never a verdict.

import type { TestProject } from 'vitest/node';

import { httpServersNeeded, isRunnable, type MatrixGroup } from '../runs/plan.ts';
import { estimate } from './run-plan.ts';
import type { RunTimings } from './run-timings.ts';

export interface ForecastSelection {
  /** vitest's `-t` pattern, if any. */
  testNamePattern: RegExp | undefined;
  /** The CLI file filters (`suites/core`, `core.test.ts:12`), if any. */
  fileFilters: readonly string[] | undefined;
  watch: boolean;
  sharded: boolean;
}

export function forecastSelection(project: TestProject): ForecastSelection {
  const vitest = project.vitest as unknown as { filenamePattern?: string[]; config: { testNamePattern?: RegExp; watch: boolean; shard?: unknown } };
  return {
    testNamePattern: vitest.config.testNamePattern,
    fileFilters: vitest.filenamePattern,
    watch: vitest.config.watch,
    sharded: vitest.config.shard !== undefined && vitest.config.shard !== null,
  };
}

/**
 * The HTTP servers (one per adapter and mode) that the selected rows will lease, longest-running
 * group first (the order the runs start in); empty when the selection cannot be known here.
 */
export function forecastHttpServers(
  selection: ForecastSelection,
  groups: readonly MatrixGroup[],
  rowIds: readonly string[],
  timings: RunTimings,
): ReturnType<typeof httpServersNeeded> {
  if (selection.watch || selection.sharded) return [];
  if (selection.fileFilters?.some((filter) => /:\d+$/.test(filter))) return [];
  // A copy without g/y: their lastIndex would make test() answer differently row after row.
  const pattern = selection.testNamePattern && new RegExp(selection.testNamePattern.source, selection.testNamePattern.flags.replace(/[gy]/g, ''));
  const cost = new Map<string, number>();
  const selected: MatrixGroup[] = [];
  for (const group of groups) {
    if (group.transport !== 'http' || !isRunnable(group)) continue;
    const rows = pattern === undefined ? rowIds.length : rowIds.filter((id) => pattern.test(`${group.label} ${id}`)).length;
    if (rows === 0) continue;
    selected.push(group);
    const key = `${group.server.name}/${group.auth}`;
    cost.set(key, Math.max(cost.get(key) ?? 0, estimate(timings, group.label, rows).cost));
  }
  return httpServersNeeded(selected).sort((a, b) => (cost.get(b.key) ?? 0) - (cost.get(a.key) ?? 0));
}
