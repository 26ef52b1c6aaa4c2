import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { loadConfig } from '../config/load-config.ts';
import type { MatrixRowMeta } from '../setup/matrix-suite.ts';

type GroupStatus = 'passed' | 'failed' | 'skipped' | 'inapplicable' | 'unsupported';

interface GroupReport {
  client: string;
  server: string;
  transport: string;
  auth: string;
  status: GroupStatus;
  /** Fixed `stage/kind` labels only: adapter output can hold credentials. */
  errors: Array<{ stage: string; kind: string }>;
  results: Array<{ id: string; expected: unknown; actual: unknown; status: string; adapterStatus: string }>;
  counts: { passed: number; failed: number; skipped: number };
  /** `full`: receipts plus the responses the client was handed; `receipts-only` says why in `notes`. */
  evidence?: 'full' | 'receipts-only';
  notes?: string[];
}

/**
 * Adds two artifacts to vitest's own output for every matrix project that ran (`core`, ...):
 * `reports/<project>-matrix.md`, a pairing × transport × auth summary that is also printed, and
 * `reports/<project>.json` in the shape the protocol's Python matrix runner writes, so existing
 * tooling can read our results.
 */
export default class MatrixReporter implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    const byProject = new Map<string, Map<string, GroupReport>>();
    for (const module of testModules) {
      for (const testCase of module.children.allTests()) {
        const meta = testCase.meta().ahpMatrix as MatrixRowMeta | undefined;
        if (!meta) continue;
        const state = testCase.result().state;
        if (state === 'pending') continue; // not selected in this run
        const groups = byProject.get(testCase.project.name) ?? new Map<string, GroupReport>();
        byProject.set(testCase.project.name, groups);
        const group = groups.get(meta.group) ?? newGroup(meta);
        groups.set(meta.group, group);
        const verdict = state === 'passed' ? 'passed' : state === 'failed' ? 'failed' : 'skipped';
        group.counts[verdict]++;
        group.results.push({ id: meta.id, expected: meta.expected, actual: meta.actual, status: verdict, adapterStatus: meta.adapterStatus });
        if (meta.evidenceNote !== undefined) {
          group.evidence = 'receipts-only';
          group.notes = [...new Set([...(group.notes ?? []), meta.evidenceNote])];
        } else if (meta.verdict !== 'skipped') {
          group.evidence ??= 'full';
        }
        for (const label of meta.errors) {
          const [stage = 'run', kind = 'unknown'] = label.split('/');
          if (!group.errors.some((e) => e.stage === stage && e.kind === kind)) group.errors.push({ stage, kind });
        }
      }
    }
    if (byProject.size === 0) return;
    const { reports } = await loadConfig();
    for (const [project, groups] of byProject) this.write(reports, project, [...groups.values()]);
  }

  private write(dir: string, project: string, groups: GroupReport[]): void {
    for (const group of groups) group.status = groupStatus(group);
    mkdirSync(dir, { recursive: true });
    const ids = new Set(groups.flatMap((group) => group.results.map((row) => row.id)));
    const rows = groups.flatMap((group) => group.results);
    const json = {
      version: 1,
      scenarioCount: ids.size,
      summary: {
        groups: tally(groups.map((group) => group.status)),
        scenarios: tally(rows.map((row) => row.status)),
      },
      groups: groups.map(({ counts: _counts, ...group }) => group),
    };
    writeAtomically(path.join(dir, `${project}.json`), `${JSON.stringify(json, null, 2)}\n`);
    const markdown = renderMarkdown(project, groups);
    writeAtomically(path.join(dir, `${project}-matrix.md`), markdown);
    const log = this.vitest?.logger;
    const text = `\n${markdown}(written to ${path.join(dir, `${project}-matrix.md`)} and ${project}.json beside it)\n`;
    if (log) log.log(text);
    else process.stdout.write(text);
  }
}

function newGroup(meta: MatrixRowMeta): GroupReport {
  return {
    client: meta.client,
    server: meta.server,
    transport: meta.transport,
    auth: meta.auth,
    status: 'passed',
    errors: [],
    results: [],
    counts: { passed: 0, failed: 0, skipped: 0 },
  };
}

function groupStatus(group: GroupReport): GroupStatus {
  if (group.counts.failed > 0) return 'failed';
  if (group.counts.passed > 0) return 'passed';
  if (group.results.every((row) => row.adapterStatus === 'inapplicable')) return 'inapplicable';
  if (group.results.every((row) => row.adapterStatus === 'unsupported')) return 'unsupported';
  return 'skipped';
}

function tally(values: string[]): Record<string, number> {
  const counts: Record<string, number> = { total: values.length };
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

function renderMarkdown(project: string, groups: GroupReport[]): string {
  const lines = [
    `## ${project} matrix`,
    '',
    '| server → client | transport | auth | status | passed | failed | skipped |',
    '| --- | --- | --- | --- | ---: | ---: | ---: |',
    ...groups.map(
      (g) => `| ${g.server} → ${g.client} | ${g.transport} | ${g.auth} | ${g.status} | ${g.counts.passed} | ${g.counts.failed} | ${g.counts.skipped} |`,
    ),
    '',
  ];
  return `${lines.join('\n')}\n`;
}

function writeAtomically(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, file);
}
