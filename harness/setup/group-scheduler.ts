// The client runs of a selection: planned (run-plan.ts: a group is one run unless splitting it keeps
// more cores busy), started longest first, at most `parallelism` at a time — and adapted while they
// run. Each finished run is measured at once, so the runs still queued are re-estimated from what
// their pairing (or their client on that transport) really cost; and when a core goes idle and a
// queued run would leave it idle again at the end, that run is cut in two and its tail becomes a run
// of its own (with its own server lease, like every run: receipts stay attributable). A group's
// result is the merge of its runs; a later selection of the same rows shares it, one of other rows
// replaces it. With `AHP_VERBOSE=1` every decision is printed as one line.

import { performance } from 'node:perf_hooks';

import type { MatrixGroup } from '../runs/plan.ts';
import type { GroupRunResult, RowOutcome, SuiteFamily } from './grouped-suite.ts';
import { partsWorthStarting, planRuns, rowCostOf, rowCosts, runCost, sliceRows, splitOnIdle, type PlannedGroup, type RowCosts } from './run-plan.ts';
import { loadTimings, recordTiming, saveTimings, timingKeys, type RunTimings } from './run-timings.ts';

/** One line of what the scheduler decided, and when (ms since it was created). */
export interface ScheduleDecision {
  atMs: number;
  group: string;
  text: string;
}

interface Job<Row> {
  group: MatrixGroup;
  planned: PlannedGroup<Row>;
  rows: Row[];
  costs: RowCosts;
  cost: number;
  tracker: GroupTracker;
  startedAt?: number;
}

/** Collects the runs of one group's current selection; settles once every one of them has. */
class GroupTracker {
  readonly result: Promise<GroupRunResult>;
  runs = 0;
  private pending = 0;
  private readonly parts: GroupRunResult[] = [];
  private durationMs = 0;
  private settle!: { resolve(result: GroupRunResult): void; reject(error: unknown): void };
  private failed = false;

  constructor() {
    this.result = new Promise<GroupRunResult>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    this.result.catch(() => undefined);
  }

  add(): void {
    this.runs++;
    this.pending++;
  }

  done(part: GroupRunResult, durationMs: number): void {
    this.parts.push(part);
    this.durationMs += durationMs;
    if (--this.pending === 0 && !this.failed) this.settle.resolve(mergeResults(this.parts, this.durationMs, this.runs));
  }

  fail(error: unknown): void {
    this.pending--;
    if (!this.failed) this.settle.reject(error);
    this.failed = true;
  }
}

export class GroupScheduler<Row extends { id: string }> {
  /** Every decision so far, in order (also printed with AHP_VERBOSE=1). */
  readonly decisions: ScheduleDecision[] = [];
  private readonly trackers = new Map<string, GroupTracker>();
  /** The rows (rowsKey) each group's current result runs. */
  private readonly scheduledRows = new Map<string, string>();
  private readonly timings: RunTimings;
  private readonly queue: Array<Job<Row>> = [];
  private readonly running = new Set<Job<Row>>();
  private readonly createdAt = performance.now();
  private readonly verbose: boolean;

  constructor(private readonly family: SuiteFamily<Row>) {
    this.timings = loadTimings(family.project);
    this.verbose = /^(1|true|yes)$/i.test(process.env.AHP_VERBOSE ?? '');
  }

  /**
   * Plans and starts the runs of every selection whose group has no run yet for exactly those rows
   * (a group started early for other rows is run again for these: its result is replaced).
   */
  scheduleAll(selections: Array<{ group: MatrixGroup; rows: Row[] }>): void {
    const fresh = selections
      .map(({ group, rows }) => ({ group, rows: this.inFileOrder(rows) }))
      .filter(({ group, rows }) => this.scheduledRows.get(group.label) !== rowsKey(rows));
    if (fresh.length === 0) return;
    for (const { group, rows } of fresh) this.scheduledRows.set(group.label, rowsKey(rows));
    const planned = new Map(fresh.map(({ group, rows }) => [group.label, { group, planned: this.plannedGroup(group, rows) }]));
    const runs = planRuns([...planned.values()].map((entry) => entry.planned), this.family.parallelism, this.timings);
    for (const { group, planned: plan } of planned.values()) {
      const tracker = new GroupTracker();
      this.trackers.set(group.label, tracker);
      const mine = runs.filter((run) => run.label === group.label);
      const first = mine[0]!;
      const total = mine.reduce((sum, run) => sum + run.cost, 0);
      const negatives = plan.isNegative ? plan.rows.filter(plan.isNegative).length : 0;
      const worst = first.worstCaseMs === undefined ? '' : `; ${seconds(first.worstCaseMs)} if its client restarts the server after every negative row`;
      const why = `${plan.rows.length} rows, ${negatives} negative, ${first.costs.basis} ${seconds(total)}${worst}`;
      this.decide(group.label, first.parts > 1 ? `split into ${first.parts} at ${seconds(this.now())}: plan (${why})` : `one run (${why})`);
    }
    for (const run of runs) {
      const { group, planned: plan } = planned.get(run.label)!;
      this.enqueue({ group, planned: plan, rows: run.rows, costs: run.costs, cost: run.cost, tracker: this.trackers.get(group.label)! });
    }
    this.pump(false);
  }

  schedule(group: MatrixGroup, rows: Row[]): Promise<GroupRunResult> {
    if (!this.trackers.has(group.label)) this.scheduleAll([{ group, rows }]);
    return this.trackers.get(group.label)!.result;
  }

  result(label: string): Promise<GroupRunResult> | undefined {
    return this.trackers.get(label)?.result;
  }

  saveTimings(): void {
    saveTimings(this.family.project, this.timings);
  }

  private plannedGroup(group: MatrixGroup, rows: Row[]): PlannedGroup<Row> {
    return {
      label: group.label,
      rows,
      splittable: this.family.splittable !== false,
      transport: group.transport,
      // Groups built by hand (self-tests) may lack adapters: their label is their timing key.
      ...(group.server && group.client ? { keys: timingKeys(group) } : {}),
      ...(this.family.isNegative ? { isNegative: (row: Row) => this.family.isNegative!(row) } : {}),
    };
  }

  private enqueue(job: Job<Row>): void {
    job.tracker.add();
    this.queue.push(job);
  }

  /** Starts queued runs while cores are free; after a run ended (`idle`), first adapts the queue. */
  private pump(idle: boolean): void {
    if (idle && this.queue.length > 0) this.adapt();
    while (this.running.size < Math.max(1, this.family.parallelism) && this.queue.length > 0) this.start(this.queue.shift()!);
  }

  /** A core went idle: re-estimate the queued runs from what has been measured, and split one if that helps. */
  private adapt(): void {
    for (const job of this.queue) {
      job.costs = rowCosts(this.timings, job.planned);
      job.cost = runCost(job.planned, job.costs, job.rows);
    }
    this.queue.sort((a, b) => b.cost - a.cost);
    const cores = Math.max(1, this.family.parallelism);
    const now = performance.now();
    for (;;) {
      const busy = [...this.running].map((job) => Math.max(0, job.cost - (now - (job.startedAt ?? now))));
      const index = splitOnIdle(
        busy,
        this.queue.map((job) => ({ cost: job.cost, splitCosts: this.halves(job)?.costs, groupRuns: job.tracker.runs })),
        cores,
      );
      if (index === undefined) return;
      const job = this.queue[index]!;
      const { rows } = this.halves(job)!;
      job.rows = rows[0];
      job.cost = runCost(job.planned, job.costs, job.rows);
      this.enqueue({ ...job, rows: rows[1], cost: runCost(job.planned, job.costs, rows[1]), startedAt: undefined });
      this.queue.sort((a, b) => b.cost - a.cost);
      this.decide(job.group.label, `split into ${job.tracker.runs} at ${seconds(this.now())}: core idle (tail of ${rows[1].length} rows as a run of its own, ${job.costs.basis})`);
    }
  }

  /** The job's rows cut in two, with their costs, when the family allows it and both halves are worth a start. */
  private halves(job: Job<Row>): { rows: [Row[], Row[]]; costs: [number, number] } | undefined {
    if (!job.planned.splittable || job.rows.length < 2) return undefined;
    const [head, tail] = sliceRows(job.rows, 2, rowCostOf(job.planned, job.costs)) as [Row[], Row[]];
    const costs: [number, number] = [runCost(job.planned, job.costs, head), runCost(job.planned, job.costs, tail)];
    return partsWorthStarting(job.costs, costs) ? { rows: [head, tail], costs } : undefined;
  }

  private start(job: Job<Row>): void {
    job.startedAt = performance.now();
    this.running.add(job);
    const what = `${job.group.label} (${job.rows.length} rows)`;
    boundedRun(Promise.resolve().then(() => this.family.run(job.group, job.rows)), this.family.runBoundMs, what).then(
      (result) => {
        // The run's own measure when it has one (the client run, without the wait for a server lease).
        const wall = result.durationMs ?? performance.now() - job.startedAt!;
        this.measured(job, result);
        this.running.delete(job);
        job.tracker.done(result, wall);
        this.pump(true);
      },
      (error: unknown) => {
        this.running.delete(job);
        job.tracker.fail(error);
        this.pump(true);
      },
    );
  }

  /** Records what the run cost, for its pairing and for its client on that transport. */
  private measured(job: Job<Row>, result: GroupRunResult): void {
    if (result.durationMs === undefined) return;
    const keys = job.planned.keys ?? { pair: job.group.label, client: undefined };
    recordTiming(this.timings, keys.pair, job.rows.length, result.durationMs);
    if (keys.client !== undefined) recordTiming(this.timings, keys.client, job.rows.length, result.durationMs);
  }

  private decide(group: string, text: string): void {
    const decision = { atMs: this.now(), group, text };
    this.decisions.push(decision);
    // Through stderr, not console: vitest would hold console output back until the file's end.
    if (this.verbose) process.stderr.write(`[ahp ${this.family.project}] ${group}: ${text}\n`);
  }

  private now(): number {
    return performance.now() - this.createdAt;
  }

  private inFileOrder(rows: Row[]): Row[] {
    const wanted = new Set(rows.map((row) => row.id));
    return this.family.rows.filter((row) => wanted.has(row.id));
  }
}

/** `run`, or a harness fault once it has not ended `boundMs` after it started (its own watchdogs should have ended it). */
function boundedRun<T>(run: Promise<T>, boundMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`harness fault: the client run of ${what} did not end within ${boundMs} ms of its start, although its watchdogs should have ended it`)), boundMs);
  });
  return Promise.race([run, bound]).finally(() => clearTimeout(timer));
}

function rowsKey(rows: ReadonlyArray<{ id: string }>): string {
  return rows.map((row) => row.id).join('\n');
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

function mergeResults(parts: GroupRunResult[], durationMs: number, runs: number): GroupRunResult {
  const rows = new Map<string, RowOutcome>();
  for (const part of parts) for (const [id, outcome] of part.rows) rows.set(id, outcome);
  return { rows, keptLogs: parts.flatMap((part) => part.keptLogs), durationMs, runs };
}
