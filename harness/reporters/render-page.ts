// reports/index.html as a pure function of the page reports (page-report.ts), the comparison with a
// previous run and the requirement coverage: the matrix reporter and `npm run report` both call it.
// One section per family; per transport/auth a grid (rows: servers or receivers, columns: clients or
// senders) of cells that are buttons carrying `data-group` and `data-status`, so tests can drive it.

import type { RunComparison } from './compare-runs.ts';
import { keyText } from './compare-runs.ts';
import { PAGE_SCRIPT, PAGE_STYLE } from './page-assets.ts';
import { ROW_STATUSES, type PageGroup, type PageReport, type PageRow, type RowStatus } from './page-report.ts';
import type { CoverageReport } from './requirement-coverage.ts';

export interface PageInput {
  reports: readonly PageReport[];
  comparison?: RunComparison;
  coverage: CoverageReport;
}

/** Symbol and word of each status: the page never says a status by colour alone. */
export const STATUS_TEXT: Record<RowStatus, { symbol: string; word: string }> = {
  passed: { symbol: '✓', word: 'passed' },
  failed: { symbol: '✗', word: 'failed' },
  'expected-failure': { symbol: '!', word: 'expected failure' },
  unsupported: { symbol: '⊘', word: 'unsupported' },
  skipped: { symbol: '○', word: 'skipped' },
  inapplicable: { symbol: '–', word: 'inapplicable' },
};

/** Rows a click on a cell lists: the ones that failed, with or without a baseline entry. */
const LISTED: ReadonlySet<RowStatus> = new Set(['failed', 'expected-failure']);

export function renderPage(input: PageInput): string {
  const flips = flipLabels(input.comparison);
  const body = [
    header(input.reports),
    toolbar(),
    input.comparison ? changes(input.comparison) : '',
    ...input.reports.map((report) => family(report, flips)),
    coverage(input.coverage),
  ].join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>AHP conformance matrix</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
${body}
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

function header(reports: readonly PageReport[]): string {
  const configs = [...new Set(reports.map((report) => report.run.config))];
  const adapters = new Map<string, { language: string; version?: string }>();
  for (const report of reports) for (const adapter of report.run.adapters) adapters.set(adapter.name, adapter);
  const sdks = [...adapters].map(([name, adapter]) => `${esc(name)} (${esc(adapter.language)}${adapter.version ? ` ${esc(adapter.version)}` : ''})`).join(', ');
  const totals = tally(reports.flatMap((report) => report.groups.flatMap((group) => group.rows.map((row) => row.status))));
  return `<header>
<h1>AHP conformance matrix</h1>
<p class="summary">${reports.length === 0 ? 'No matrix project has written a report yet.' : `${reports.length} famil${reports.length === 1 ? 'y' : 'ies'}: ${reports.map((report) => esc(report.project)).join(', ')} — ${countsText(totals)}`}</p>
<dl class="run">
<dt>config</dt><dd>${configs.map((config) => `<code>${esc(config)}</code>`).join(', ') || '—'}</dd>
<dt>SDKs</dt><dd>${sdks || '—'}</dd>
</dl>
<ul class="legend" aria-label="status legend">${ROW_STATUSES.map((status) => `<li><span class="badge" data-status="${status}">${STATUS_TEXT[status].symbol} ${STATUS_TEXT[status].word}</span></li>`).join('')}</ul>
</header>`;
}

function toolbar(): string {
  return `<div class="toolbar"><label for="filter" class="visually-hidden">Filter failing rows</label><input id="filter" type="search" autocomplete="off" placeholder="Filter failing rows by row id, SDK or label"></div>`;
}

function changes(comparison: RunComparison): string {
  const list = (kind: string, title: string, rows: RunComparison['newlyFailing']): string =>
    `<h3>${title} (${rows.length})</h3>${
      rows.length === 0
        ? '<p>none</p>'
        : `<ul class="flat">${rows.map((row) => `<li data-flip="${kind}"><code>${esc(row.project)} ${esc(row.group)} › ${esc(row.id)}</code> (${esc(row.before)} → ${esc(row.now)})</li>`).join('')}</ul>`
    }`;
  return `<section id="changes" aria-labelledby="changes-title">
<h2 id="changes-title">What changed since the previous run</h2>
<p>Compared with <code>${esc(comparison.previous)}</code>: ${comparison.newlyFailing.length} newly failing, ${comparison.newlyPassing.length} newly passing, ${comparison.vanished.length} vanished.</p>
${list('newly-failing', 'Newly failing', comparison.newlyFailing)}
${list('newly-passing', 'Newly passing', comparison.newlyPassing)}
${list('vanished', 'Vanished', comparison.vanished)}
</section>`;
}

function family(report: PageReport, flips: Map<string, string>): string {
  const project = report.project;
  const statuses = report.groups.flatMap((group) => group.rows.map((row) => row.status));
  const modes = [...new Set(report.groups.map((group) => `${group.transport}/${group.auth}`))];
  const grids = modes.map((mode) => grid(report, mode)).join('\n');
  const listed = report.groups.flatMap((group) => group.rows.filter((row) => LISTED.has(row.status)).map((row) => rowItem(project, group, row, flips)));
  return `<section class="family" id="family-${esc(project)}" data-project="${esc(project)}" aria-labelledby="title-${esc(project)}">
<h2 id="title-${esc(project)}">${esc(project)}</h2>
<p>${report.groups.length} group${report.groups.length === 1 ? '' : 's'} — ${countsText(tally(statuses))}</p>
<dl class="run">
<dt>started</dt><dd>${esc(report.run.startedAt)}</dd>
<dt>duration</dt><dd>${(report.run.durationMs / 1000).toFixed(1)} s</dd>
<dt>reproduce</dt><dd><code>${esc(report.run.command)}</code></dd>
${report.run.scenarioFile ? `<dt>scenarios</dt><dd><code>${esc(report.run.scenarioFile)}</code></dd>` : ''}
<dt>baseline</dt><dd>${report.run.baseline ? `<code>${esc(report.run.baseline)}</code>` : 'none'}${report.run.blind ? ' · blind mode' : ''}</dd>
</dl>
${grids}
${staleEntries(report)}
${probes(report)}
<div class="panel" id="panel-${esc(project)}" aria-live="polite">
<p class="hint" id="hint-${esc(project)}">Select a cell to list its failing rows.</p>
<ol class="rows">${listed.join('\n')}</ol>
</div>
</section>`;
}

function grid(report: PageReport, mode: string): string {
  const groups = report.groups.filter((group) => `${group.transport}/${group.auth}` === mode);
  const servers = [...new Set(groups.map((group) => group.server))];
  const clients = [...new Set(groups.map((group) => group.client))];
  const at = new Map(groups.map((group) => [`${group.server}\u0000${group.client}`, group]));
  const head = `<tr><th scope="col">${esc(report.axes.rows)} ↓ · ${esc(report.axes.columns)} →</th>${clients.map((client) => `<th scope="col">${esc(client)}</th>`).join('')}</tr>`;
  const body = servers
    .map((server) => {
      const cells = clients.map((client) => {
        const group = at.get(`${server}\u0000${client}`);
        return group ? `<td>${cell(report.project, group)}</td>` : '<td class="none"><span aria-label="not paired">—</span></td>';
      });
      return `<tr><th scope="row">${esc(server)}</th>${cells.join('')}</tr>`;
    })
    .join('\n');
  return `<h3>${esc(mode.replace('/', ' / '))}</h3>
<div class="grid-wrap"><table class="grid" data-mode="${esc(mode)}"><thead>${head}</thead><tbody>${body}</tbody></table></div>`;
}

function cell(project: string, group: PageGroup): string {
  const text = STATUS_TEXT[group.status];
  const counts = ROW_STATUSES.filter((status) => group.counts[status] > 0).map((status) => `${group.counts[status]} ${STATUS_TEXT[status].symbol}`).join(' · ');
  const described = ROW_STATUSES.filter((status) => group.counts[status] > 0).map((status) => `${group.counts[status]} ${STATUS_TEXT[status].word}`).join(', ');
  return `<button type="button" class="cell" data-project="${esc(project)}" data-group="${esc(group.label)}" data-status="${group.status}" aria-pressed="false" aria-controls="panel-${esc(project)}" title="${esc(group.label)}: ${esc(described)}"><span class="status">${text.symbol} ${text.word}</span><span class="counts">${esc(counts)}</span><span class="visually-hidden"> — ${esc(described)}</span></button>`;
}

function rowItem(project: string, group: PageGroup, row: PageRow, flips: Map<string, string>): string {
  const text = STATUS_TEXT[row.status];
  const flip = flips.get(keyText({ project, group: group.label, id: row.id }));
  const search = [row.id, group.label, group.server, group.client, ...row.labels, ...row.findings.flatMap((finding) => [finding.label, finding.party])].join(' ').toLowerCase();
  const baseline = row.baseline
    ? `<span class="badge baseline" data-baseline="${row.baseline.state}">baseline: ${row.baseline.state === 'stale' ? 'stale entry' : row.baseline.state === 'expected-failure' ? 'expected failure' : 'listed'} — ${esc(row.baseline.reason)}</span>`
    : '';
  const findings =
    row.findings.length === 0
      ? ''
      : `<table class="findings"><thead><tr><th scope="col">label</th><th scope="col">party at fault</th><th scope="col">finding</th></tr></thead><tbody>${row.findings
          .map((finding) => `<tr><td><code class="label">[${esc(finding.label)}]</code></td><td class="party">${esc(finding.party)}</td><td>${esc(finding.message)}</td></tr>`)
          .join('')}</tbody></table>`;
  const labels = row.findings.length === 0 && row.labels.length > 0 ? `<p>${row.labels.map((label) => `<code class="label">[${esc(label)}]</code>`).join(' ')}</p>` : '';
  const evidence = row.evidence ? `<details open><summary>evidence</summary><pre>${esc(row.evidence)}</pre></details>` : '';
  const logs = row.logs.length > 0 ? `<p>kept logs:</p><ul class="flat">${row.logs.map((log) => `<li><a href="${esc(encodeURI(log))}">${esc(log)}</a></li>`).join('')}</ul>` : '';
  return `<li class="row" hidden data-project="${esc(project)}" data-group="${esc(group.label)}" data-row-id="${esc(row.id)}" data-status="${row.status}" data-search="${esc(search)}">
<header><span class="badge" data-status="${row.status}">${text.symbol} ${text.word}</span><code class="row-id">${esc(row.id)}</code><span class="group">${esc(group.label)}</span>${flip ? `<span class="badge flip" data-flip="${flip}">${flip.replace('-', ' ')}</span>` : ''}${baseline}</header>
${findings}${labels}${evidence}${logs}
</li>`;
}

function staleEntries(report: PageReport): string {
  if (report.staleBaseline.length === 0) return '';
  return `<div class="panel" data-stale-baseline><h3>Stale baseline entries (they fail the run)</h3><ul class="flat">${report.staleBaseline
    .map((entry) => `<li><span class="badge baseline" data-baseline="stale">stale</span> <code>${esc(entry.group)} › ${esc(entry.id)}</code> — ${esc(entry.reason)}: every row it lists passed</li>`)
    .join('')}</ul></div>`;
}

function probes(report: PageReport): string {
  if (report.probes.length === 0) return '';
  return `<h3>Receiver probes</h3><div class="grid-wrap"><table><thead><tr><th scope="col">server</th><th scope="col">mode</th><th scope="col">probe</th><th scope="col">status</th><th scope="col">detail</th></tr></thead><tbody>${report.probes
    .map(
      (probe) =>
        `<tr><td>${esc(probe.server)}</td><td>${esc(probe.auth)}</td><td><code>${esc(probe.probe)}</code></td><td><span class="badge" data-status="${probe.status}">${STATUS_TEXT[probe.status].symbol} ${STATUS_TEXT[probe.status].word}</span></td><td>${esc(probe.error ?? probe.reason ?? '')}</td></tr>`,
    )
    .join('')}</tbody></table></div>`;
}

function coverage(report: CoverageReport): string {
  const word: Record<string, string> = { failing: '✗ failing', passing: '✓ passing', 'not run': '○ not run', gap: '∅ gap' };
  const status: Record<string, RowStatus> = { failing: 'failed', passing: 'passed', 'not run': 'skipped', gap: 'unsupported' };
  const rows = report.requirements
    .map((entry) => {
      const named = entry.rows.map((row) => `${row.project} › ${row.id}`);
      const shown = named.slice(0, 12).map((name) => `<code>${esc(name)}</code>`).join(', ');
      return `<tr data-requirement="${esc(entry.id)}" data-coverage="${entry.status}"><td><code>${esc(entry.id)}</code></td><td>${esc(entry.level)}</td><td><span class="badge" data-status="${status[entry.status]}">${word[entry.status]}</span></td><td>${entry.rows.length}</td><td>${entry.counts.passed ?? 0}</td><td>${entry.counts.failed ?? 0}</td><td>${
        named.length === 0 ? '—' : `<details><summary>${named.length} row${named.length === 1 ? '' : 's'}</summary>${shown}${named.length > 12 ? ` and ${named.length - 12} more` : ''}</details>`
      }</td><td>${esc(entry.summary)}</td></tr>`;
    })
    .join('\n');
  const unmapped = Object.entries(report.unmapped);
  return `<section id="requirements" aria-labelledby="requirements-title">
<h2 id="requirements-title">Requirement coverage</h2>
<p>${report.requirements.length - report.gaps.length} of ${report.requirements.length} requirements are exercised by a row this run reported. Gaps (no reported row exercises them): ${report.gaps.length === 0 ? 'none' : report.gaps.map((id) => `<code>${esc(id)}</code>`).join(', ')}.</p>
<p>Unmapped rows (their scenario file names no requirements, so they are not counted): ${unmapped.length === 0 ? 'none' : unmapped.map(([project, n]) => `${esc(project)} ${n}`).join(', ')}.${report.unknownIds.length > 0 ? ` IDs rows name that our table lacks: ${report.unknownIds.map((id) => `<code>${esc(id)}</code>`).join(', ')}.` : ''}</p>
<div class="grid-wrap"><table class="coverage"><thead><tr><th scope="col">requirement</th><th scope="col">level</th><th scope="col">status</th><th scope="col">rows</th><th scope="col">passed</th><th scope="col">failed</th><th scope="col">exercised by</th><th scope="col">summary</th></tr></thead>
<tbody>${rows}</tbody></table></div>
</section>`;
}

function flipLabels(comparison: RunComparison | undefined): Map<string, string> {
  const flips = new Map<string, string>();
  if (!comparison) return flips;
  for (const row of comparison.newlyFailing) flips.set(keyText(row), 'newly-failing');
  for (const row of comparison.newlyPassing) flips.set(keyText(row), 'newly-passing');
  return flips;
}

function tally(statuses: RowStatus[]): Record<RowStatus, number> {
  const counts = Object.fromEntries(ROW_STATUSES.map((status) => [status, 0])) as Record<RowStatus, number>;
  for (const status of statuses) counts[status]++;
  return counts;
}

function countsText(counts: Record<RowStatus, number>): string {
  const parts = ROW_STATUSES.filter((status) => counts[status] > 0).map((status) => `${counts[status]} ${STATUS_TEXT[status].word}`);
  return parts.length === 0 ? 'no rows' : parts.join(', ');
}

export function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
