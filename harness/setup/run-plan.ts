// How a selection becomes client runs, so every core stays busy on a big grid: each selected group is
// one run, unless its estimated cost would leave the other cores idle — then its rows are split into
// several runs of about equal cost (each with its own server instance: receipts stay attributable).
// Runs start longest first (LPT), at most `parallelism` at a time.
//
// Costs come from earlier runs of the same group (run-timings.ts): milliseconds per row, as measured.
// A split is only worth it when the part it saves exceeds what another client process costs to start,
// which is estimated from the same measurements.

import type { RunTimings } from './run-timings.ts';

export interface PlannedGroup<Row> {
  label: string;
  rows: Row[];
  /** False for families whose rows depend on earlier rows of the same run (catalogue lineage). */
  splittable: boolean;
}

export interface PlannedRun<Row> {
  label: string;
  rows: Row[];
  /** Estimated milliseconds. */
  cost: number;
}

/** Estimated cost of one run of `rows` rows of `label` (ms), and of starting one more run. */
export function estimate(timings: RunTimings, label: string, rows: number): { cost: number; startup: number } {
  const known = timings.get(label);
  const perRow = known ? known.ms / Math.max(1, known.rows) : DEFAULT_ROW_MS;
  const startup = known?.startupMs ?? DEFAULT_STARTUP_MS;
  return { cost: startup + perRow * rows, startup };
}

const DEFAULT_ROW_MS = 20;
const DEFAULT_STARTUP_MS = 1500;

export function planRuns<Row>(groups: Array<PlannedGroup<Row>>, parallelism: number, timings: RunTimings): Array<PlannedRun<Row>> {
  const estimates = groups.map((group) => ({ group, ...estimate(timings, group.label, group.rows.length) }));
  const total = estimates.reduce((sum, entry) => sum + entry.cost, 0);
  const target = total / Math.max(1, parallelism);
  const runs: Array<PlannedRun<Row>> = [];
  for (const { group, cost, startup } of estimates) {
    const perRow = (cost - startup) / Math.max(1, group.rows.length);
    // A group longer than a fair share of the whole selection is a long pole: split it into the fewest
    // parts that each fit in a fair share. Every part pays its own process start, so when a fair share
    // is no longer than a start, splitting cannot help.
    let parts = 1;
    const work = perRow * group.rows.length;
    if (group.splittable && parallelism > 1 && cost > target && target > startup) {
      parts = Math.min(group.rows.length, parallelism, Math.ceil(work / (target - startup)));
    }
    const size = Math.ceil(group.rows.length / parts);
    for (let at = 0; at < group.rows.length; at += size) {
      const rows = group.rows.slice(at, at + size);
      runs.push({ label: group.label, rows, cost: startup + perRow * rows.length });
    }
  }
  return runs.sort((a, b) => b.cost - a.cost);
}
