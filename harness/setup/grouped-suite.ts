import { afterAll, beforeAll, describe, test } from 'vitest';

import { finishTest } from '../baseline/finish-test.ts';
import type { Baseline } from '../baseline/baseline.ts';
import { isRunnable, notRunReason, type MatrixGroup } from '../runs/plan.ts';
import { requirementsField } from '../requirements/row-requirements.ts';
import { GroupScheduler } from './group-scheduler.ts';
import { selectsRow, type KnownSelection } from './selection-forecast.ts';

/** The harness's verdict on one row of one group run, in the form every suite family shares. */
export interface RowOutcome {
  verdict: 'passed' | 'failed' | 'skipped';
  /** Why it failed or was skipped (names the party and the evidence); empty for a pass. */
  reason: string;
  /** The adapter's own status for the row, or why there is none (`missing`, `inapplicable`, ...). */
  adapterStatus: string;
  actual: unknown;
  /** Fixed labels of everything that went wrong for this row (run-wide ones included). */
  errors: string[];
  /** Why the evidence of this row is reduced, when it is; also a test annotation. */
  note?: string;
  /** Family-specific facts the reports carry with the row (e.g. sender isolation's captures). */
  details?: Record<string, unknown>;
}

export interface GroupRunResult {
  rows: Map<string, RowOutcome>;
  /** Kept copies of the run's logs when anything failed; named in failure messages. */
  keptLogs: string[];
  /**
   * Wall time of the client run (ms), for the run planner's estimates. On a group's merged result:
   * the wall times of all its runs added up (where the group's time went).
   */
  durationMs?: number;
  /** On a group's merged result: how many client runs the scheduler made of it. */
  runs?: number;
}

/** What a suite family (core, lifecycle, ...) tells the shared machinery. */
export interface SuiteFamily<Row extends { id: string }> {
  /** The project name: `reports/<project>.json`. */
  project: string;
  /** The config file the groups come from (timings are kept by adapter, not by this file: run-timings.ts). */
  configFile: string;
  /** Every row of the family's scenario file, in file order: one test each per group. */
  rows: Row[];
  groups: MatrixGroup[];
  /** Why `row` never runs in `group` (e.g. it needs another transport), or undefined. */
  rowSkip?(group: MatrixGroup, row: Row): string | undefined;
  /** What the reports show as the row's expectation. */
  expectedOf(row: Row): unknown;
  /** The row's category in the matrix summary (catalogue: execution, lineage, registration). */
  categoryOf?(row: Row): string;
  /** One client run of `group` over exactly `rows` (selected, runnable). Never rejects for adapter faults. */
  run(group: MatrixGroup, rows: Row[]): Promise<GroupRunResult>;
  /** Client runs at once. */
  parallelism: number;
  /**
   * Whether the row is expected to be rejected: a first run (no measured costs yet) counts such rows
   * dearer over stdio, where some clients start a fresh server after every one (run-plan.ts).
   */
  isNegative?(row: Row): boolean;
  /**
   * Whether a group's rows may be split over several concurrent client runs (each with its own
   * server). False when rows depend on earlier rows of the same run. Default true.
   */
  splittable?: boolean;
  /** Bound of one client run of the family, from its start (its rows wait for it, without a timeout of their own). */
  runBoundMs: number;
  /** The known-failure baseline (harness/baseline/), when the config names one. */
  baseline?: Baseline;
  /** The run's selection when it is known before collection (`inject('ahpSelection')`): its runs start at once. */
  selection?: KnownSelection | null;
}

/** What each matrix test records for the reporters (vitest task meta is serialised to them). */
export interface MatrixRowMeta {
  project: string;
  group: string;
  /** The group's position in the planner's whole list (MatrixGroup.rank). */
  groupRank: number;
  server: string;
  client: string;
  transport: string;
  auth: string;
  id: string;
  expected: unknown;
  actual: unknown;
  verdict: RowOutcome['verdict'];
  /** The client's row status; `inapplicable`/`unsupported` also for groups and rows the planner never runs. */
  adapterStatus: string;
  /** `stage/kind` labels (core) or the rules' verbatim check labels (lifecycle); never raw adapter output. */
  errors: string[];
  /** The planner's reason for a group or row that never runs (inapplicable / unsupported); the skip note. */
  skipReason?: string;
  /** Why this row's evidence is reduced (e.g. receipts only), when it is; also a test annotation. */
  evidenceNote?: string;
  /** The row's category, for families that have them. */
  category?: string;
  /** Family-specific facts (RowOutcome.details). */
  details?: Record<string, unknown>;
  /** A failed row's evidence as the verifier wrote it (`[stage/kind] party ...` lines, diffs): the HTML report shows it. */
  reason?: string;
  /** The kept logs of a failed row's run (absolute paths under the reports directory). */
  keptLogs?: string[];
  /** The requirement IDs the scenario row names (its `requirements` field); absent: the row is unmapped. */
  requirements?: string[];
  /** The group's client runs added up (ms) and how many there were, once it ran. */
  groupDurationMs?: number;
  groupRuns?: number;
}

declare module 'vitest' {
  interface TaskMeta {
    ahpMatrix?: MatrixRowMeta;
  }
}

interface SuiteLike {
  name: string;
  type: string;
  mode: string;
  tasks?: SuiteLike[];
}

/**
 * Registers one `describe` per `<server>→<client> <transport>/<auth>` group and one test per row,
 * named exactly by the row id, so `-t <id>` and the IDE explorer select single rows. A file-level
 * `beforeAll` sees which tests are selected (mode `run`) and starts one client run per group for
 * exactly those rows (minus rows the group never runs), at most `parallelism` at a time.
 */
export function defineGroupedSuite<Row extends { id: string }>(family: SuiteFamily<Row>): void {
  const scheduler = new GroupScheduler(family);
  const byLabel = new Map(family.groups.map((group) => [group.label, group]));
  const byId = new Map(family.rows.map((row) => [row.id, row]));
  /** The selections to run: per runnable group, its selected rows the group runs at all. */
  const selectionsOf = (selected: (group: MatrixGroup) => Row[]): Array<{ group: MatrixGroup; rows: Row[] }> =>
    family.groups
      .filter(isRunnable)
      .map((group) => ({ group, rows: selected(group).filter((row) => family.rowSkip?.(group, row) === undefined) }))
      .filter(({ rows }) => rows.length > 0);

  // A plain run's selection is known before collection (selection-forecast.ts): its client runs start
  // now, while vitest still collects the tests, instead of after. beforeAll then checks the forecast
  // against vitest's actual selection and runs any group whose rows differ again, for exactly those.
  const known = family.selection ?? null;
  if (known !== null) {
    const selects = selectsRow(known);
    scheduler.scheduleAll(selectionsOf((group) => family.rows.filter((row) => selects(group.label, row.id))));
  }

  // eslint-disable-next-line no-empty-pattern -- vitest requires a destructuring pattern for fixtures
  beforeAll(({}, file) => {
    const selectedIds = new Map<string, string[]>();
    for (const child of (file as unknown as SuiteLike).tasks ?? []) {
      if (child.type !== 'suite' || !byLabel.has(child.name)) continue;
      selectedIds.set(child.name, (child.tasks ?? []).filter((task) => task.type === 'test' && task.mode === 'run').map((task) => task.name));
    }
    scheduler.scheduleAll(selectionsOf((group) => (selectedIds.get(group.label) ?? []).map((id) => byId.get(id)!)));
  });
  afterAll(() => scheduler.saveTimings());

  // Every group's rows wait concurrently, each for its own group's run, so a group's verdicts land as
  // soon as its run ends: in file order, the rows of a group that finished early queued behind a
  // group still running, and were all reported at the very end. So the rows carry no vitest timeout
  // of their own (it would count the time queued behind other runs); the scheduler bounds each run
  // from its start instead (`runBoundMs`), on top of the run's own watchdogs.
  for (const group of family.groups) {
    describe(group.label, { concurrent: true }, () => {
      test.for(family.rows.map((row) => row.id))('%s', { timeout: 0 }, async (id, context) => {
        const row = byId.get(id)!;
        const meta: MatrixRowMeta = {
          project: family.project,
          group: group.label,
          groupRank: group.rank,
          server: group.server.name,
          client: group.client.name,
          transport: group.transport,
          auth: group.auth,
          id,
          expected: family.expectedOf(row),
          ...(family.categoryOf ? { category: family.categoryOf(row) } : {}),
          actual: null,
          verdict: 'skipped',
          adapterStatus: group.inapplicable !== undefined ? 'inapplicable' : group.unsupported !== undefined ? 'unsupported' : 'missing',
          errors: [],
        };
        const requirements = requirementsField(row);
        if (requirements !== undefined) meta.requirements = requirements;
        context.task.meta.ahpMatrix = meta;
        // Groups and rows the planner never runs: skipped with the reason, never passed, nothing started.
        const notRun = notRunReason(group) ?? family.rowSkip?.(group, row);
        if (notRun !== undefined) {
          if (notRunReason(group) === undefined) meta.adapterStatus = 'inapplicable';
          meta.skipReason = notRun;
          context.skip(notRun);
          return;
        }
        const run = await (scheduler.result(group.label) ?? scheduler.schedule(group, [row]));
        const outcome = run.rows.get(id);
        if (!outcome) throw new Error(`harness bug: ${group.label} › ${id} was not part of the run`);
        Object.assign(meta, {
          actual: outcome.actual ?? null,
          verdict: outcome.verdict,
          adapterStatus: outcome.adapterStatus,
          errors: [...new Set(outcome.errors)],
          ...(outcome.details ? { details: outcome.details } : {}),
          ...(run.durationMs === undefined ? {} : { groupDurationMs: Math.round(run.durationMs) }),
          ...(run.runs === undefined ? {} : { groupRuns: run.runs }),
          ...(outcome.verdict === 'failed' ? { reason: outcome.reason, keptLogs: run.keptLogs } : {}),
        });
        if (outcome.note !== undefined) {
          meta.evidenceNote = outcome.note;
          await context.annotate(outcome.note, 'notice');
        }
        if (outcome.verdict === 'skipped') {
          context.skip(outcome.reason);
          return;
        }
        const logs = run.keptLogs.length > 0 ? `\nlogs: ${run.keptLogs.join(', ')}` : '';
        const noted = outcome.note !== undefined ? `\nnote: ${outcome.note}` : '';
        const failure = outcome.verdict === 'failed' ? `${group.label} › ${id}\n${outcome.reason}${noted}${logs}` : undefined;
        await finishTest(context, family.baseline, { project: family.project, group: group.label, id }, failure);
        context.expect(outcome.verdict).toBe('passed');
      });
    });
  }
}

