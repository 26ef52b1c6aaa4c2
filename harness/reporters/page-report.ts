// Our own full record of one matrix project's run, `reports/<project>-page.json`: every group with
// every row's status, fixed labels, party at fault, evidence and kept logs, plus the run's header.
// The HTML page (render-page.ts) is a pure function of these files, so `npm run report` rebuilds it
// from them alone (e.g. after merging shard reports). `<project>.json` keeps the upstream runners'
// shapes; this file is the one that carries everything the page shows.

import { readFileSync } from 'node:fs';

export const PAGE_REPORT_FORMAT = 'ahp-conformance-page-report';

/** A row's status on the page: the verdict, with skips split by why they never ran. */
export const ROW_STATUSES = ['failed', 'expected-failure', 'unsupported', 'skipped', 'passed', 'inapplicable'] as const;
export type RowStatus = (typeof ROW_STATUSES)[number];

/** Worst first: a cell shows the worst status among its rows. */
export function worstStatus(statuses: Iterable<RowStatus>): RowStatus {
  let worst = ROW_STATUSES.length - 1;
  let any = false;
  for (const status of statuses) {
    any = true;
    worst = Math.min(worst, ROW_STATUSES.indexOf(status));
  }
  return any ? ROW_STATUSES[worst]! : 'skipped';
}

export interface Finding {
  /** The fixed `stage/kind` (or rule) label. */
  label: string;
  /** `client`, `server`, `client or server`, `harness`; `unknown` when the evidence names none. */
  party: string;
  message: string;
}

export interface PageRow {
  id: string;
  status: RowStatus;
  /** The adapter's own status for the row (never trusted, shown for context). */
  adapterStatus: string;
  labels: string[];
  findings: Finding[];
  /** The verifier's evidence (the diff and every fault line) of a failed row. */
  evidence?: string;
  /** Kept logs of the row's run, relative to the reports directory. */
  logs: string[];
  /** What the baseline made of the row: an expected failure, a stale exact entry, a wildcard-listed pass. */
  baseline?: { state: 'expected-failure' | 'stale' | 'listed-passed'; reason: string };
  /** Why the row never ran (inapplicable, unsupported, not in this group's transport). */
  skipReason?: string;
  /** Requirement IDs the scenario row names; null: the scenario file does not say (unmapped). */
  requirements: string[] | null;
}

export interface PageGroup {
  label: string;
  server: string;
  client: string;
  transport: string;
  auth: string;
  status: RowStatus;
  counts: Record<RowStatus, number>;
  notes: string[];
  rows: PageRow[];
}

export interface PageProbe {
  server: string;
  auth: string;
  probe: string;
  label: string;
  status: RowStatus;
  error?: string;
  reason?: string;
}

export interface PageAdapter {
  name: string;
  language: string;
  /** The SDK's version, when its adapter.json says (`version` or `sdkVersion`). */
  version?: string;
}

export interface PageRunHeader {
  /** Absolute config file. */
  config: string;
  /** The command that reproduces the run (environment the harness reads, then the vitest call). */
  command: string;
  startedAt: string;
  durationMs: number;
  adapters: PageAdapter[];
  /** The scenario file the project ran, when it has one. */
  scenarioFile?: string;
  baseline: string | null;
  blind: boolean;
}

export interface PageReport {
  format: typeof PAGE_REPORT_FORMAT;
  version: 1;
  project: string;
  /** What the grid's rows and columns are called: servers/clients, or receivers/senders. */
  axes: { rows: string; columns: string };
  run: PageRunHeader;
  groups: PageGroup[];
  probes: PageProbe[];
  /** Wildcard baseline entries every listed row of which passed: they fail the run. */
  staleBaseline: Array<{ group: string; id: string; reason: string; project?: string }>;
}

/** A page report that cannot be read; names the file, the field and what was expected. */
export class PageReportError extends Error {
  override readonly name = 'PageReportError';
  constructor(
    readonly file: string,
    readonly field: string,
    problem: string,
  ) {
    super(`${file}: ${field ? `${field}: ` : ''}${problem}`);
  }
}

/** Reads and checks one page report file (the checks cover what the renderer relies on). */
export function readPageReport(file: string): PageReport {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new PageReportError(file, '', missing ? 'missing: expected a page report written by a matrix run (reports/<project>-page.json)' : `cannot read it (${(error as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PageReportError(file, '', `not valid JSON (${(error as Error).message})`);
  }
  return checkPageReport(value, file);
}

export function checkPageReport(value: unknown, file: string): PageReport {
  const fail = (field: string, problem: string): never => {
    throw new PageReportError(file, field, problem);
  };
  const object = (v: unknown, field: string, what: string): Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : fail(field, `expected ${what}, got ${describe(v)}`);
  const array = (v: unknown, field: string, what: string): unknown[] => (Array.isArray(v) ? v : fail(field, `expected an array of ${what}, got ${describe(v)}`));
  const string = (v: unknown, field: string): string => (typeof v === 'string' ? v : fail(field, `expected a string, got ${describe(v)}`));
  const status = (v: unknown, field: string): RowStatus =>
    ROW_STATUSES.includes(v as RowStatus) ? (v as RowStatus) : fail(field, `expected one of ${ROW_STATUSES.join(', ')}, got ${describe(v)}`);

  const top = object(value, '', `a page report object {format: "${PAGE_REPORT_FORMAT}", version: 1, ...}`);
  if (top.format !== PAGE_REPORT_FORMAT) fail('format', `expected "${PAGE_REPORT_FORMAT}", got ${describe(top.format)}`);
  if (top.version !== 1) fail('version', `expected 1, got ${describe(top.version)}`);
  string(top.project, 'project');
  const axes = object(top.axes, 'axes', 'an object {rows, columns}');
  string(axes.rows, 'axes.rows');
  string(axes.columns, 'axes.columns');
  const run = object(top.run, 'run', 'the run header object');
  for (const key of ['config', 'command', 'startedAt']) string(run[key], `run.${key}`);
  if (typeof run.durationMs !== 'number') fail('run.durationMs', `expected milliseconds, got ${describe(run.durationMs)}`);
  array(run.adapters, 'run.adapters', '{name, language, version?}').forEach((adapter, i) => {
    const entry = object(adapter, `run.adapters[${i}]`, 'an object {name, language, version?}');
    string(entry.name, `run.adapters[${i}].name`);
    string(entry.language, `run.adapters[${i}].language`);
  });
  array(top.groups, 'groups', 'groups').forEach((group, g) => {
    const at = `groups[${g}]`;
    const entry = object(group, at, 'a group object');
    for (const key of ['label', 'server', 'client', 'transport', 'auth']) string(entry[key], `${at}.${key}`);
    status(entry.status, `${at}.status`);
    object(entry.counts, `${at}.counts`, 'an object of counts by status');
    array(entry.notes, `${at}.notes`, 'strings');
    array(entry.rows, `${at}.rows`, 'rows').forEach((row, r) => {
      const rowAt = `${at}.rows[${r}]`;
      const item = object(row, rowAt, 'a row object');
      string(item.id, `${rowAt}.id`);
      status(item.status, `${rowAt}.status`);
      array(item.labels, `${rowAt}.labels`, 'label strings');
      array(item.findings, `${rowAt}.findings`, '{label, party, message}');
      array(item.logs, `${rowAt}.logs`, 'relative log paths');
      if (item.requirements !== null) array(item.requirements, `${rowAt}.requirements`, 'requirement IDs (or null: unmapped)');
    });
  });
  array(top.probes, 'probes', 'receiver probes').forEach((probe, p) => status(object(probe, `probes[${p}]`, 'a probe object').status, `probes[${p}].status`));
  array(top.staleBaseline, 'staleBaseline', 'baseline entries');
  return value as PageReport;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing (missing)';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
