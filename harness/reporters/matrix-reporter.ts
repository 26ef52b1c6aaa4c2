import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node';
import type { BaselineEntry } from '../baseline/baseline.ts';
import { elicitationCaseFile, loadConfig, type ResolvedConfig } from '../config/load-config.ts';
import type { MatrixRowMeta } from '../setup/grouped-suite.ts';
import type { ReceiverProbeMeta } from '../lifecycle-adapters/receiver-probe-suite.ts';
import type { BaselineMeta } from '../baseline/apply-baseline.ts';
import { updatingBaseline } from '../baseline/baseline.ts';
import { rewriteBaseline, staleWildcardEntries } from '../baseline/rewrite.ts';
import { buildPageReport, rowStatus, type RecordedRow } from './build-page-report.ts';
import { comparisonLines } from './compare-runs.ts';
import { PageReportError, type PageReport } from './page-report.ts';
import { adaptersOf, configShown, reproduceCommand } from './run-header.ts';
import { loadPageReports, writeAtomically, writePage } from './write-page.ts';
import { suiteOfProject } from '../setup/project-suite.ts';
import { FAMILIES } from '../families/family.ts';
import { elicitationJson } from './elicitation-json.ts';
import { groupAxes } from './group-axes.ts';

type GroupStatus = 'passed' | 'failed' | 'skipped' | 'inapplicable' | 'unsupported';
/** `expected-failure`: a failing row the known-failure baseline lists (it does not fail the run). */
type Verdict = 'passed' | 'failed' | 'skipped' | 'expected-failure';

interface RowReport {
  id: string;
  expected: unknown;
  actual: unknown;
  status: Verdict;
  adapterStatus: string;
  errors: string[];
  skipReason?: string;
  /** The baseline's reason, for an expected failure. */
  reason?: string;
  category?: string;
  details?: Record<string, unknown>;
}

interface GroupReport {
  /** The planner's position of the group: reports list groups in this order. */
  rank: number;
  client: string;
  server: string;
  transport: string;
  auth: string;
  status: GroupStatus;
  errors: string[];
  results: RowReport[];
  counts: Record<Verdict, number>;
  /** `full`: receipts plus the responses the client was handed; `receipts-only` says why in `notes`. */
  evidence?: 'full' | 'receipts-only';
  notes?: string[];
  /** The group's client runs added up (ms), and how many the scheduler made of it; absent when it never ran. */
  durationMs?: number;
  clientRuns?: number;
}

interface ProbeReport {
  server: string;
  auth: string;
  probe: string;
  label: string;
  status: Verdict;
  error?: string;
  reason?: string;
}

/**
 * Adds artifacts to vitest's own output for every matrix project that ran (`core`, `lifecycle`,
 * ...): `reports/<project>-matrix.md`, a pairing × transport × auth summary that is also printed,
 * `reports/<project>.json` in the shape the protocol's own runner of that family writes — the
 * Python matrix runner's for core, the lifecycle runner's group rows for lifecycle — so existing
 * tooling can read our results (errors are fixed labels, never raw adapter output), and
 * `reports/<project>-page.json`, the full record the HTML page is rendered from. Then it renders
 * `reports/index.html` from every page report in the directory (so each family's run adds its
 * section) with requirements.md/.json, compared with a previous run when the config says so.
 */
export default class MatrixReporter implements Reporter {
  private vitest: Vitest | undefined;
  /** Rows the baseline touched, and failing rows it did not: for wildcard staleness and update runs. */
  private baselineSeen: SeenRow[] = [];
  private startedAt = new Date();

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunStart(): void {
    this.startedAt = new Date();
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    this.baselineSeen = [];
    const groupsByProject = new Map<string, Map<string, GroupReport>>();
    const probesByProject = new Map<string, ProbeReport[]>();
    const pageRows = new Map<string, RecordedRow[]>();
    for (const module of testModules) {
      for (const testCase of module.children.allTests()) {
        const state = testCase.result().state;
        if (state === 'pending') continue; // not selected in this run
        const raw: Verdict = state === 'passed' ? 'passed' : state === 'failed' ? 'failed' : 'skipped';
        const row = testCase.meta().ahpMatrix as MatrixRowMeta | undefined;
        const probe = testCase.meta().ahpProbe as ReceiverProbeMeta | undefined;
        const listed = testCase.meta().ahpBaseline as BaselineMeta | undefined;
        const verdict: Verdict = listed?.state?.state === 'expected-failure' && raw === 'skipped' ? 'expected-failure' : raw;
        // The baseline's reason, for an expected failure: the test's ahpBaseline meta is the one record of it.
        const reason = verdict === 'expected-failure' ? listed?.state?.reason : undefined;
        if (row) {
          const suite = suiteOfProject(testCase.project.name);
          addRow(groupsByProject, suite, row, verdict, reason);
          const recorded = pageRows.get(suite) ?? [];
          pageRows.set(suite, recorded);
          recorded.push({ meta: row, verdict, ...(listed?.state ? { baseline: listed.state } : {}) });
        }
        if (probe) addProbe(probesByProject, testCase, probe, verdict, reason);
        if (listed && (listed.state !== undefined || raw === 'failed')) this.baselineSeen.push({ ...listed, verdict });
      }
    }
    const projects = new Set([...groupsByProject.keys(), ...probesByProject.keys()]);
    const config = await loadConfig();
    const stale = config.baseline !== null && !updatingBaseline() ? staleWildcardEntries(this.baselineSeen) : [];
    for (const project of projects) {
      // The planner's order, whatever order the (possibly sharded and merged) files reported in.
      const groups = [...(groupsByProject.get(project)?.values() ?? [])].sort((a, b) => a.rank - b.rank);
      const probes = probesByProject.get(project) ?? [];
      this.write(config.reports, project, groups, probes);
      if (pageRows.has(project)) this.writePageReport(config, project, pageRows.get(project)!, probes, this.staleOf(stale, project));
    }
    if (pageRows.size > 0) this.renderPage(config);
    if (config.baseline !== null) this.finishBaseline(config.baseline, [...new Set(testModules.map((module) => suiteOfProject(module.project.name)))]);
  }

  /** Stale wildcard entries that listed rows of `project`. */
  private staleOf(stale: BaselineEntry[], project: string): BaselineEntry[] {
    return stale.filter((entry) => this.baselineSeen.some((row) => row.project === project && row.state?.entry === entry));
  }

  private writePageReport(config: ResolvedConfig, project: string, rows: RecordedRow[], probes: ProbeReport[], stale: BaselineEntry[]): void {
    const scenarioFile = project === 'elicitation' ? elicitationCaseFile(config) : config.scenarios[project];
    const report: PageReport = buildPageReport({
      project,
      run: {
        config: configShown(config),
        command: reproduceCommand(),
        startedAt: this.startedAt.toISOString(),
        durationMs: Date.now() - this.startedAt.getTime(),
        adapters: adaptersOf(config),
        ...(scenarioFile ? { scenarioFile } : {}),
        baseline: config.baseline,
        blind: config.blind,
      },
      rows: [...rows].sort((a, b) => a.meta.groupRank - b.meta.groupRank),
      probes: probes.map((probe) => ({ ...probe, status: rowStatus(probe.status, 'missing') })),
      staleBaseline: stale,
      reportsDir: config.reports,
    });
    writeAtomically(path.join(config.reports, `${project}-page.json`), `${JSON.stringify(report, null, 2)}\n`);
  }

  /** index.html from every page report in the reports directory; a comparison is printed too. */
  private renderPage(config: ResolvedConfig): void {
    const log = (text: string): void => (this.vitest?.logger ? this.vitest.logger.log(text) : void process.stdout.write(`${text}\n`));
    try {
      const written = writePage(config.reports, loadPageReports([config.reports]), config.compare ?? undefined);
      const relative = path.relative(process.cwd(), config.reports);
      const dir = relative === '' ? '.' : relative.startsWith('..') ? config.reports : relative;
      log(`matrix page: ${written.page} (open it in a browser; \`npm run report -- ${dir}\` rebuilds it from the JSON)`);
      if (written.comparison) log(`\n${comparisonLines(written.comparison).join('\n')}\n`);
    } catch (error) {
      if (!(error instanceof PageReportError)) throw error;
      log(`\nmatrix page not written: ${error.message}`);
      process.exitCode = 1;
    }
  }

  /**
   * Wildcard entries are stale when every row they list that ran passed; an update run rewrites the
   * file from what ran (harness/baseline/rewrite.ts). A stale entry fails the run.
   */
  private finishBaseline(file: string, projectsRun: string[]): void {
    const log = (text: string): void => (this.vitest?.logger ? this.vitest.logger.log(text) : void process.stdout.write(`${text}\n`));
    if (updatingBaseline()) {
      const summary = rewriteBaseline(file, projectsRun, this.baselineSeen);
      log(`\nbaseline ${file} rewritten: ${summary.kept} entr${summary.kept === 1 ? 'y' : 'ies'} kept, ${summary.added} added, ${summary.removed} removed`);
      return;
    }
    const stale = staleWildcardEntries(this.baselineSeen);
    if (stale.length === 0) return;
    for (const entry of stale) {
      log(`\nstale baseline entry: ${JSON.stringify(entry)} lists rows that all passed in this run — remove it from the baseline ${file}, or run \`npm run baseline\``);
    }
    process.exitCode = 1;
  }

  private write(dir: string, project: string, groups: GroupReport[], probes: ProbeReport[]): void {
    for (const group of groups) group.status = groupStatus(group);
    mkdirSync(dir, { recursive: true });
    const shape = FAMILIES.find((family) => family.name === project)?.reportShape ?? 'lifecycle';
    const json =
      shape === 'core'
        ? coreJson(groups)
        : shape === 'isolation'
          ? isolationJson(groups)
          : shape === 'compaction'
            ? compactionJson(groups)
            : shape === 'elicitation'
              ? elicitationJson(groups)
              : familyJson(project, groups, probes);
    writeAtomically(path.join(dir, `${project}.json`), `${JSON.stringify(json, null, 2)}\n`);
    const markdown = renderMarkdown(project, groups, probes);
    writeAtomically(path.join(dir, `${project}-matrix.md`), markdown);
    const text = `\n${markdown}(written to ${path.join(dir, `${project}-matrix.md`)} and ${project}.json beside it)\n`;
    const log = this.vitest?.logger;
    if (log) log.log(text);
    else process.stdout.write(text);
  }
}

type SeenRow = BaselineMeta & { verdict: Verdict };

/**
 * The sender-isolation runner's rows (SENDER-ISOLATION-RULES §7): per case whether it passed, how many
 * uploads reached the independent origin, and whether credential isolation is credited (only with
 * exactly one correct capture and a passing event path).
 */
function isolationJson(groups: GroupReport[]): unknown {
  const results = groups.map((group) => {
    const row = group.results[0];
    const details = row?.details ?? {};
    return {
      group: `${group.client}->${group.server}/${group.transport}/${group.auth}`,
      status: group.status,
      passed: group.status === 'passed',
      independentUploads: typeof details.independentUploads === 'number' ? details.independentUploads : 0,
      credentialIsolationVerified: details.credentialIsolationVerified === true && group.status === 'passed',
      errors: group.errors,
      ...timeOf(group),
    };
  });
  return {
    version: 1,
    suite: 'isolation',
    summary: {
      groups: results.length,
      passed: results.filter((row) => row.passed).length,
      independentUploads: results.reduce((sum, row) => sum + row.independentUploads, 0),
      verifiedCredentialIsolation: results.filter((row) => row.credentialIsolationVerified).length,
      scope: 'Each configured SDK as sender against its own receiver, an independent HTTP upload origin with upload auth absent; four HTTP event auth modes and the HTTP and stdio controls. Does not prove HTTPS client-certificate noninheritance.',
    },
    results,
  };
}

/**
 * The compaction wire runner's report (COMPACTION-RULES §11), one row per pair that ran: a pass
 * counts its cases, the exchanges they made and the receiver rejections the probe saw; a failure
 * carries its first failing row's reason. Our rows add the auth mode, the label list and every row's
 * verdict. A pair planned unsupported is listed as such with its reason, never as a pass.
 */
function compactionJson(groups: GroupReport[]): unknown {
  const results = groups.map((group) => {
    const ran = group.results.filter((row) => row.status !== 'skipped');
    const base = { sender: group.client, receiver: group.server, transport: group.transport, auth: group.auth };
    const rows = group.results.map(({ id, status, errors, category }) => ({ id, status, ...(category ? { category } : {}), errors }));
    if (ran.length === 0) return { ...base, status: group.status, reason: group.results[0]?.skipReason ?? 'no row ran', rows };
    const failed = ran.find((row) => row.status === 'failed');
    if (failed) return { ...base, status: 'failed', error: `${failed.id}: ${failed.reason ?? failed.errors.join(', ')}`, errors: group.errors, rows };
    const cases = ran.filter((row) => row.category !== 'probe');
    const exchanges = cases.reduce((sum, row) => sum + exchangeCount(row.expected), 0);
    return { ...base, status: 'passed', scenarios: cases.length, canonicalExchanges: exchanges, receiverRejections: ran.length - cases.length, rows };
  });
  const ran = results.filter((row) => row.status === 'passed' || row.status === 'failed');
  return {
    canonicalMethod: 'hooks/intercept',
    content: 'canonical inline text-part arrays; no attachment upload',
    offline: true,
    results,
    passed: ran.filter((row) => row.status === 'passed').length,
    total: ran.length,
  };
}

function exchangeCount(expected: unknown): number {
  const exchanges = typeof expected === 'object' && expected !== null ? (expected as { exchanges?: unknown }).exchanges : undefined;
  return Array.isArray(exchanges) ? exchanges.length : 0;
}

function addRow(byProject: Map<string, Map<string, GroupReport>>, project: string, meta: MatrixRowMeta, verdict: Verdict, reason: string | undefined): void {
  const groups = byProject.get(project) ?? new Map<string, GroupReport>();
  byProject.set(project, groups);
  const group = groups.get(meta.group) ?? newGroup(meta);
  groups.set(meta.group, group);
  group.counts[verdict]++;
  group.results.push({
    id: meta.id,
    expected: meta.expected,
    actual: meta.actual,
    status: verdict,
    adapterStatus: meta.adapterStatus,
    errors: meta.errors,
    ...(meta.skipReason === undefined ? {} : { skipReason: meta.skipReason }),
    ...(reason === undefined ? {} : { reason }),
    ...(meta.category === undefined ? {} : { category: meta.category }),
    ...(meta.details === undefined ? {} : { details: meta.details }),
  });
  if (meta.evidenceNote !== undefined) {
    group.evidence = 'receipts-only';
    group.notes = [...new Set([...(group.notes ?? []), meta.evidenceNote])];
  } else if (meta.verdict !== 'skipped') {
    group.evidence ??= 'full';
  }
  for (const label of meta.errors) if (!group.errors.includes(label)) group.errors.push(label);
  if (meta.groupDurationMs !== undefined) group.durationMs = Math.max(group.durationMs ?? 0, meta.groupDurationMs);
  if (meta.groupRuns !== undefined) group.clientRuns = Math.max(group.clientRuns ?? 0, meta.groupRuns);
}

function addProbe(byProject: Map<string, ProbeReport[]>, testCase: TestCase, meta: ReceiverProbeMeta, verdict: Verdict, reason: string | undefined): void {
  const probes = byProject.get(meta.project) ?? [];
  byProject.set(meta.project, probes);
  const error = testCase.result().errors?.[0]?.message;
  probes.push({
    server: meta.server,
    auth: meta.auth,
    probe: meta.probe,
    label: meta.label,
    status: verdict,
    ...(verdict === 'failed' && error ? { error: firstProblemLine(error) } : {}),
    ...(reason === undefined ? {} : { reason }),
  });
}

/** The probe's own problem line (`<label>: expected …`), not the test-name header above it. */
function firstProblemLine(message: string): string {
  return message.split('\n').find((line) => line.includes(': expected ') || line.includes('[')) ?? message.split('\n')[0] ?? message;
}

function newGroup(meta: MatrixRowMeta): GroupReport {
  return {
    rank: meta.groupRank,
    ...groupAxes(meta),
    status: 'passed',
    errors: [],
    results: [],
    counts: { passed: 0, failed: 0, skipped: 0, 'expected-failure': 0 },
  };
}

/** The Python matrix runner's shape; errors as `{stage, kind}` of the `stage/kind` labels. */
function coreJson(groups: GroupReport[]): unknown {
  const rows = groups.flatMap((group) => group.results);
  return {
    version: 1,
    scenarioCount: new Set(rows.map((row) => row.id)).size,
    summary: { groups: tally(groups.map((group) => group.status)), scenarios: tally(rows.map((row) => row.status)) },
    groups: groups.map((group) => ({
      client: group.client,
      server: group.server,
      transport: group.transport,
      auth: group.auth,
      status: group.status,
      errors: group.errors.map((label) => {
        const [stage = 'run', kind = 'unknown'] = label.split('/');
        return { stage, kind };
      }),
      ...(group.evidence ? { evidence: group.evidence } : {}),
      ...(group.notes ? { notes: group.notes } : {}),
      ...timeOf(group),
      results: group.results.map(({ id, expected, actual, status, adapterStatus, reason }) => ({ id, expected, actual, status, adapterStatus, ...(reason ? { reason } : {}) })),
    })),
  };
}

/**
 * The lifecycle runner's group rows (LIFECYCLE-RULES §1: `{group, passed, scenarios, receiverProbes,
 * errors, diagnostics, inapplicable}`), with our per-scenario verdicts in `scenarios` and the group's
 * coordinates beside them. Receiver probes run per server and mode; each HTTP group lists those of
 * its server and mode.
 */
function familyJson(project: string, groups: GroupReport[], probes: ProbeReport[]): unknown {
  const rows = groups.flatMap((group) => group.results);
  return {
    version: 1,
    suite: project,
    scenarioCount: new Set(rows.map((row) => row.id)).size,
    summary: {
      groups: tally(groups.map((group) => group.status)),
      scenarios: tally(rows.map((row) => row.status)),
      receiverProbes: tally(probes.map((probe) => probe.status)),
      ...categorySummary(groups),
    },
    groups: groups.map((group) => {
      const inapplicable = group.results.filter((row) => row.adapterStatus === 'inapplicable' && group.status !== 'inapplicable');
      const ownProbes = group.transport === 'http' ? probes.filter((probe) => probe.server === group.server && probe.auth === group.auth) : [];
      return {
        group: `${group.client}->${group.server}/${group.transport}/${group.auth}`,
        client: group.client,
        server: group.server,
        transport: group.transport,
        auth: group.auth,
        status: group.status,
        passed: group.status === 'passed' && ownProbes.every((probe) => probe.status !== 'failed'),
        scenarios: group.results
          .filter((row) => !inapplicable.includes(row))
          .map(({ id, status, adapterStatus, expected, actual, errors, reason, category }) => ({
            id,
            ...(category ? { category } : {}),
            status,
            adapterStatus,
            expected,
            actual,
            errors,
            ...(reason ? { reason } : {}),
          })),
        receiverProbes: ownProbes.map(({ probe, label, status, error, reason }) => ({ probe, label, status, ...(error ? { error } : {}), ...(reason ? { reason } : {}) })),
        errors: group.errors,
        diagnostics: group.notes ?? [],
        ...timeOf(group),
        inapplicable: inapplicable.map((row) => ({ id: row.id, status: 'inapplicable', transport: group.transport, reason: row.skipReason ?? 'inapplicable' })),
      };
    }),
    ...(probes.length > 0 ? { receiverProbes: probes } : {}),
  };
}

/**
 * Per category (the catalogue's execution, lineage, registration): the rows of the file, and the rows
 * verified — rows passed summed over the groups, like the catalogue runner's verified executions.
 */
function categorySummary(groups: GroupReport[]): Record<string, unknown> {
  const rows = groups.flatMap((group) => group.results).filter((row) => row.category !== undefined);
  if (rows.length === 0) return {};
  const categoryScenarios: Record<string, number> = {};
  const categoryVerifiedExecutions: Record<string, number> = {};
  const ids = new Map<string, string>();
  for (const row of rows) ids.set(row.id, row.category!);
  for (const category of ids.values()) categoryScenarios[category] = (categoryScenarios[category] ?? 0) + 1;
  for (const row of rows) {
    categoryVerifiedExecutions[row.category!] ??= 0;
    if (row.status === 'passed') categoryVerifiedExecutions[row.category!]! += 1;
  }
  return { categoryScenarios, categoryVerifiedExecutions };
}

function groupStatus(group: GroupReport): GroupStatus {
  if (group.counts.failed > 0) return 'failed';
  if (group.counts.passed > 0 || group.counts['expected-failure'] > 0) return 'passed';
  if (group.results.every((row) => row.adapterStatus === 'inapplicable')) return 'inapplicable';
  if (group.results.every((row) => row.adapterStatus === 'unsupported')) return 'unsupported';
  return 'skipped';
}

function tally(values: string[]): Record<string, number> {
  const counts: Record<string, number> = { total: values.length };
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

function renderMarkdown(project: string, groups: GroupReport[], probes: ProbeReport[]): string {
  // Elicitation pairs are named sender first (the client sends to the server's receiver).
  const senderFirst = project === 'elicitation';
  const lines = [
    `## ${project} matrix`,
    '',
    `| ${senderFirst ? 'sender → receiver' : 'server → client'} | transport | auth | status | passed | failed | expected failures | skipped |`,
    '| --- | --- | --- | --- | ---: | ---: | ---: | ---: |',
    ...groups.map(
      (g) =>
        `| ${senderFirst ? `${g.client} → ${g.server}` : `${g.server} → ${g.client}`} | ${g.transport} | ${g.auth} | ${g.status} | ${g.counts.passed} | ${g.counts.failed} | ${g.counts['expected-failure']} | ${g.counts.skipped} |`,
    ),
    '',
  ];
  const categories = [...new Set(groups.flatMap((group) => group.results.map((row) => row.category)).filter((c): c is string => c !== undefined))];
  if (categories.length > 0) {
    lines.push('| category | passed | failed | expected failures | skipped |', '| --- | ---: | ---: | ---: | ---: |');
    for (const category of categories) {
      const mine = groups.flatMap((group) => group.results).filter((row) => row.category === category);
      const count = (status: Verdict): number => mine.filter((row) => row.status === status).length;
      lines.push(`| ${category} | ${count('passed')} | ${count('failed')} | ${count('expected-failure')} | ${count('skipped')} |`);
    }
    lines.push('');
  }
  if (probes.length > 0) {
    const servers = [...new Set(probes.map((probe) => `${probe.server} ${probe.auth}`))];
    lines.push('| receiver probes (server, mode) | passed | failed | skipped |', '| --- | ---: | ---: | ---: |');
    for (const key of servers) {
      const mine = probes.filter((probe) => `${probe.server} ${probe.auth}` === key);
      const count = (status: Verdict): number => mine.filter((probe) => probe.status === status).length;
      lines.push(`| ${key} | ${count('passed')} | ${count('failed')} | ${count('skipped')} |`);
    }
    lines.push('');
  }
  lines.push(...slowestGroups(groups));
  return `${lines.join('\n')}\n`;
}

/** A group's run time for the JSON reports, when it ran. */
function timeOf(group: GroupReport): { durationMs?: number; clientRuns?: number } {
  return group.durationMs === undefined ? {} : { durationMs: group.durationMs, ...(group.clientRuns === undefined ? {} : { clientRuns: group.clientRuns }) };
}

/** How many of the slowest groups the summary names. */
const SLOWEST_SHOWN = 3;

/** The summary's line on where the run's time went: the slowest groups, their share and their client runs. */
function slowestGroups(groups: GroupReport[]): string[] {
  const timed = groups.filter((group): group is GroupReport & { durationMs: number } => group.durationMs !== undefined);
  if (timed.length === 0) return [];
  const total = timed.reduce((sum, group) => sum + group.durationMs, 0);
  const slowest = [...timed].sort((a, b) => b.durationMs - a.durationMs).slice(0, SLOWEST_SHOWN);
  const shown = slowest.map((group) => {
    const runs = (group.clientRuns ?? 1) > 1 ? `, ${group.clientRuns} client runs` : '';
    return `${group.server} → ${group.client} ${group.transport}/${group.auth} ${(group.durationMs / 1000).toFixed(1)} s (${Math.round((group.durationMs / Math.max(1, total)) * 100)} %${runs})`;
  });
  return [`Slowest groups (client run time, ${(total / 1000).toFixed(1)} s in all): ${shown.join('; ')}`, ''];
}
