// How a selection becomes client runs, so every core stays busy on a big grid: each selected group is
// one run, unless splitting it shortens the predicted schedule — a long pole that would leave the
// other cores idle, or a run that would finish alone at the end — then its rows are split into
// several runs of about equal cost (each with its own server instance: receipts stay attributable).
// Runs start longest first (LPT), at most `parallelism` at a time.
//
// Costs come from earlier runs (run-timings.ts): of the same pairing, else of the same client on the
// same transport. With neither (a first run), from what is known before anything ran: the rows, the
// transport and the share of negative rows — over stdio a negative row may cost a whole server start,
// since some SDKs' stdio clients start a fresh server after every protocol error; and a stdio group
// that would be a long pole if its client did so is cut in two on a first run. A split is only
// worth it when the part it saves exceeds what another client process costs to start, and no part is
// made so small that its start would dominate it.

import type { Transport } from '../config/define-config.ts';
import type { RunTimings, TimingKeys } from './run-timings.ts';

export interface PlannedGroup<Row> {
  label: string;
  rows: Row[];
  /** False for families whose rows depend on earlier rows of the same run (catalogue lineage). */
  splittable: boolean;
  /** Where the group's cost is kept (run-timings.ts); without them the label is the key. */
  keys?: TimingKeys;
  /** For the first-run estimate. */
  transport?: Transport;
  /** Rows expected to be rejected (a first-run estimate counts them dearer over stdio). */
  isNegative?: (row: Row) => boolean;
}

/** What a group's rows and runs are estimated to cost, and from what. */
export interface RowCosts {
  rowMs: number;
  /** Added per negative row (first-run estimate over stdio only; measured costs already include them). */
  negativeRowMs: number;
  /** What one more client run costs before its first row. */
  startupMs: number;
  basis: 'measured pairing' | 'measured client' | 'first-run estimate';
}

export interface PlannedRun<Row> {
  label: string;
  rows: Row[];
  /** Estimated milliseconds. */
  cost: number;
  /** How many runs the plan made of the group. */
  parts: number;
  costs: RowCosts;
  /**
   * Set when the group was cut in two only because, on a first run, its client might restart its
   * server after every negative row: what the whole group would then cost (ms).
   */
  worstCaseMs?: number;
}

/** First-run estimates: a row over HTTP, over stdio, a negative stdio row's possible server start, a client start. */
export const FIRST_RUN = { httpRowMs: 20, stdioRowMs: 30, stdioNegativeRowMs: 600, startupMs: 1500 } as const;

/**
 * A negative stdio row when the client restarts its server after it (relay, server start and the
 * client's fresh discovery; about 1.4 s with one public SDK): the first-run worst case.
 */
export const FIRST_RUN_RESTART_ROW_MS = 1600;

/** No part is planned below this many client starts of work (the start would dominate it). */
export const MIN_PART_STARTS = 4;

/** A split must shorten the predicted schedule by at least this share to be made. */
const MIN_GAIN = 0.02;

export function rowCosts(timings: RunTimings, group: Pick<PlannedGroup<unknown>, 'label' | 'keys' | 'transport'>): RowCosts {
  const pair = timings.get(group.keys?.pair ?? group.label);
  const client = group.keys ? timings.get(group.keys.client) : undefined;
  const known = pair ?? client;
  const startupMs = pair?.startupMs ?? client?.startupMs ?? FIRST_RUN.startupMs;
  if (known) return { rowMs: known.ms / Math.max(1, known.rows), negativeRowMs: 0, startupMs, basis: pair ? 'measured pairing' : 'measured client' };
  const stdio = group.transport === 'stdio';
  return { rowMs: stdio ? FIRST_RUN.stdioRowMs : FIRST_RUN.httpRowMs, negativeRowMs: stdio ? FIRST_RUN.stdioNegativeRowMs : 0, startupMs, basis: 'first-run estimate' };
}

/** Estimated cost of one run of `rows` (`negatives` of them negative), and of starting one more run (ms). */
export function estimate(costs: RowCosts, rows: number, negatives = 0): { cost: number; startup: number } {
  return { cost: costs.startupMs + costs.rowMs * rows + costs.negativeRowMs * negatives, startup: costs.startupMs };
}

/** The estimated cost of one run over `rows` of `group`. */
export function runCost<Row>(group: Pick<PlannedGroup<Row>, 'isNegative'>, costs: RowCosts, rows: readonly Row[]): number {
  const negatives = group.isNegative ? rows.filter((row) => group.isNegative!(row)).length : 0;
  return estimate(costs, rows.length, negatives).cost;
}

/**
 * `rows` cut into `parts` consecutive slices of about equal estimated cost, in order: a group's
 * negative rows may cluster, and a cut by count would leave one part with most of the restarts.
 */
export function sliceRows<Row>(rows: readonly Row[], parts: number, rowCost: (row: Row) => number = () => 1): Row[][] {
  const count = Math.max(1, Math.min(parts, rows.length));
  const total = rows.reduce((sum, row) => sum + rowCost(row), 0);
  const slices: Row[][] = [];
  let current: Row[] = [];
  let spent = 0;
  rows.forEach((row, index) => {
    current.push(row);
    spent += rowCost(row);
    const left = rows.length - index - 1;
    const slicesLeft = count - slices.length - 1;
    // Cut once this slice reached its share, or when the rows left are just enough for the slices left.
    if (slicesLeft > 0 && left > 0 && (spent >= (total * (slices.length + 1)) / count || left === slicesLeft)) {
      slices.push(current);
      current = [];
    }
  });
  if (current.length > 0) slices.push(current);
  return slices;
}

/** What one row adds to a run's estimate. */
export function rowCostOf<Row>(group: Pick<PlannedGroup<Row>, 'isNegative'>, costs: RowCosts): (row: Row) => number {
  return (row) => costs.rowMs + (group.isNegative?.(row) === true ? costs.negativeRowMs : 0);
}

/** Whether every part of `slices` is still worth its own client start. */
export function partsWorthStarting(costs: RowCosts, sliceCosts: number[]): boolean {
  return sliceCosts.every((cost) => cost >= MIN_PART_STARTS * costs.startupMs);
}

export function planRuns<Row>(groups: Array<PlannedGroup<Row>>, parallelism: number, timings: RunTimings): Array<PlannedRun<Row>> {
  const cores = Math.max(1, parallelism);
  const plans = groups.map((group) => ({ group, costs: rowCosts(timings, group), parts: 1, worstCaseMs: undefined as number | undefined }));
  const costsOf = (plan: (typeof plans)[number]): number[] => sliceRows(plan.group.rows, plan.parts, rowCostOf(plan.group, plan.costs)).map((rows) => runCost(plan.group, plan.costs, rows));
  // Every group starts as one run. Then, as long as it shortens the predicted wall time of the
  // longest-first schedule on `cores` (the long pole that leaves other cores idle, or the last run that
  // finishes alone), one more split of the group whose split helps most — each part pays its own
  // process start, so a split that only adds starts is never made. At most `cores` parts per group.
  //
  // Besides one group at a time, the move that splits every group tied for the longest run at once:
  // two equal long poles on four cores shorten nothing when only one of them is split.
  const splittable = (plan: (typeof plans)[number]): boolean => plan.group.splittable && plan.parts < Math.min(cores, plan.group.rows.length);
  for (let step = 0; step < groups.length * cores; step++) {
    const current = makespan(plans.flatMap(costsOf), cores);
    const longest = new Map(plans.map((plan) => [plan, Math.max(...costsOf(plan))]));
    const top = Math.max(...longest.values());
    const tied = plans.filter((plan) => splittable(plan) && longest.get(plan)! >= top * 0.99);
    const moves = [...plans.filter(splittable).map((plan) => [plan]), ...(tied.length > 1 ? [tied] : [])];
    let best: { move: Array<(typeof plans)[number]>; span: number } | undefined;
    for (const move of moves) {
      for (const plan of move) plan.parts++;
      const worth = move.every((plan) => partsWorthStarting(plan.costs, costsOf(plan)));
      const span = makespan(plans.flatMap(costsOf), cores);
      for (const plan of move) plan.parts--;
      if (worth && span < (best?.span ?? current * (1 - MIN_GAIN))) best = { move, span };
    }
    if (!best) break;
    for (const plan of best.move) plan.parts++;
  }
  // A first-run estimate cannot tell a stdio client that restarts its server after every negative
  // row from one that keeps it, and a client run cannot hand its unstarted rows to an idle core once
  // it runs. So a group that would be a long pole in that worst case (longer than a fair share of the
  // expected work) is cut in two anyway, when both halves are worth a start: if its client keeps its
  // server the price is one client start; if it restarts, the halves run on two cores, not one.
  const fairShare = plans.flatMap(costsOf).reduce((sum, cost) => sum + cost, 0) / cores;
  for (const plan of plans) {
    const { group } = plan;
    if (plan.parts !== 1 || !group.splittable || group.rows.length < 2 || cores < 2) continue;
    if (plan.costs.basis !== 'first-run estimate' || group.transport !== 'stdio' || !group.isNegative) continue;
    const worstCaseMs = runCost(group, { ...plan.costs, negativeRowMs: FIRST_RUN_RESTART_ROW_MS }, group.rows);
    if (worstCaseMs <= fairShare) continue;
    plan.parts = 2;
    if (partsWorthStarting(plan.costs, costsOf(plan))) plan.worstCaseMs = worstCaseMs;
    else plan.parts = 1;
  }
  const runs: Array<PlannedRun<Row>> = [];
  for (const plan of plans) {
    const slices = sliceRows(plan.group.rows, plan.parts, rowCostOf(plan.group, plan.costs));
    for (const rows of slices) {
      runs.push({ label: plan.group.label, rows, cost: runCost(plan.group, plan.costs, rows), parts: slices.length, costs: plan.costs, ...(plan.worstCaseMs === undefined ? {} : { worstCaseMs: plan.worstCaseMs }) });
    }
  }
  return runs.sort((a, b) => b.cost - a.cost);
}

/**
 * A core has gone idle: whether one of the `queued` runs (none of its rows started yet) should be cut
 * in two, its tail becoming a run of its own, because that shortens the predicted rest of the run —
 * given what the `busy` cores still have to do (estimated ms left) and the idle ones. Answers the index
 * of the queued run to split, or undefined. A run is split only when both halves stay worth a start
 * and its group has fewer than `cores` runs (`groupRuns`).
 */
export function splitOnIdle(
  busy: number[],
  queued: Array<{ cost: number; splitCosts: [number, number] | undefined; groupRuns: number }>,
  cores: number,
): number | undefined {
  const initial = [...busy, ...new Array<number>(Math.max(0, cores - busy.length)).fill(0)];
  const current = makespan(queued.map((run) => run.cost), cores, initial);
  let best: { index: number; span: number } | undefined;
  queued.forEach((run, index) => {
    if (run.splitCosts === undefined || run.groupRuns >= cores) return;
    const costs = queued.flatMap((other, at) => (at === index ? run.splitCosts! : [other.cost]));
    const span = makespan(costs, cores, initial);
    if (span < (best?.span ?? current * (1 - MIN_GAIN))) best = { index, span };
  });
  return best?.index;
}

/**
 * When the last of `costs` would finish, started longest first on `cores`, each on the least loaded
 * (cores start with `initial` load each: what runs already started still have to do).
 */
export function makespan(costs: number[], cores: number, initial?: number[]): number {
  const loads = initial && initial.length > 0 ? [...initial] : new Array<number>(Math.max(1, cores)).fill(0);
  for (const cost of [...costs].sort((a, b) => b - a)) {
    let least = 0;
    for (let core = 1; core < loads.length; core++) if (loads[core]! < loads[least]!) least = core;
    loads[least]! += cost;
  }
  return Math.max(...loads);
}
