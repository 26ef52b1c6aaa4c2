// What changed since a previous run: rows that fail now and did not before, rows that pass now and
// failed before, and rows the previous run had that this one does not. Rows are keyed by project,
// group label and row id, so two runs of different SDK versions under the same adapter names compare.
// The previous run may be a reports directory (its page reports), one page report, or one of the
// upstream-shaped `<project>.json` files (core's `{groups: [{client, server, transport, auth, results}]}`).

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import { checkPageReport, PAGE_REPORT_FORMAT, PageReportError, type PageReport, type RowStatus } from './page-report.ts';

export interface RowKey {
  project: string;
  group: string;
  id: string;
}

export interface FlippedRow extends RowKey {
  before: string;
  now: string;
}

export interface RunComparison {
  /** What the previous run was read from, for the page and the terminal. */
  previous: string;
  newlyFailing: FlippedRow[];
  newlyPassing: FlippedRow[];
  vanished: FlippedRow[];
}

const FAILING = new Set(['failed']);
const PASSING = new Set(['passed', 'expected-failure']);

export const PAGE_REPORT_SUFFIX = '-page.json';

/** The page reports of a reports directory, one per project, in project order. */
export function pageReportFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(PAGE_REPORT_SUFFIX))
    .sort()
    .map((name) => path.join(dir, name));
}

/** Row statuses of a previous run, read from `source` (see the header). Throws PageReportError naming the file. */
export function readPreviousStatuses(source: string): Map<string, { key: RowKey; status: string }> {
  if (!existsSync(source)) throw new PageReportError(source, '', 'missing: expected a previous reports directory or one of its JSON reports to compare with');
  const files = statSync(source).isDirectory() ? pageReportFiles(source) : [source];
  if (files.length === 0) throw new PageReportError(source, '', `holds no *${PAGE_REPORT_SUFFIX}: expected the reports directory of an earlier run`);
  const statuses = new Map<string, { key: RowKey; status: string }>();
  for (const file of files) {
    for (const entry of statusesOfFile(file)) statuses.set(keyText(entry.key), entry);
  }
  return statuses;
}

function statusesOfFile(file: string): Array<{ key: RowKey; status: string }> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new PageReportError(file, '', `cannot be read as JSON (${(error as Error).message})`);
  }
  if ((value as { format?: unknown } | null)?.format === PAGE_REPORT_FORMAT) return pageStatuses(checkPageReport(value, file));
  return upstreamStatuses(value, file);
}

function pageStatuses(report: PageReport): Array<{ key: RowKey; status: string }> {
  return report.groups.flatMap((group) => group.rows.map((row) => ({ key: { project: report.project, group: group.label, id: row.id }, status: row.status })));
}

/** Core's upstream shape: groups with their coordinates and `results: [{id, status}]`. */
function upstreamStatuses(value: unknown, file: string): Array<{ key: RowKey; status: string }> {
  const groups = (value as { groups?: unknown } | null)?.groups;
  if (!Array.isArray(groups)) throw new PageReportError(file, 'groups', `expected a page report ("format": "${PAGE_REPORT_FORMAT}") or core.json's {groups: [...]}`);
  const project = typeof (value as { suite?: unknown }).suite === 'string' ? (value as { suite: string }).suite : 'core';
  return groups.flatMap((group: unknown, g) => {
    const { client, server, transport, auth, results, scenarios } = (group ?? {}) as Record<string, unknown>;
    const rows = Array.isArray(results) ? results : Array.isArray(scenarios) ? scenarios : undefined;
    if (typeof client !== 'string' || typeof server !== 'string' || typeof transport !== 'string' || typeof auth !== 'string' || rows === undefined) {
      throw new PageReportError(file, `groups[${g}]`, 'expected {client, server, transport, auth, results: [{id, status}]}');
    }
    const label = `${server}→${client} ${transport}/${auth}`;
    return rows.map((row: unknown) => {
      const { id, status } = (row ?? {}) as { id?: unknown; status?: unknown };
      return { key: { project, group: label, id: String(id) }, status: String(status) };
    });
  });
}

export function keyText(key: RowKey): string {
  return `${key.project}\u0000${key.group}\u0000${key.id}`;
}

/** Compares this run's page reports with the previous statuses. Skipped rows flip nothing. */
export function compareRuns(previous: string, before: Map<string, { key: RowKey; status: string }>, now: readonly PageReport[]): RunComparison {
  const comparison: RunComparison = { previous, newlyFailing: [], newlyPassing: [], vanished: [] };
  const seen = new Set<string>();
  const projectsNow = new Set(now.map((report) => report.project));
  for (const report of now) {
    for (const group of report.groups) {
      for (const row of group.rows) {
        const key = { project: report.project, group: group.label, id: row.id };
        const text = keyText(key);
        seen.add(text);
        const was = before.get(text)?.status;
        if (was === undefined) {
          if (FAILING.has(row.status)) comparison.newlyFailing.push({ ...key, before: 'absent', now: row.status });
          continue;
        }
        if (FAILING.has(row.status) && !FAILING.has(was)) comparison.newlyFailing.push({ ...key, before: was, now: row.status });
        else if (PASSING.has(row.status as RowStatus) && FAILING.has(was)) comparison.newlyPassing.push({ ...key, before: was, now: row.status });
      }
    }
  }
  // Only projects this run has: the page reports of another family are not "vanished", just not run.
  for (const [text, { key, status }] of before) {
    if (!seen.has(text) && projectsNow.has(key.project)) comparison.vanished.push({ ...key, before: status, now: 'absent' });
  }
  return comparison;
}

/** The terminal lines of a comparison (also in the markdown summary). */
export function comparisonLines(comparison: RunComparison): string[] {
  const rows = (title: string, list: FlippedRow[]): string[] =>
    list.length === 0 ? [] : [`${title} (${list.length}):`, ...list.map((row) => `  ${row.project} ${row.group} › ${row.id} (${row.before} → ${row.now})`)];
  const total = comparison.newlyFailing.length + comparison.newlyPassing.length + comparison.vanished.length;
  return [
    `compared with ${comparison.previous}: ${comparison.newlyFailing.length} newly failing, ${comparison.newlyPassing.length} newly passing, ${comparison.vanished.length} vanished${total === 0 ? ' (no change)' : ''}`,
    ...rows('newly failing', comparison.newlyFailing),
    ...rows('newly passing', comparison.newlyPassing),
    ...rows('vanished', comparison.vanished),
  ];
}
