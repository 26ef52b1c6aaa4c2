// How a selection becomes client runs, so every core stays busy on a big grid: each selected group is
// one run, unless splitting it shortens the predicted schedule — a long pole that would leave the
// other cores idle, or a run that would finish alone at the end — then its rows are split into
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
  const cores = Math.max(1, parallelism);
  const plans = groups.map((group) => {
    const { cost, startup } = estimate(timings, group.label, group.rows.length);
    return { group, startup, perRow: (cost - startup) / Math.max(1, group.rows.length), parts: 1 };
  });
  // Every group starts as one run. Then, as long as it shortens the predicted wall time of the
  // longest-first schedule on `cores` (the long pole that leaves other cores idle, or the last run that
  // finishes alone), one more split of the group whose split helps most — each part pays its own
  // process start, so a split that only adds starts is never made. At most `cores` parts per group.
  for (let step = 0; step < groups.length * cores; step++) {
    const current = makespan(plans.flatMap(runCosts), cores);
    let best: { plan: (typeof plans)[number]; span: number } | undefined;
    for (const plan of plans) {
      if (!plan.group.splittable || plan.parts >= Math.min(cores, plan.group.rows.length)) continue;
      plan.parts++;
      const span = makespan(plans.flatMap(runCosts), cores);
      plan.parts--;
      if (span < (best?.span ?? current * 0.98)) best = { plan, span };
    }
    if (!best) break;
    best.plan.parts++;
  }
  const runs: Array<PlannedRun<Row>> = [];
  for (const plan of plans) {
    const size = Math.ceil(plan.group.rows.length / plan.parts);
    for (let at = 0; at < plan.group.rows.length; at += size) {
      const rows = plan.group.rows.slice(at, at + size);
      runs.push({ label: plan.group.label, rows, cost: plan.startup + plan.perRow * rows.length });
    }
  }
  return runs.sort((a, b) => b.cost - a.cost);
}

/** The estimated cost of each run a group's plan makes (its rows split as evenly as `parts` allows). */
function runCosts(plan: { group: { rows: unknown[] }; startup: number; perRow: number; parts: number }): number[] {
  const size = Math.ceil(plan.group.rows.length / plan.parts);
  const costs: number[] = [];
  for (let at = 0; at < plan.group.rows.length; at += size) costs.push(plan.startup + plan.perRow * Math.min(size, plan.group.rows.length - at));
  return costs;
}

/** When the last of `costs` would finish, started longest first on `cores`, each on the least loaded. */
export function makespan(costs: number[], cores: number): number {
  const loads = new Array<number>(Math.max(1, cores)).fill(0);
  for (const cost of [...costs].sort((a, b) => b - a)) {
    let least = 0;
    for (let core = 1; core < loads.length; core++) if (loads[core]! < loads[least]!) least = core;
    loads[least]! += cost;
  }
  return Math.max(...loads);
}
