// The known-failure baseline (harness/baseline/): the file format and its errors, matching and
// coverage, and — through the REAL core project in a child vitest — expected failures that keep CI
// green, a stale entry that fails the run like a regression, and an update run that rewrites the file
// so the next run is green with nothing stale.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { applyBaseline } from '../../harness/baseline/apply-baseline.ts';
import { configuredRows } from '../../harness/baseline/configured-rows.ts';
import { loadConfig, projectRoot } from '../../harness/config/load-config.ts';
import { Baseline, BaselineError, parseBaseline } from '../../harness/baseline/baseline.ts';
import { rewriteBaseline, staleWildcardEntries } from '../../harness/baseline/rewrite.ts';
import { fixtureAdapter, prepareChildRun, referenceAdapter, removeChildRun, runVitestChild, SELFTEST_SCENARIO_IDS, type ChildRun, type ChildRunDirs } from './support/child-vitest-run.ts';
import { groupRows } from './support/vitest-json-report.ts';

const FILE = '/cfg/baseline.json';
const caught = (fn: () => unknown): BaselineError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof BaselineError) return error;
    throw error;
  }
  throw new Error('expected a BaselineError');
};

describe('the baseline file', () => {
  test.each([
    ['{', /^\/cfg\/baseline\.json: not valid JSON at line 1/],
    ['[]', /^\/cfg\/baseline\.json: expected \{"version": 1, "entries": \[\.\.\.\]\}/],
    ['{"version":2,"entries":[]}', /^\/cfg\/baseline\.json: version: expected 1/],
    ['{"version":1,"entries":{}}', /entries: expected an array of \{group, id, reason\}/],
    ['{"version":1,"entries":[{"group":"a","id":"b"}]}', /entries\[0\]\.reason: expected a non-empty string, got nothing/],
    ['{"version":1,"entries":[{"group":"a","id":"b","reason":"r","why":1}]}', /entries\[0\]\.why: unknown key/],
    ['{"version":1,"entries":[],"extra":1}', /extra: unknown key/],
  ])('%s is refused naming the file and the field', (text, message) => {
    expect(caught(() => parseBaseline(text, FILE)).message).toMatch(message);
  });

  const baseline = new Baseline(FILE, [
    { group: 'py→ts http/none', id: 'permission.allow', reason: 'exact' },
    { group: 'py→* */bearer', id: '*', reason: 'wildcards' },
    { group: 'ts→ts http/none', id: 'x', reason: 'lifecycle only', project: 'lifecycle' },
  ]);
  test('an exact entry lists its row; `*` stands for one whole segment; `project` narrows', () => {
    expect(baseline.match({ project: 'core', group: 'py→ts http/none', id: 'permission.allow' })?.index).toBe(0);
    expect(baseline.match({ project: 'core', group: 'py→go stdio/bearer', id: 'anything' })?.index).toBe(1);
    expect(baseline.match({ project: 'core', group: 'py→go/x stdio/bearer', id: 'anything' })).toBeUndefined();
    expect(baseline.match({ project: 'core', group: 'ts→ts http/none', id: 'x' })).toBeUndefined();
    expect(baseline.match({ project: 'lifecycle', group: 'ts→ts http/none', id: 'x' })?.index).toBe(2);
  });
  test('an entry that matches no configured row is an error naming the file and the entry', () => {
    const error = caught(() => baseline.checkCoverage([{ project: 'core', group: 'py→ts http/none', id: 'permission.allow' }, { project: 'core', group: 'py→ts stdio/bearer', id: 'y' }]));
    expect(error.message).toBe(`${FILE}: entries[2]: {"group":"ts→ts http/none","id":"x","reason":"lifecycle only","project":"lifecycle"} matches no configured row (check the group label, the id and the project)`);
  });
  test('listed failures are expected, a listed exact row that passes is stale, wildcard passes wait for the run', () => {
    const row = { project: 'core', group: 'py→ts http/none', id: 'permission.allow' };
    expect(applyBaseline(baseline, row, true)).toMatchObject({ action: 'expected-failure', state: { state: 'expected-failure', reason: 'exact', index: 0 } });
    expect(applyBaseline(baseline, row, false)).toMatchObject({ action: 'stale' });
    expect((applyBaseline(baseline, row, false) as { message: string }).message).toContain('passes now — remove it from the baseline /cfg/baseline.json (entries[0]');
    expect(applyBaseline(baseline, { project: 'core', group: 'py→go http/bearer', id: 'z' }, false)).toMatchObject({ action: 'listed-passed' });
    expect(applyBaseline(baseline, { project: 'core', group: 'go→go http/none', id: 'z' }, true)).toEqual({ action: 'as-is' });
    expect(applyBaseline(undefined, row, true)).toEqual({ action: 'as-is' });
  });
  test('a wildcard entry is stale only when none of the rows it listed failed', () => {
    const entry = baseline.entries[1]!;
    const seen = (verdict: string, state: 'expected-failure' | 'listed-passed') => ({ project: 'core', group: 'py→go http/bearer', id: verdict, verdict, state: { state, reason: 'w', entry, index: 1 } });
    expect(staleWildcardEntries([seen('passed', 'listed-passed'), seen('passed', 'listed-passed')])).toEqual([entry]);
    expect(staleWildcardEntries([seen('passed', 'listed-passed'), seen('expected-failure', 'expected-failure')])).toEqual([]);
  });
});

describe('configuredRows (what an entry may name)', () => {
  test('the default config defines rows in every family a baseline can name', async () => {
    const config = await loadConfig({ file: path.join(projectRoot(), 'adapters.config.ts') });
    const rows = await configuredRows(config);
    const projects = new Set(rows.map((row) => row.project));
    expect([...projects].sort()).toEqual(['auth', 'catalogue', 'compaction', 'core', 'elicitation', 'isolation', 'lifecycle']);
    expect(rows).toContainEqual({ project: 'compaction', group: 'reference→reference stdio/none', id: 'probe:legacy-body' });
    expect(rows).toContainEqual({ project: 'isolation', group: 'reference→reference http/bearer', id: 'sender-isolation' });
    expect(rows).toContainEqual({ project: 'catalogue', group: 'reference→reference stdio/none', id: expect.any(String) });
    expect(rows).toContainEqual({ project: 'lifecycle', group: 'reference mtls', id: 'receiver/raw-upload' });
    expect(rows).toContainEqual({ project: 'catalogue', group: 'reference bearer', id: 'receiver/event-less-observation' });
  });
});

describe('through the core project: expected failures, a stale entry, an update run', () => {
  // The client reports {rejected:true} for everything: its four positive rows fail, its two negative rows pass.
  const group = 'reference→client-rejects-all http/none';
  let dir = '';
  let baselineFile = '';
  let dirs: ChildRunDirs;
  let first: ChildRun;
  let update: ChildRun;
  let after: ChildRun;
  let rewritten: { entries: Array<{ group: string; id: string; reason: string; project?: string }> };
  let firstReport: { groups: Array<{ results: Array<{ id: string; status: string; reason?: string }> }> };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ahp-baseline-'));
    baselineFile = path.join(dir, 'baseline.json');
    writeFileSync(
      baselineFile,
      JSON.stringify({
        version: 1,
        entries: [
          { group, id: 'permission.allow', reason: 'rejects every response (issue 42)' },
          { group: 'reference→* http/*', id: 'return.structured-value', reason: 'wildcard' },
          { group, id: 'inject.deliver-at-unknown', reason: 'was failing once' },
        ],
      }),
    );
    dirs = prepareChildRun('baseline', {
      adapters: [referenceAdapter(), fixtureAdapter('broken-client-rejects-all')],
      pairings: [{ server: 'reference', client: 'client-rejects-all' }],
      transports: ['http'],
      watchdogs: { startupMs: 20_000, runMs: 30_000 },
      baseline: baselineFile,
    });
    first = await runVitestChild(dirs, 'core', 90_000);
    firstReport = JSON.parse(readFileSync(path.join(dirs.reportsDir, 'core.json'), 'utf8')) as typeof firstReport;
    update = await runVitestChild(dirs, 'core', 90_000, { env: { AHP_UPDATE_BASELINE: '1' } });
    rewritten = JSON.parse(readFileSync(baselineFile, 'utf8')) as typeof rewritten;
    after = await runVitestChild(dirs, 'core', 90_000);
  }, 300_000);
  afterAll(() => {
    if (dirs) removeChildRun(dirs);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('listed failures are expected failures (skipped with the reason); a listed passing row fails as stale; unlisted failures still fail', () => {
    expect(first.exitCode, first.output.slice(-3000)).toBe(1);
    const rows = new Map(groupRows(first.rows, group).map((row) => [row.title, row]));
    expect([...rows.keys()]).toEqual([...SELFTEST_SCENARIO_IDS]);
    expect(rows.get('permission.allow')?.status).toBe('skipped');
    expect(rows.get('return.structured-value')?.status).toBe('skipped');
    const stale = rows.get('inject.deliver-at-unknown')!;
    expect(stale.status).toBe('failed');
    expect(stale.failureMessages.join('\n')).toContain(`stale baseline entry: ${group} › inject.deliver-at-unknown passes now — remove it from the baseline ${baselineFile}`);
    expect(rows.get('permission.deny-discards-candidate')?.status).toBe('failed');
    expect(rows.get('permission.ask-stays-pending')?.status).toBe('failed');
    expect(rows.get('flow.tool.continue-not-advertised')?.status).toBe('passed');
  });

  test('core.json shows expected failures with their reason', () => {
    const results = new Map(firstReport.groups[0]!.results.map((row) => [row.id, row]));
    expect(results.get('permission.allow')).toMatchObject({ status: 'expected-failure', reason: 'rejects every response (issue 42)' });
    expect(results.get('return.structured-value')).toMatchObject({ status: 'expected-failure', reason: 'wildcard' });
    expect(results.get('permission.deny-discards-candidate')?.status).toBe('failed');
  });

  test('an update run records the current failures, keeps the reasons that remain and drops the stale entry', () => {
    expect(update.exitCode, update.output.slice(-3000)).toBe(0);
    expect(rewritten.entries.slice(0, 2)).toEqual([
      { group, id: 'permission.allow', reason: 'rejects every response (issue 42)' },
      { group: 'reference→* http/*', id: 'return.structured-value', reason: 'wildcard' },
    ]);
    expect(rewritten.entries.slice(2).map((entry) => [entry.project, entry.group, entry.id])).toEqual([
      ['core', group, 'permission.deny-discards-candidate'],
      ['core', group, 'permission.ask-stays-pending'],
    ]);
    expect(rewritten.entries.slice(2).every((entry) => entry.reason.startsWith('failing when recorded by npm run baseline on '))).toBe(true);
  });

  test('with the rewritten file the run is green: every failure expected, nothing stale', () => {
    expect(after.exitCode, after.output.slice(-3000)).toBe(0);
    const statuses = groupRows(after.rows, group).map((row) => row.status);
    expect(statuses.filter((status) => status === 'failed')).toEqual([]);
    expect(statuses.filter((status) => status === 'skipped')).toHaveLength(4);
  });
});

describe('rewriteBaseline', () => {
  test('entries of projects that did not run are kept untouched', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ahp-baseline-unit-'));
    try {
      const file = path.join(dir, 'b.json');
      writeFileSync(file, JSON.stringify({ version: 1, entries: [{ group: 'a→b http/none', id: 'x', reason: 'r', project: 'lifecycle' }] }));
      expect(rewriteBaseline(file, ['core'], [])).toEqual({ kept: 1, added: 0, removed: 0 });
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ version: 1, entries: [{ group: 'a→b http/none', id: 'x', reason: 'r', project: 'lifecycle' }] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('through the lifecycle project: a receiver probe the baseline lists', () => {
  // The lax-refs receiver serves refs it never issued: the REAL lifecycle project runs only its
  // receiver probes (`-t receiver/`), and the baseline lists them all with one wildcard entry.
  const group = 'server-lax-refs none';
  let dir = '';
  let dirs: ChildRunDirs;
  let run: ChildRun;
  let report: { receiverProbes?: Array<{ probe: string; status: string; reason?: string }> };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ahp-baseline-probe-'));
    const baselineFile = path.join(dir, 'baseline.json');
    writeFileSync(baselineFile, JSON.stringify({ version: 1, entries: [{ project: 'lifecycle', group, id: '*', reason: 'lax refs (issue 7)' }] }));
    dirs = prepareChildRun('baseline-probe', {
      adapters: [referenceAdapter(), fixtureAdapter('lying-lifecycle-server-lax-refs', 'server-lax-refs')],
      pairings: [{ server: 'server-lax-refs', client: 'reference' }],
      transports: ['http'],
      watchdogs: { startupMs: 20_000, runMs: 30_000 },
      baseline: baselineFile,
      lifecycleScenarioIds: ['observe.denied-boundary'],
    });
    run = await runVitestChild(dirs, 'lifecycle', 90_000, { args: ['-t', 'server-lax-refs none receiver/'] });
    report = JSON.parse(readFileSync(path.join(dirs.reportsDir, 'lifecycle.json'), 'utf8')) as typeof report;
  }, 120_000);
  afterAll(() => {
    if (dirs) removeChildRun(dirs);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('a failing probe it lists is an expected failure: the run is green and lifecycle.json carries the reason', () => {
    expect(run.exitCode, run.output.slice(-3000)).toBe(0);
    const expected = (report.receiverProbes ?? []).filter((probe) => probe.status === 'expected-failure');
    expect(expected.map((probe) => probe.probe), JSON.stringify(report.receiverProbes)).toContain('missing-ref-rejected');
    for (const probe of expected) expect(probe.reason).toBe('lax refs (issue 7)');
    expect(groupRows(run.rows, group).filter((row) => row.status === 'failed')).toEqual([]);
  });
});

describe('through the auth project: a stale wildcard entry under a command-line --reporter', () => {
  // The child runs with `--reporter=json` only, which replaces the configured reporters: the stale
  // entry can fail the run only if the matrix reporter is still added to the auth project.
  const group = 'reference bearer/*';
  let dir = '';
  let dirs: ChildRunDirs;
  let run: ChildRun;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ahp-baseline-auth-'));
    const baselineFile = path.join(dir, 'baseline.json');
    writeFileSync(baselineFile, JSON.stringify({ version: 1, entries: [{ project: 'auth', group, id: '*', reason: 'was failing once' }] }));
    dirs = prepareChildRun('baseline-auth', {
      adapters: [referenceAdapter()],
      transports: ['http'],
      auth: ['bearer'],
      watchdogs: { startupMs: 20_000, runMs: 30_000 },
      baseline: baselineFile,
    });
    run = await runVitestChild(dirs, 'auth', 90_000, { args: ['-t', 'reference bearer/missing-credential'] });
  }, 120_000);
  afterAll(() => {
    if (dirs) removeChildRun(dirs);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('every listed row passed, so the entry is stale and the run fails naming it', () => {
    const ran = run.rows.filter((row) => row.status !== 'skipped');
    expect(ran.length, run.output.slice(-3000)).toBeGreaterThan(0);
    expect(ran.every((row) => row.status === 'passed'), run.output.slice(-3000)).toBe(true);
    expect(run.output).toContain('stale baseline entry: {"group":"reference bearer/*","id":"*","reason":"was failing once","project":"auth"} lists rows that all passed');
    expect(run.exitCode).toBe(1);
  });
});
