// Turns what the matrix tests recorded (their `ahpMatrix`, `ahpBaseline` and probe metas) into one
// project's page report (page-report.ts). Pure: the reporter gathers the metas and the run header.

import path from 'node:path';

import type { BaselineEntry } from '../baseline/baseline.ts';
import type { BaselineState } from '../baseline/apply-baseline.ts';
import type { MatrixRowMeta } from '../setup/grouped-suite.ts';
import { findingsOf } from './failure-findings.ts';
import { PAGE_REPORT_FORMAT, ROW_STATUSES, worstStatus, type PageGroup, type PageProbe, type PageReport, type PageRow, type PageRunHeader, type RowStatus } from './page-report.ts';
import { groupAxes } from './group-axes.ts';
import { FAMILIES } from '../families/family.ts';

/** One matrix test as the reporter saw it. */
export interface RecordedRow {
  meta: MatrixRowMeta;
  /** vitest's state, with a baseline-skipped failure as `expected-failure`. */
  verdict: 'passed' | 'failed' | 'skipped' | 'expected-failure';
  baseline?: BaselineState;
}

/** The lifecycle rules' words for the parties, unless the family's entry says otherwise (core: client and server). */
const SENDER_AXES = { rows: 'receivers (servers)', columns: 'senders (clients)' };

export function rowStatus(verdict: RecordedRow['verdict'], adapterStatus: string): RowStatus {
  if (verdict !== 'skipped') return verdict;
  if (adapterStatus === 'inapplicable') return 'inapplicable';
  if (adapterStatus === 'unsupported') return 'unsupported';
  return 'skipped';
}

export interface PageReportInput {
  project: string;
  run: PageRunHeader;
  /** In the planner's order. */
  rows: RecordedRow[];
  probes: PageProbe[];
  staleBaseline: BaselineEntry[];
  /** Where the page lives: kept-log links are relative to it. */
  reportsDir: string;
}

export function buildPageReport(input: PageReportInput): PageReport {
  const groups = new Map<string, PageGroup>();
  const ranks = new Map<string, number>();
  for (const { meta, verdict, baseline } of input.rows) {
    const group = groups.get(meta.group) ?? newGroup(meta);
    groups.set(meta.group, group);
    ranks.set(meta.group, meta.groupRank);
    const row = pageRow(meta, rowStatus(verdict, meta.adapterStatus), baseline, input.reportsDir);
    group.rows.push(row);
    group.counts[row.status]++;
    if (meta.evidenceNote !== undefined && !group.notes.includes(meta.evidenceNote)) group.notes.push(meta.evidenceNote);
  }
  const ordered = [...groups.values()].sort((a, b) => ranks.get(a.label)! - ranks.get(b.label)!);
  for (const group of ordered) group.status = worstStatus(group.rows.map((row) => row.status));
  return {
    format: PAGE_REPORT_FORMAT,
    version: 1,
    project: input.project,
    axes: FAMILIES.find((family) => family.name === input.project)?.pageAxes ?? SENDER_AXES,
    run: input.run,
    groups: ordered,
    probes: input.probes,
    staleBaseline: input.staleBaseline.map((entry) => ({ ...entry })),
  };
}

function newGroup(meta: MatrixRowMeta): PageGroup {
  return {
    label: meta.group,
    ...groupAxes(meta),
    status: 'skipped',
    counts: Object.fromEntries(ROW_STATUSES.map((status) => [status, 0])) as Record<RowStatus, number>,
    notes: [],
    rows: [],
  };
}

function pageRow(meta: MatrixRowMeta, status: RowStatus, baseline: BaselineState | undefined, reportsDir: string): PageRow {
  const evidence = meta.reason;
  return {
    id: meta.id,
    status,
    adapterStatus: meta.adapterStatus,
    labels: meta.errors,
    findings: evidence === undefined ? [] : findingsOf(evidence),
    ...(evidence === undefined ? {} : { evidence }),
    logs: (meta.keptLogs ?? []).map((file) => path.relative(reportsDir, file).split(path.sep).join('/')),
    ...(baseline ? { baseline: { state: baseline.state, reason: baseline.reason } } : {}),
    ...(meta.skipReason === undefined ? {} : { skipReason: meta.skipReason }),
    requirements: meta.requirements ?? null,
  };
}
