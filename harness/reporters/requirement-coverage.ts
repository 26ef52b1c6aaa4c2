// Requirement coverage of a run: for every ID of our requirement table, the rows that name it and
// how they did, and the IDs no reported row names (gaps). Rows of scenario files without a
// `requirements` field are counted as unmapped, per project, never guessed.

import type { Requirement, RequirementLevel } from '../requirements/requirement-table.ts';
import type { PageReport, RowStatus } from './page-report.ts';

export interface RequirementCoverage {
  id: string;
  level: RequirementLevel;
  summary: string;
  /** `failing`: some row naming it failed; `passing`: rows passed and none failed; `not run`: named only by rows that did not run; `gap`: no row names it. */
  status: 'failing' | 'passing' | 'not run' | 'gap';
  /** Row verdicts summed over the groups, by status. */
  counts: Partial<Record<RowStatus, number>>;
  /** The rows (project › id) that name it, each with its statuses over the groups. */
  rows: Array<{ project: string; id: string; statuses: Partial<Record<RowStatus, number>> }>;
}

export interface CoverageReport {
  requirements: RequirementCoverage[];
  gaps: string[];
  /** Distinct scenario rows without a `requirements` field, per project. */
  unmapped: Record<string, number>;
  /** Distinct scenario rows that name at least one requirement, per project. */
  mapped: Record<string, number>;
  /** IDs rows name that our table does not have (a newer scenario file, a typo). */
  unknownIds: string[];
}

export function requirementCoverage(table: readonly Requirement[], reports: readonly PageReport[]): CoverageReport {
  const byId = new Map<string, Map<string, Partial<Record<RowStatus, number>>>>();
  const unmapped: Record<string, Set<string>> = {};
  const mapped: Record<string, Set<string>> = {};
  const known = new Set(table.map((entry) => entry.id));
  const unknownIds = new Set<string>();
  for (const report of reports) {
    for (const group of report.groups) {
      for (const row of group.rows) {
        if (row.requirements === null) {
          (unmapped[report.project] ??= new Set()).add(row.id);
          continue;
        }
        (mapped[report.project] ??= new Set()).add(row.id);
        for (const id of row.requirements) {
          if (!known.has(id)) unknownIds.add(id);
          const rows = byId.get(id) ?? new Map<string, Partial<Record<RowStatus, number>>>();
          byId.set(id, rows);
          const key = `${report.project} › ${row.id}`;
          const statuses = rows.get(key) ?? {};
          statuses[row.status] = (statuses[row.status] ?? 0) + 1;
          rows.set(key, statuses);
        }
      }
    }
  }
  const requirements = table.map((entry): RequirementCoverage => {
    const rows = [...(byId.get(entry.id) ?? new Map<string, Partial<Record<RowStatus, number>>>())].map(([key, statuses]) => {
      const [project = '', id = ''] = key.split(' › ');
      return { project, id, statuses };
    });
    const counts: Partial<Record<RowStatus, number>> = {};
    for (const row of rows) for (const [status, n] of Object.entries(row.statuses)) counts[status as RowStatus] = (counts[status as RowStatus] ?? 0) + n;
    const status = rows.length === 0 ? 'gap' : (counts.failed ?? 0) > 0 ? 'failing' : (counts.passed ?? 0) + (counts['expected-failure'] ?? 0) > 0 ? 'passing' : 'not run';
    return { id: entry.id, level: entry.level, summary: entry.summary, status, counts, rows };
  });
  const sizes = (sets: Record<string, Set<string>>): Record<string, number> => Object.fromEntries(Object.entries(sets).map(([project, ids]) => [project, ids.size]));
  return {
    requirements,
    gaps: requirements.filter((entry) => entry.status === 'gap').map((entry) => entry.id),
    unmapped: sizes(unmapped),
    mapped: sizes(mapped),
    unknownIds: [...unknownIds].sort(),
  };
}

/** `reports/requirements.md`: one line per requirement, then the gaps and the unmapped rows. */
export function coverageMarkdown(coverage: CoverageReport): string {
  const count = (counts: Partial<Record<RowStatus, number>>, status: RowStatus): number => counts[status] ?? 0;
  const lines = [
    '## Requirement coverage',
    '',
    '| requirement | level | status | rows | passed | failed | expected failures | summary |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | --- |',
    ...coverage.requirements.map(
      (entry) =>
        `| ${entry.id} | ${entry.level} | ${entry.status} | ${entry.rows.length} | ${count(entry.counts, 'passed')} | ${count(entry.counts, 'failed')} | ${count(entry.counts, 'expected-failure')} | ${entry.summary.replace(/\|/g, '\\|')} |`,
    ),
    '',
    `Gaps (no row exercises them): ${coverage.gaps.length === 0 ? 'none' : coverage.gaps.join(', ')}`,
    '',
    `Unmapped rows (their scenario file names no requirements): ${Object.keys(coverage.unmapped).length === 0 ? 'none' : Object.entries(coverage.unmapped).map(([project, n]) => `${project} ${n}`).join(', ')}`,
  ];
  if (coverage.unknownIds.length > 0) lines.push('', `IDs rows name that the requirement table lacks: ${coverage.unknownIds.join(', ')}`);
  return `${lines.join('\n')}\n`;
}
