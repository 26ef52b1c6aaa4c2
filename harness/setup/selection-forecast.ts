// What a plain `vitest run` will select, known before the test file is even loaded: the broker starts
// the HTTP servers it will lease while vitest boots on one core and the other would idle, and the
// worker starts the client runs while it is still collecting the tests (grouped-suite.ts). The
// forecast follows vitest's own selection rule (`-t` is matched against `<group> <row id>`); where the
// selection cannot be known here — watch mode or the IDE (which pick tests later), a `file:line`
// filter, a tags filter, a shard — it forecasts nothing, and everything starts on first use as always.
// A wrong forecast only starts work early or not at all: never a verdict (the worker checks the
// forecast against vitest's actual selection before any row reads a result).

import type { TestProject } from 'vitest/node';

import { httpServersNeeded, isRunnable, type MatrixGroup } from '../runs/plan.ts';
import { rowCosts, estimate } from './run-plan.ts';
import { timingKeys, type RunTimings } from './run-timings.ts';

export interface ForecastSelection {
  /** vitest's `-t` pattern, if any. */
  testNamePattern: RegExp | undefined;
  /** The CLI file filters (`suites/core`, `core.test.ts:12`), if any. */
  fileFilters: readonly string[] | undefined;
  watch: boolean;
  sharded: boolean;
  /** vitest's `--tags-filter`, if any. */
  tagsFilter?: readonly string[] | undefined;
}

/**
 * A selection known before collection: rows whose `<group> <row id>` match `pattern` (every row when
 * it is null). Plain data, so globalSetup can provide it to the workers.
 */
export interface KnownSelection {
  pattern: { source: string; flags: string } | null;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** What this run will select, when that is known before collection (null when it is not). */
    ahpSelection: KnownSelection | null;
  }
}

/** The selection, when it is knowable before the test files are collected; null when it is not. */
export function knownSelection(selection: ForecastSelection): KnownSelection | null {
  if (selection.watch || selection.sharded) return null;
  if (selection.fileFilters?.some((filter) => /:\d+$/.test(filter))) return null;
  if (selection.tagsFilter !== undefined && selection.tagsFilter.length > 0) return null;
  const pattern = selection.testNamePattern;
  return { pattern: pattern === undefined ? null : { source: pattern.source, flags: pattern.flags } };
}

/** A test of `<group> <row id>` is selected by `known` (vitest's `-t` rule). */
export function selectsRow(known: KnownSelection): (group: string, id: string) => boolean {
  if (known.pattern === null) return () => true;
  // Without g/y: their lastIndex would make test() answer differently row after row.
  const pattern = new RegExp(known.pattern.source, known.pattern.flags.replace(/[gy]/g, ''));
  return (group, id) => pattern.test(`${group} ${id}`);
}

export function forecastSelection(project: TestProject): ForecastSelection {
  const vitest = project.vitest as unknown as { filenamePattern?: string[]; config: { testNamePattern?: RegExp; watch: boolean; shard?: unknown; tagsFilter?: string[] } };
  return {
    testNamePattern: vitest.config.testNamePattern,
    fileFilters: vitest.filenamePattern,
    watch: vitest.config.watch,
    sharded: vitest.config.shard !== undefined && vitest.config.shard !== null,
    tagsFilter: vitest.config.tagsFilter,
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
  const known = knownSelection(selection);
  if (known === null) return [];
  const selects = selectsRow(known);
  const cost = new Map<string, number>();
  const selected: MatrixGroup[] = [];
  for (const group of groups) {
    if (group.transport !== 'http' || !isRunnable(group)) continue;
    const rows = rowIds.filter((id) => selects(group.label, id)).length;
    if (rows === 0) continue;
    selected.push(group);
    const key = `${group.server.name}/${group.auth}`;
    cost.set(key, Math.max(cost.get(key) ?? 0, estimate(rowCosts(timings, { label: group.label, keys: timingKeys(group), transport: group.transport }), rows).cost));
  }
  return httpServersNeeded(selected).sort((a, b) => (cost.get(b.key) ?? 0) - (cost.get(a.key) ?? 0));
}
