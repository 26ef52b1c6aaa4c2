// Builds the page and the coverage files from page reports on disk: reports/index.html,
// requirements.md and requirements.json. Shared by the matrix reporter (after every run of a
// matrix project) and `npm run report` (from JSON alone, also several shards' reports at once).

import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { REQUIREMENTS } from '../requirements/requirement-table.ts';
import { compareRuns, pageReportFiles, readPreviousStatuses, type RunComparison } from './compare-runs.ts';
import { PageReportError, readPageReport, type PageReport } from './page-report.ts';
import { renderPage } from './render-page.ts';
import { coverageMarkdown, requirementCoverage } from './requirement-coverage.ts';

export interface WrittenPage {
  page: string;
  reports: PageReport[];
  comparison?: RunComparison;
}

/** Every page report of the inputs (reports directories or page report files), one per project: shards of a project merge. */
export function loadPageReports(inputs: readonly string[]): PageReport[] {
  const files = inputs.flatMap((input) => {
    if (!existsSync(input)) throw new PageReportError(input, '', 'missing: expected a reports directory or a <project>-page.json file');
    if (!statSync(input).isDirectory()) return [input];
    const found = pageReportFiles(input);
    if (found.length === 0) throw new PageReportError(input, '', 'holds no <project>-page.json: expected the reports directory of a matrix run (core, lifecycle, catalogue or isolation)');
    return found;
  });
  const byProject = new Map<string, PageReport>();
  for (const file of files) {
    const report = readPageReport(file);
    const known = byProject.get(report.project);
    byProject.set(report.project, known ? mergeShards(known, report) : report);
  }
  return [...byProject.values()];
}

/** Two shards' reports of one project: their groups together (a group in both: the later one), the longer duration. */
function mergeShards(a: PageReport, b: PageReport): PageReport {
  const groups = new Map(a.groups.map((group) => [group.label, group]));
  for (const group of b.groups) groups.set(group.label, group);
  const adapters = new Map([...a.run.adapters, ...b.run.adapters].map((adapter) => [adapter.name, adapter]));
  return {
    ...a,
    run: { ...a.run, durationMs: Math.max(a.run.durationMs, b.run.durationMs), adapters: [...adapters.values()] },
    groups: [...groups.values()],
    probes: [...a.probes, ...b.probes],
    staleBaseline: [...a.staleBaseline, ...b.staleBaseline],
  };
}

/** Renders the page of `reports` (compared with `compare` when given) into `outDir`. */
export function writePage(outDir: string, reports: PageReport[], compare?: string): WrittenPage {
  const comparison = compare === undefined ? undefined : compareRuns(compare, readPreviousStatuses(compare), reports);
  const coverage = requirementCoverage(REQUIREMENTS, reports);
  mkdirSync(outDir, { recursive: true });
  const page = path.join(outDir, 'index.html');
  writeAtomically(page, renderPage({ reports, coverage, ...(comparison ? { comparison } : {}) }));
  writeAtomically(path.join(outDir, 'requirements.md'), coverageMarkdown(coverage));
  writeAtomically(path.join(outDir, 'requirements.json'), `${JSON.stringify({ version: 1, ...coverage }, null, 2)}\n`);
  return { page, reports, ...(comparison ? { comparison } : {}) };
}

export function writeAtomically(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, file);
}
