// The HTML report's pure parts: fault lines to (label, party), recorded rows to a page report,
// run-to-run comparison, requirement coverage, the renderer, and the errors of `npm run report` for a
// missing or broken report — each with inputs that are deliberately wrong in the way it must catch.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { execa } from 'execa';
import { afterAll, describe, expect, test } from 'vitest';

import { VerdictFailure } from '../../harness/baseline/verdict-failure.ts';
import { projectRoot, resolveConfig } from '../../harness/config/load-config.ts';
import type { Requirement } from '../../harness/requirements/requirement-table.ts';
import { buildPageReport, type RecordedRow } from '../../harness/reporters/build-page-report.ts';
import { compareRuns, comparisonLines, readPreviousStatuses } from '../../harness/reporters/compare-runs.ts';
import { findingsOf } from '../../harness/reporters/failure-findings.ts';
import { readPageReport, worstStatus, type PageReport } from '../../harness/reporters/page-report.ts';
import { renderPage } from '../../harness/reporters/render-page.ts';
import { requirementCoverage } from '../../harness/reporters/requirement-coverage.ts';
import { reproduceCommand } from '../../harness/reporters/run-header.ts';
import { loadPageReports } from '../../harness/reporters/write-page.ts';
import type { MatrixRowMeta } from '../../harness/setup/grouped-suite.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'ahp-page-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GROUP = 'py→ts http/none';
function meta(id: string, overrides: Partial<MatrixRowMeta> = {}): MatrixRowMeta {
  return {
    project: 'core',
    group: GROUP,
    groupRank: 0,
    server: 'py',
    client: 'ts',
    transport: 'http',
    auth: 'none',
    id,
    expected: {},
    actual: null,
    verdict: 'passed',
    adapterStatus: 'passed',
    errors: [],
    requirements: ['AHP-DEC-001'],
    ...overrides,
  };
}
const EVIDENCE = 'client fault: client "ts" reported an actual result that differs from expected:\n  decision:\n    - expected "deny"\n    + actual   "allow"\n[responses/mismatch] server fault: server "py" answered with HTTP 500';

function sampleReport(rows: RecordedRow[], project = 'core'): PageReport {
  return buildPageReport({
    project,
    run: { config: '/cfg/c.json', command: 'npx vitest run --project core', startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1200, adapters: [{ name: 'py', language: 'python', version: '1.2.3' }, { name: 'ts', language: 'typescript' }], baseline: null, blind: false },
    rows,
    probes: [],
    staleBaseline: [],
    reportsDir: '/r',
  });
}

describe('findingsOf (the party at fault and the label of each fault line)', () => {
  test('reads the three shapes the verifiers write, and leaves continuation lines in the evidence', () => {
    const text = `${EVIDENCE}\nrun integrity failure (every row of this run fails):\n  [startup/exited] (server) startup: it exited\n  [run/timeout] (client or server) no report in time\n[receipts/count] client or server fault: received 0 times`;
    expect(findingsOf(text)).toEqual([
      { label: 'result/mismatch', party: 'client', message: 'client "ts" reported an actual result that differs from expected:' },
      { label: 'responses/mismatch', party: 'server', message: 'server "py" answered with HTTP 500' },
      { label: 'startup/exited', party: 'server', message: 'startup: it exited' },
      { label: 'run/timeout', party: 'client or server', message: 'no report in time' },
      { label: 'receipts/count', party: 'client or server', message: 'received 0 times' },
    ]);
    expect(findingsOf('  - expected "deny"\n  + actual "allow"')).toEqual([]);
    expect(findingsOf('[odd/label] no party named')).toEqual([{ label: 'odd/label', party: 'unknown', message: 'no party named' }]);
  });
});

describe('buildPageReport', () => {
  const report = sampleReport([
    { meta: meta('a'), verdict: 'passed' },
    { meta: meta('b', { verdict: 'failed', errors: ['responses/mismatch'], reason: EVIDENCE, keptLogs: ['/r/logs/py-to-ts/run-1/client.log'] }), verdict: 'failed' },
    { meta: meta('c', { verdict: 'failed', reason: EVIDENCE, requirements: undefined }), verdict: 'expected-failure', baseline: { state: 'expected-failure', reason: 'issue 7' } },
    { meta: meta('d', { verdict: 'skipped', adapterStatus: 'unsupported' }), verdict: 'skipped' },
    { meta: meta('e', { group: 'py→ts stdio/none', transport: 'stdio', groupRank: 1, verdict: 'skipped', adapterStatus: 'inapplicable' }), verdict: 'skipped' },
  ]);
  test('rows get their page status, findings, relative logs, baseline state and requirements (null: unmapped)', () => {
    const [http, stdio] = report.groups;
    expect(http!.rows.map((row) => row.status)).toEqual(['passed', 'failed', 'expected-failure', 'unsupported']);
    expect(http!.status).toBe('failed');
    expect(http!.counts).toMatchObject({ passed: 1, failed: 1, 'expected-failure': 1, unsupported: 1, inapplicable: 0 });
    expect(stdio!.status).toBe('inapplicable');
    const failed = http!.rows[1]!;
    expect(failed.findings.map((finding) => `${finding.label} ${finding.party}`)).toEqual(['result/mismatch client', 'responses/mismatch server']);
    expect(failed.logs).toEqual(['logs/py-to-ts/run-1/client.log']);
    expect(http!.rows[2]!.baseline).toEqual({ state: 'expected-failure', reason: 'issue 7' });
    expect(http!.rows[2]!.requirements).toBeNull();
    expect(failed.requirements).toEqual(['AHP-DEC-001']);
  });
  test('the worst status wins a cell: failed over expected failure over unsupported over skipped over passed over inapplicable', () => {
    expect(worstStatus(['passed', 'inapplicable'])).toBe('passed');
    expect(worstStatus(['passed', 'unsupported'])).toBe('unsupported');
    expect(worstStatus(['expected-failure', 'unsupported', 'passed'])).toBe('expected-failure');
    expect(worstStatus(['passed', 'failed', 'expected-failure'])).toBe('failed');
    expect(worstStatus(['inapplicable'])).toBe('inapplicable');
  });
  test('the page report round-trips through its reader', () => {
    const file = path.join(dir, 'core-page.json');
    writeFileSync(file, JSON.stringify(report));
    expect(readPageReport(file)).toEqual(report);
  });
});

describe('readPageReport and npm run report: a missing or broken report names the file', () => {
  const write = (name: string, text: string): string => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  test.each([
    ['missing', undefined, /missing: expected a page report/],
    ['not JSON', '{', /: not valid JSON/],
    ['another format', '{"format":"x"}', /: format: expected "ahp-conformance-page-report", got "x"/],
    ['a row without a status', JSON.stringify({ ...sampleReport([{ meta: meta('a'), verdict: 'passed' }]), groups: [{ ...sampleReport([{ meta: meta('a'), verdict: 'passed' }]).groups[0], rows: [{ id: 'a' }] }] }), /: groups\[0\]\.rows\[0\]\.status: expected one of failed, expected-failure/],
  ])('%s', (name, text, message) => {
    const file = text === undefined ? path.join(dir, 'nowhere-page.json') : write(`${name.replace(/ /g, '-')}-page.json`, text);
    expect(() => readPageReport(file)).toThrow(message);
    expect(() => readPageReport(file)).toThrow(file);
  });

  test('the command exits 1 with the file and the problem; from good JSON alone it writes the page and the coverage files', async () => {
    const broken = mkdtempSync(path.join(dir, 'broken-'));
    writeFileSync(path.join(broken, 'core-page.json'), '{"format": "ahp-conformance-page-report", "version": 1,');
    const cli = path.join(projectRoot(), 'harness', 'reporters', 'report-cli.ts');
    const tsx = path.join(projectRoot(), 'node_modules', '.bin', 'tsx');
    const bad = await execa(tsx, [cli, broken], { reject: false, timeout: 60_000 });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain(`${path.join(broken, 'core-page.json')}: not valid JSON`);
    const empty = mkdtempSync(path.join(dir, 'empty-'));
    const none = await execa(tsx, [cli, empty], { reject: false, timeout: 60_000 });
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toContain(`${empty}: holds no <project>-page.json`);

    const good = mkdtempSync(path.join(dir, 'good-'));
    writeFileSync(path.join(good, 'core-page.json'), JSON.stringify(sampleReport([{ meta: meta('b', { verdict: 'failed', reason: EVIDENCE }), verdict: 'failed' }])));
    const ok = await execa(tsx, [cli, good], { reject: false, timeout: 60_000 });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(readFileSync(path.join(good, 'index.html'), 'utf8')).toContain('data-group="py→ts http/none" data-status="failed"');
    expect(readFileSync(path.join(good, 'requirements.md'), 'utf8')).toMatch(/\| AHP-DEC-001 \| MUST \| failing \| 1 \|/);
    expect(JSON.parse(readFileSync(path.join(good, 'requirements.json'), 'utf8')).gaps).toContain('AHP-COMP-001');

    const previous = mkdtempSync(path.join(dir, 'before-'));
    writeFileSync(path.join(previous, 'core-page.json'), JSON.stringify(sampleReport([{ meta: meta('b'), verdict: 'passed' }])));
    const compared = await execa(tsx, [cli, good, '--compare', previous, '--out', path.join(dir, 'out')], { reject: false, timeout: 60_000 });
    expect(compared.exitCode, compared.stderr).toBe(0);
    expect(compared.stdout).toContain(`core ${GROUP} › b (passed → failed)`);
    expect(readFileSync(path.join(dir, 'out', 'index.html'), 'utf8')).toContain(`<li data-flip="newly-failing"><code>core ${GROUP} › b</code>`);
  }, 120_000);

  test("several shards' reports of one project merge into one section with every group", () => {
    const one = mkdtempSync(path.join(dir, 'shard-'));
    const two = mkdtempSync(path.join(dir, 'shard-'));
    writeFileSync(path.join(one, 'core-page.json'), JSON.stringify(sampleReport([{ meta: meta('a'), verdict: 'passed' }])));
    writeFileSync(path.join(two, 'core-page.json'), JSON.stringify(sampleReport([{ meta: meta('a', { group: 'py→py http/none', client: 'py' }), verdict: 'passed' }])));
    const merged = loadPageReports([one, two]);
    expect(merged.map((report) => report.project)).toEqual(['core']);
    expect(merged[0]!.groups.map((group) => group.label)).toEqual([GROUP, 'py→py http/none']);
  });
});

describe('compareRuns', () => {
  const now = sampleReport([
    { meta: meta('flips-to-failed', { verdict: 'failed', reason: EVIDENCE }), verdict: 'failed' },
    { meta: meta('flips-to-passed'), verdict: 'passed' },
    { meta: meta('still-failing', { verdict: 'failed', reason: EVIDENCE }), verdict: 'failed' },
    { meta: meta('brand-new', { verdict: 'failed', reason: EVIDENCE }), verdict: 'failed' },
    { meta: meta('skipped-now', { verdict: 'skipped', adapterStatus: 'unsupported' }), verdict: 'skipped' },
  ]);
  const before = sampleReport([
    { meta: meta('flips-to-failed'), verdict: 'passed' },
    { meta: meta('flips-to-passed', { verdict: 'failed' }), verdict: 'failed' },
    { meta: meta('still-failing', { verdict: 'failed' }), verdict: 'failed' },
    { meta: meta('skipped-now', { verdict: 'failed' }), verdict: 'failed' },
    { meta: meta('gone'), verdict: 'passed' },
  ]);
  const lifecycleBefore = sampleReport([{ meta: meta('other-family', { project: 'lifecycle' }), verdict: 'passed' }], 'lifecycle');
  test('newly failing, newly passing and vanished rows; a skip flips nothing; another family that did not run is not "vanished"', () => {
    const previous = mkdtempSync(path.join(dir, 'previous-'));
    writeFileSync(path.join(previous, 'core-page.json'), JSON.stringify(before));
    writeFileSync(path.join(previous, 'lifecycle-page.json'), JSON.stringify(lifecycleBefore));
    const comparison = compareRuns(previous, readPreviousStatuses(previous), [now]);
    expect(comparison.newlyFailing.map((row) => `${row.id} ${row.before}→${row.now}`)).toEqual(['flips-to-failed passed→failed', 'brand-new absent→failed']);
    expect(comparison.newlyPassing.map((row) => row.id)).toEqual(['flips-to-passed']);
    expect(comparison.vanished.map((row) => row.id)).toEqual(['gone']);
    expect(comparisonLines(comparison)[0]).toBe(`compared with ${previous}: 2 newly failing, 1 newly passing, 1 vanished`);
    expect(comparisonLines(comparison)).toContain(`  core ${GROUP} › flips-to-failed (passed → failed)`);
  });
  test("the upstream core.json shape compares too; a file of neither shape names the file", () => {
    const upstream = path.join(dir, 'core.json');
    writeFileSync(upstream, JSON.stringify({ version: 1, groups: [{ client: 'ts', server: 'py', transport: 'http', auth: 'none', status: 'passed', results: [{ id: 'flips-to-failed', status: 'passed' }] }] }));
    expect(compareRuns(upstream, readPreviousStatuses(upstream), [now]).newlyFailing.map((row) => row.id)).toEqual(['flips-to-failed', 'still-failing', 'brand-new']);
    const odd = path.join(dir, 'odd.json');
    writeFileSync(odd, '{"rows": []}');
    expect(() => readPreviousStatuses(odd)).toThrow(`${odd}: groups: expected a page report`);
    expect(() => readPreviousStatuses(path.join(dir, 'no-such-dir'))).toThrow(/no-such-dir: missing: expected a previous reports directory/);
  });
});

describe('requirementCoverage', () => {
  const table: Requirement[] = [
    { id: 'AHP-DEC-001', level: 'MUST', summary: 'one' },
    { id: 'AHP-DEC-002', level: 'MUST', summary: 'two' },
    { id: 'AHP-GAP-001', level: 'SHOULD', summary: 'three' },
  ];
  test('per requirement the rows and their statuses; gaps; rows without the field are unmapped, never guessed', () => {
    const report = sampleReport([
      { meta: meta('a', { requirements: ['AHP-DEC-001', 'AHP-DEC-002'] }), verdict: 'passed' },
      { meta: meta('b', { requirements: ['AHP-DEC-002', 'AHP-ZZZ-001'], verdict: 'failed' }), verdict: 'failed' },
      { meta: meta('c', { requirements: undefined }), verdict: 'passed' },
      { meta: meta('c', { requirements: undefined, group: 'py→ts stdio/none' }), verdict: 'passed' },
    ]);
    const coverage = requirementCoverage(table, [report]);
    expect(coverage.requirements.map((entry) => [entry.id, entry.status, entry.rows.length])).toEqual([
      ['AHP-DEC-001', 'passing', 1],
      ['AHP-DEC-002', 'failing', 2],
      ['AHP-GAP-001', 'gap', 0],
    ]);
    expect(coverage.gaps).toEqual(['AHP-GAP-001']);
    expect(coverage.unmapped).toEqual({ core: 1 });
    expect(coverage.unknownIds).toEqual(['AHP-ZZZ-001']);
  });
});

describe('renderPage', () => {
  const hostile = '<img src=https://evil.example/x onerror=alert(1)>';
  const report = sampleReport([
    { meta: meta('a'), verdict: 'passed' },
    { meta: meta(hostile, { verdict: 'failed', reason: `client fault: ${hostile}` }), verdict: 'failed' },
  ]);
  const html = renderPage({ reports: [report], coverage: requirementCoverage([], [report]) });
  test('each cell is a button with data-group and data-status, and says its status in text', () => {
    expect(html).toMatch(/<button type="button" class="cell" data-project="core" data-group="py→ts http\/none" data-status="failed"[^>]*><span class="status">✗ failed<\/span>/);
    expect(html).toContain('<span class="visually-hidden"> — 1 failed, 1 passed</span>');
  });
  test('adapter text is escaped, and nothing is loaded from anywhere: no src, no stylesheet link, a CSP that forbids fetching', () => {
    expect(html).not.toContain(hostile);
    expect(html).toContain('&lt;img src=https://evil.example/x onerror=alert(1)&gt;');
    // attribute values and text may say anything (escaped); the markup itself loads nothing
    const markup = html.replace(/"[^"]*"/g, '""').replace(/>[^<]*</g, '><');
    expect(markup).not.toMatch(/\s(src|href)=|<link\b/);
    expect(html).not.toMatch(/@import|url\(/);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"`);
  });
  test('the header names the config, the SDKs with their languages and versions, the duration and the reproducing command', () => {
    expect(html).toContain('<code>/cfg/c.json</code>');
    expect(html).toContain('py (python 1.2.3), ts (typescript)');
    expect(html).toContain('<dd>1.2 s</dd>');
    expect(html).toContain('<code>npx vitest run --project core</code>');
  });
  test('the reproducing command carries the variables that select the run, quoted for a shell', () => {
    expect(reproduceCommand(['node', '/x/vitest.mjs', 'run', '--project', 'core', '-t', 'permission allow'], { AHP_CONFIG: '/c/my config.json', HOME: '/root', AHP_BLIND: '1' })).toBe(
      "AHP_CONFIG='/c/my config.json' AHP_BLIND=1 npx vitest run --project core -t 'permission allow'",
    );
  });
});

test('a verdict failure carries no stack frames (vitest prints no harness code frame for it)', () => {
  const failure = new VerdictFailure('py→ts http/none › a\nclient fault: wrong');
  expect(failure.stack).toBe('VerdictFailure: py→ts http/none › a\nclient fault: wrong');
  expect(new Error('harness bug').stack).toMatch(/\n\s+at /);
});

describe('the compare key (config `compare`, AHP_COMPARE)', () => {
  const raw = (extra: Record<string, unknown>) => ({ schemas: path.join(projectRoot(), 'schemas'), adapters: [], ...extra });
  const file = path.join(dir, 'conf', 'ahp.json');
  test('resolves against the config folder; the environment wins and resolves against the working directory; a non-string is refused by name', async () => {
    expect((await resolveConfig(raw({}), file, {})).compare).toBeNull();
    expect((await resolveConfig(raw({ compare: '../previous' }), file, {})).compare).toBe(path.join(dir, 'previous'));
    expect((await resolveConfig(raw({ compare: '../previous' }), file, { AHP_COMPARE: 'elsewhere' })).compare).toBe(path.resolve('elsewhere'));
    await expect(resolveConfig(raw({ compare: 3 }), file, {})).rejects.toThrow(`${file}: compare: expected a non-empty string, got number 3`);
  });
});
