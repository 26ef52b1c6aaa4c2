// Planning the matrix: the adapter.json `auth` extension (validation, and the `unsupported` groups it
// yields), `inapplicable` stdio groups, and which HTTP servers are started. Then one real child `core`
// run proving that an unsupported group is a skipped test with its reason — never run, no process
// started for it, reported `unsupported` — while the supported groups of the same run really run.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { AdapterError, loadAdapter } from '../../harness/adapters/adapter-manifest.ts';
import type { LoadedAdapter } from '../../harness/adapters/types.ts';
import { AUTH_MODES, type AuthMode } from '../../harness/config/define-config.ts';
import { httpServersNeeded, isRunnable, notRunReason, planMatrix, unsupportedReason } from '../../harness/runs/plan.ts';
import { resolvedConfig } from './support/resolved-config.ts';
import { fixtureAdapter, leftoverRunDirs, prepareChildRun, referenceAdapter, removeChildRun, runVitestChild, SELFTEST_SCENARIO_IDS, type ChildRunDirs, HONEST_WATCHDOGS } from './support/child-vitest-run.ts';
import { killRecorded, recordedPids, survivorsAfter } from './support/recorded-pids.ts';
import { groupRows, type JsonAssertion } from './support/vitest-json-report.ts';

function adapter(name: string, auth?: AuthMode[]): LoadedAdapter {
  return {
    name,
    cwd: `/sdk/${name}`,
    adapterFile: `/sdk/${name}/interop/adapter.json`,
    manifest: { language: name, server: ['server'], client: ['client'], ...(auth ? { auth } : {}) },
  };
}

const config = resolvedConfig;

function adapters(...list: LoadedAdapter[]): Map<string, LoadedAdapter> {
  return new Map(list.map((entry) => [entry.name, entry]));
}

describe('planMatrix: inapplicable and unsupported groups', () => {
  test('adapters that declare nothing: http × every mode runs, stdio runs only with none', () => {
    const groups = planMatrix(config(), adapters(adapter('ref')));
    expect(groups.map((group) => [group.label, isRunnable(group)])).toEqual([
      ['ref→ref http/none', true],
      ['ref→ref http/bearer', true],
      ['ref→ref http/oauth', true],
      ['ref→ref http/mtls', true],
      ['ref→ref http/workload', true],
      ['ref→ref stdio/none', true],
      ['ref→ref stdio/bearer', false],
      ['ref→ref stdio/oauth', false],
      ['ref→ref stdio/mtls', false],
      ['ref→ref stdio/workload', false],
    ]);
    const stdioBearer = groups.find((group) => group.label === 'ref→ref stdio/bearer')!;
    expect(stdioBearer.inapplicable).toBe('inapplicable: stdio uses process trust only; auth mode "bearer" applies to HTTP');
    expect(stdioBearer.unsupported).toBeUndefined();
  });

  test('a mode the server adapter does not declare is unsupported, with the exact reason', () => {
    const groups = planMatrix(
      config({ transports: ['http'], auth: ['none', 'bearer'], pairings: [{ server: 'py', client: 'ref' }] }),
      adapters(adapter('py', ['none']), adapter('ref')),
    );
    expect(groups.map((group) => [group.label, group.unsupported])).toEqual([
      ['py→ref http/none', undefined],
      ['py→ref http/bearer', 'unsupported: adapter "py" does not implement auth mode "bearer" (interop/adapter.json auth)'],
    ]);
    expect(notRunReason(groups[1]!)).toBe(groups[1]!.unsupported);
  });

  test('the client adapter counts too, and both lacking names both', () => {
    const list = adapters(adapter('go', ['none', 'mtls']), adapter('rs', ['none']), adapter('ref'));
    expect(unsupportedReason(list.get('ref')!, list.get('go')!, 'bearer')).toBe(
      'unsupported: adapter "go" does not implement auth mode "bearer" (interop/adapter.json auth)',
    );
    expect(unsupportedReason(list.get('go')!, list.get('rs')!, 'mtls')).toBe(
      'unsupported: adapter "rs" does not implement auth mode "mtls" (interop/adapter.json auth)',
    );
    expect(unsupportedReason(list.get('go')!, list.get('rs')!, 'oauth')).toBe(
      'unsupported: adapters "go" and "rs" do not implement auth mode "oauth" (interop/adapter.json auth)',
    );
    expect(unsupportedReason(list.get('go')!, list.get('go')!, 'oauth')).toBe(
      'unsupported: adapter "go" does not implement auth mode "oauth" (interop/adapter.json auth)',
    );
    expect(unsupportedReason(list.get('go')!, list.get('ref')!, 'mtls')).toBeUndefined();
  });

  test('stdio with another mode stays inapplicable even when the mode is also unsupported', () => {
    const groups = planMatrix(config({ auth: ['bearer'] }), adapters(adapter('py', ['none'])));
    const stdio = groups.find((group) => group.transport === 'stdio')!;
    expect(stdio.inapplicable).toMatch(/^inapplicable: /);
    expect(stdio.unsupported).toBeUndefined();
    const http = groups.find((group) => group.transport === 'http')!;
    expect(http.unsupported).toMatch(/^unsupported: /);
  });

  test('no HTTP server is planned for an unsupported or inapplicable group', () => {
    const groups = planMatrix(
      config({ auth: ['none', 'bearer', 'mtls'] }),
      adapters(adapter('py', ['none', 'mtls']), adapter('ref')),
    );
    expect(httpServersNeeded(groups).map((entry) => entry.key)).toEqual(['py/none', 'py/mtls', 'ref/none', 'ref/mtls', 'ref/bearer']);
  });
});

describe('adapter.json `auth` (our documented extension)', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'ahp-plan-'));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  function load(auth: unknown, name = 'sdk'): LoadedAdapter {
    const cwd = path.join(tmp, name);
    const adapterFile = path.join(cwd, 'interop', 'adapter.json');
    mkdirSync(path.dirname(adapterFile), { recursive: true });
    const manifest: Record<string, unknown> = { language: 'python', server: ['s'], client: ['c'] };
    if (auth !== undefined) manifest.auth = auth;
    writeFileSync(adapterFile, JSON.stringify(manifest));
    return loadAdapter({ name, cwd, adapterFile });
  }

  function loadError(auth: unknown): AdapterError {
    try {
      load(auth, 'bad');
    } catch (error) {
      expect(error).toBeInstanceOf(AdapterError);
      return error as AdapterError;
    }
    throw new Error('expected an AdapterError');
  }

  test('absent: no declaration (every configured mode is tried)', () => {
    expect(load(undefined).manifest.auth).toBeUndefined();
    expect('auth' in load(undefined).manifest).toBe(false);
  });

  test('a list of known modes is kept as declared', () => {
    expect(load(['none', 'mtls']).manifest.auth).toEqual(['none', 'mtls']);
    expect(load([...AUTH_MODES]).manifest.auth).toEqual([...AUTH_MODES]);
  });

  test.each([
    ['not an array', 'bearer', 'auth', /expected a non-empty array of the auth modes the adapter implements \(none, bearer, oauth, mtls, workload\).*got "bearer"/],
    ['empty', [], 'auth', /expected a non-empty array of the auth modes .*; omit the key to try every configured mode, got /],
    ['an unknown mode', ['none', 'basic'], 'auth[1]', /expected one of none, bearer, oauth, mtls, workload, got "basic"/],
    ['a non-string', [true], 'auth[0]', /expected one of none, bearer, oauth, mtls, workload, got boolean true/],
    ['a duplicate', ['none', 'oauth', 'none'], 'auth[2]', /duplicate auth mode "none"/],
  ])('%s is an error naming the file and the field', (_what, auth, field, pattern) => {
    const error = loadError(auth);
    expect(error.field).toBe(field);
    expect(error.file).toBe(path.join(tmp, 'bad', 'interop', 'adapter.json'));
    expect(error.message).toContain(`${error.file}: ${field}: `);
    expect(error.message).toMatch(pattern);
  });

  test('the reference adapter declares all five modes', () => {
    const reference = referenceAdapter();
    const loaded = loadAdapter({ ...reference, adapterFile: path.join(reference.cwd, 'interop', 'adapter.json') });
    expect(loaded.manifest.auth).toEqual(['none', 'bearer', 'oauth', 'mtls', 'workload']);
  });
});

// ---- end to end: a real child `core` run -----------------------------------------------------------

/** Bound for the child vitest run: boot, three servers (one with bearer), four client runs, teardown. */
const CHILD_TIMEOUT_MS = 150_000;
const MATRIX_REPORTER = './harness/reporters/matrix-reporter.ts';

describe('an unsupported mode in a real core run (reference + an adapter declaring only "none", http × none/bearer)', () => {
  const UNSUPPORTED = 'unsupported: adapter "declared" does not implement auth mode "bearer" (interop/adapter.json auth)';
  let dirs: ChildRunDirs;
  let exitCode: number | undefined;
  let output = '';
  let rows: JsonAssertion[] = [];
  let roles: string[] = [];
  let survivors: string[] = [];
  let leftover: string[] = [];

  beforeAll(async () => {
    dirs = prepareChildRun('unsupported', {
      adapters: [referenceAdapter(), fixtureAdapter('declared-auth-none', 'declared')],
      pairings: [
        { server: 'reference', client: 'reference' },
        { server: 'declared', client: 'reference' },
        { server: 'reference', client: 'declared' },
      ],
      transports: ['http'],
      auth: ['none', 'bearer'],
      watchdogs: { ...HONEST_WATCHDOGS, runMs: 60_000 },
      parallelism: 2,
    });
    const run = await runVitestChild(dirs, 'core', CHILD_TIMEOUT_MS, { reporters: [MATRIX_REPORTER] });
    ({ exitCode, output, rows } = run);
    const pids = recordedPids(dirs.pidDir);
    roles = [...new Set(pids.values())].sort();
    survivors = await survivorsAfter(pids, 5000);
    killRecorded([...pids.keys()]);
    leftover = leftoverRunDirs(run.tmpDir);
  }, CHILD_TIMEOUT_MS + 15_000);
  afterAll(() => {
    if (dirs) removeChildRun(dirs);
  });

  test('the run passes (vitest exit 0), leaves no process and no temp dir behind', () => {
    expect(exitCode, `child output:\n${output.slice(-4000)}`).toBe(0);
    expect(survivors).toEqual([]);
    expect(leftover).toEqual([]);
  });

  test('supported groups really run and pass, bearer included', () => {
    for (const group of ['reference→reference http/none', 'reference→reference http/bearer', 'declared→reference http/none', 'reference→declared http/none']) {
      const found = groupRows(rows, group);
      expect(found.map((row) => row.title), group).toEqual([...SELFTEST_SCENARIO_IDS]);
      expect(found.every((row) => row.status === 'passed'), `${group}: ${JSON.stringify(found.map((row) => row.status))}`).toBe(true);
    }
  });

  test('unsupported groups are skipped with the reason, never passed', () => {
    for (const group of ['declared→reference http/bearer', 'reference→declared http/bearer']) {
      const found = groupRows(rows, group);
      expect(found.map((row) => row.title), group).toEqual([...SELFTEST_SCENARIO_IDS]);
      for (const row of found) {
        expect(row.status, row.fullName).toBe('skipped');
        expect(row.meta?.ahpMatrix?.adapterStatus, row.fullName).toBe('unsupported');
        expect(row.meta?.ahpMatrix?.skipReason, row.fullName).toBe(UNSUPPORTED);
      }
    }
  });

  test('no process of the declaring adapter ever ran with the unsupported mode', () => {
    // The declared server was started once (http/none) and its client ran once (http/none).
    expect(roles).toEqual([
      'declared-client-http-none',
      'declared-client-http-none-inner',
      'declared-server-none',
      'declared-server-none-inner',
    ]);
  });

  test('the matrix report lists the unsupported groups as unsupported', () => {
    const report = JSON.parse(readFileSync(path.join(dirs.dir, 'reports', 'core.json'), 'utf8')) as {
      groups: Array<{ server: string; client: string; auth: string; status: string; results: Array<{ status: string; adapterStatus: string }> }>;
    };
    const statuses = Object.fromEntries(report.groups.map((group) => [`${group.server}→${group.client} ${group.auth}`, group.status]));
    expect(statuses).toEqual({
      'reference→reference none': 'passed',
      'reference→reference bearer': 'passed',
      'declared→reference none': 'passed',
      'declared→reference bearer': 'unsupported',
      'reference→declared none': 'passed',
      'reference→declared bearer': 'unsupported',
    });
    const unsupported = report.groups.filter((group) => group.status === 'unsupported').flatMap((group) => group.results);
    expect(unsupported.every((row) => row.status === 'skipped' && row.adapterStatus === 'unsupported')).toBe(true);
  });
});
