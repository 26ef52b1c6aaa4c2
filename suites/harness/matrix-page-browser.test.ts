// The HTML matrix report in a real browser: the REAL core project runs in a child vitest with a
// client that rejects every response (its positive rows fail), compared with a previous run in
// which one of those rows passed and another row existed; then Debian's headless Chromium opens the
// page from disk. The failing cell must be visibly marked, a click must list its rows with label and
// party, the filter must narrow the list, the compare view must name the flipped row, and the page
// must make no network request at all. Screenshots of each view go to reports/screenshots/.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { PAGE_REPORT_FORMAT, type PageReport } from '../../harness/reporters/page-report.ts';
import { fixtureAdapter, PROJECT_ROOT, prepareChildRun, referenceAdapter, removeChildRun, runVitestChild, type ChildRun, type ChildRunDirs } from './support/child-vitest-run.ts';
import { chromiumMissing, launchChromium, type OpenBrowser } from './support/headless-chromium.ts';

const FAILING = 'reference→client-rejects-all http/none';
const PASSING = 'reference→reference http/none';
const SCREENSHOTS = path.join(PROJECT_ROOT, 'reports', 'screenshots');
const missing = chromiumMissing();

/** A previous run in which permission.allow passed in the failing group, and a row existed that no longer does. */
function previousRun(): PageReport {
  const group = (label: string, client: string, rows: Array<[string, 'passed' | 'failed']>): PageReport['groups'][number] => ({
    label,
    server: 'reference',
    client,
    transport: 'http',
    auth: 'none',
    status: 'passed',
    counts: { failed: 0, 'expected-failure': 0, unsupported: 0, skipped: 0, passed: rows.length, inapplicable: 0 },
    notes: [],
    rows: rows.map(([id, status]) => ({ id, status, adapterStatus: 'passed', labels: [], findings: [], logs: [], requirements: null })),
  });
  return {
    format: PAGE_REPORT_FORMAT,
    version: 1,
    project: 'core',
    axes: { rows: 'servers', columns: 'clients' },
    run: { config: '/earlier/config.json', command: 'npx vitest run --project core', startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1000, adapters: [], baseline: null, blind: false },
    groups: [group(FAILING, 'client-rejects-all', [['permission.allow', 'passed']]), group(PASSING, 'reference', [['permission.allow', 'passed'], ['retired.row', 'passed']])],
    probes: [],
    staleBaseline: [],
  };
}

// .ci/run installs Chromium and sets AHP_REQUIRE_BROWSER=1: there, a missing browser fails instead of skipping.
test('Chromium is installed, or this run does not require it', () => {
  expect(missing === undefined || process.env.AHP_REQUIRE_BROWSER !== '1', missing).toBe(true);
});

describe.skipIf(missing !== undefined)(`the matrix page in headless Chromium${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let dirs: ChildRunDirs;
  let run: ChildRun;
  let browser: OpenBrowser;
  let page: Page;
  const requests: string[] = [];
  let pageUrl = '';

  beforeAll(async () => {
    dirs = prepareChildRun('page', {
      adapters: [referenceAdapter(), fixtureAdapter('broken-client-rejects-all')],
      pairings: [
        { server: 'reference', client: 'reference' },
        { server: 'reference', client: 'client-rejects-all' },
      ],
      transports: ['http'],
      watchdogs: { startupMs: 20_000, runMs: 30_000 },
    });
    const previous = path.join(dirs.dir, 'previous');
    mkdirSync(previous);
    writeFileSync(path.join(previous, 'core-page.json'), JSON.stringify(previousRun()));
    // vitest's default reporter too: its failure output is what an SDK author reads
    run = await runVitestChild(dirs, 'core', 120_000, { env: { AHP_COMPARE: previous }, reporters: ['default'] });
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await launchChromium();
    // Every request any page of this browser makes, the page's own file included.
    browser.context.on('request', (request) => requests.push(request.url()));
    page = await browser.context.newPage();
    pageUrl = pathToFileURL(path.join(dirs.reportsDir, 'index.html')).href;
    await page.goto(pageUrl);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    if (dirs) removeChildRun(dirs);
  });

  const shot = (name: string): Promise<Buffer> => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const visibleRows = async (): Promise<string[]> => Promise.all((await page.locator('li.row:visible').all()).map(async (item) => (await item.getAttribute('data-row-id')) ?? ''));
  // Evaluated in the page as text: the harness is type-checked without the DOM library.
  const computed = (selector: string, properties: string[]): Promise<string> =>
    page.evaluate<string>(`(() => { const s = getComputedStyle(document.querySelector(${JSON.stringify(selector)})); return ${JSON.stringify(properties)}.map((p) => s.getPropertyValue(p)).join(' '); })()`);

  test('the run failed on its verdicts, printed them without harness frames, and compared itself with the previous run', () => {
    expect(run.timedOut, run.output.slice(-3000)).toBe(false);
    expect(run.exitCode, run.output.slice(-3000)).toBe(1);
    // eslint-disable-next-line no-control-regex -- vitest colours its output
    const output = run.output.replace(/\u001b\[[0-9;]*m/g, '');
    expect(output).toContain(`VerdictFailure: ${FAILING} › permission.allow\nclient fault: client "client-rejects-all" reported an actual result that differs from expected:`);
    // vitest prints a code frame and "❯ file:line" for an error with frames; a verdict has none of ours
    expect(output).not.toMatch(/finish-test\.ts|grouped-suite\.ts/);
    expect(output).toMatch(/compared with .*previous: 4 newly failing, 0 newly passing, 1 vanished/);
    expect(output).toContain(`  core ${FAILING} › permission.allow (passed → failed)`);
    expect(existsSync(path.join(dirs.reportsDir, 'core-page.json'))).toBe(true);
    expect(readFileSync(path.join(dirs.reportsDir, 'requirements.md'), 'utf8')).toContain('| AHP-DEC-001 | MUST |');
  });

  test('the failing cell is marked in text and shape, the passing one too', async () => {
    const failing = page.locator(`button.cell[data-group="${FAILING}"]`);
    const passing = page.locator(`button.cell[data-group="${PASSING}"]`);
    await expect.poll(() => failing.getAttribute('data-status')).toBe('failed');
    expect(await passing.getAttribute('data-status')).toBe('passed');
    expect(await failing.innerText()).toMatch(/✗ failed\s+4 ✗ · 2 ✓/);
    expect(await passing.innerText()).toMatch(/✓ passed\s+6 ✓/);
    const look = ['border-top-color', 'border-top-width', 'background-color'];
    expect(await computed(`button.cell[data-group="${FAILING}"]`, look)).not.toBe(await computed(`button.cell[data-group="${PASSING}"]`, look));
    await shot('matrix');
  });

  test('a click on the failing cell lists its failing rows with the [stage/kind] label, the party at fault and the kept logs', async () => {
    expect(await visibleRows()).toEqual([]);
    await page.locator(`button.cell[data-group="${FAILING}"]`).click();
    expect(await page.locator(`button.cell[data-group="${FAILING}"]`).getAttribute('aria-pressed')).toBe('true');
    expect(await visibleRows()).toEqual(['permission.allow', 'permission.deny-discards-candidate', 'return.structured-value', 'permission.ask-stays-pending']);
    const first = page.locator('li.row:visible').first();
    expect(await first.locator('code.label').first().innerText()).toBe('[result/mismatch]');
    expect(await first.locator('td.party').first().innerText()).toBe('client');
    expect(await first.innerText()).toContain('evidence');
    const href = await first.locator('a').first().getAttribute('href');
    expect(href).toMatch(/^logs\//);
    expect(existsSync(path.join(dirs.reportsDir, decodeURI(href!)))).toBe(true);
    expect(await page.locator('#hint-core').innerText()).toBe(`${FAILING}: 4 failing rows`);
    await shot('matrix-cell');
    // What a person sees first after the click: the grid and the top of the list (the README's picture).
    await page.evaluate('document.querySelector("#family-core h3").scrollIntoView()');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'matrix-cell-view.png') });
    await page.locator(`button.cell[data-group="${PASSING}"]`).click();
    expect(await visibleRows()).toEqual([]);
    expect(await page.locator('#hint-core').innerText()).toBe(`${PASSING}: no failing rows (passed)`);
  });

  test('the filter narrows the list to matching rows and dims the cells without any', async () => {
    await page.locator('#filter').fill('return.structured');
    expect(await visibleRows()).toEqual(['return.structured-value']);
    expect(await page.locator(`button.cell[data-group="${PASSING}"]`).getAttribute('class')).toContain('dim');
    expect(await page.locator(`button.cell[data-group="${FAILING}"]`).getAttribute('class')).not.toContain('dim');
    await shot('matrix-filter');
    await page.locator('#filter').fill('client-rejects');
    expect(await visibleRows()).toHaveLength(4);
    await page.locator('#filter').fill('');
    expect(await visibleRows()).toEqual([]);
  });

  test('the compare view names the row that flipped and the row that vanished', async () => {
    const changes = page.locator('#changes');
    expect(await changes.locator('li[data-flip="newly-failing"]').allInnerTexts()).toContain(`core ${FAILING} › permission.allow (passed → failed)`);
    expect(await changes.locator('li[data-flip="vanished"]').allInnerTexts()).toEqual([`core ${PASSING} › retired.row (passed → absent)`]);
    await page.locator(`button.cell[data-group="${FAILING}"]`).click();
    expect(await page.locator('li.row[data-row-id="permission.allow"]:visible .badge.flip').innerText()).toBe('newly failing');
    await changes.screenshot({ path: path.join(SCREENSHOTS, 'matrix-compare.png') });
  });

  test('on a phone the page fits the width (grids scroll inside their frames), and it has a dark scheme', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await shot('matrix-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    const background = (): Promise<string> => computed('body', ['background-color']);
    const light = await background();
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await background()).not.toBe(light);
    await shot('matrix-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('the page made no network request: the only URL ever requested is its own file', () => {
    expect(requests.length).toBeGreaterThan(0);
    expect([...new Set(requests)]).toEqual([pageUrl]);
  });
});
