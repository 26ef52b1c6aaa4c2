// Watch mode while writing an adapter (harness/setup/adapter-watch.ts), driven through vitest's Node
// API: vitest runs in watch mode on the core project with two adapters; editing a file in one
// adapter's folder restarts that adapter's server (a new pid), keeps the other's (same pid), and
// reruns exactly the groups that involve the edited adapter — with the new behaviour. No sleeps: the
// test waits on the driver's run-end events, each bounded.

import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { adapterPattern, ignoredChange, isRunOutput } from '../../harness/setup/adapter-watch.ts';
import { PROJECT_ROOT, prepareChildRun, removeChildRun, type ChildRunDirs } from './support/child-vitest-run.ts';
import { killRecorded, pidGone, recordedPids, survivorsAfter } from './support/recorded-pids.ts';
import { followWatchDriver, type RunEnd, type WatchEvents } from './support/watch-events.ts';

const FIXTURES = path.join(PROJECT_ROOT, 'suites', 'harness', 'fixtures');

describe('what a change selects', () => {
  test('dependency folders, build output and dotfiles are ignored', () => {
    for (const ignored of ['node_modules/x/index.js', '.venv/lib/a.py', 'target/debug/x', 'dist/client.js', '.git/HEAD', 'src/.cache', '.env']) expect(ignoredChange(ignored), ignored).toBe(true);
    for (const kept of ['client.ts', 'src/server.py', 'interop/adapter.json']) expect(ignoredChange(kept), kept).toBe(false);
  });
  test("the run's own reports are not an edit, even inside the adapter's folder; a sibling folder is", () => {
    const reports = path.join(os.tmpdir(), 'sdk', 'reports');
    expect(isRunOutput(path.join(reports, 'core.json'), [reports])).toBe(true);
    expect(isRunOutput(reports, [reports])).toBe(true);
    expect(isRunOutput(path.join(os.tmpdir(), 'sdk', 'reports-old', 'core.json'), [reports])).toBe(false);
    expect(isRunOutput(path.join(os.tmpdir(), 'sdk', 'server.py'), [reports])).toBe(false);
  });
  test('the rerun pattern selects every group and probe of the adapter as server or client, and nothing else', () => {
    const pattern = adapterPattern(['py.sdk']);
    for (const name of ['py.sdk→ts http/none permission.allow', 'ts→py.sdk stdio/none x', 'py.sdk bearer/missing-credential GET /capabilities', 'py.sdk none receiver/raw-upload']) expect(pattern.test(name), name).toBe(true);
    for (const name of ['ts→ts http/none permission.allow', 'pyXsdk→ts http/none a', 'ts→py.sdkx http/none a']) expect(pattern.test(name), name).toBe(false);
  });
});

describe('editing an adapter in watch mode', () => {
  let dirs: ChildRunDirs;
  let edited = '';
  let driver: ResultPromise;
  let runs: RunEnd[] = [];
  let nextRun: WatchEvents['nextRun'] = () => Promise.reject(new Error('the watch driver has not started'));
  let survivors: string[] = [];
  let pids = new Map<number, string>();
  let afterFirst = new Map<number, string>();
  let beforeClose = new Map<number, string>();
  let aliveBeforeClose = new Set<number>();

  beforeAll(async () => {
    // The edited adapter lives outside the project (vitest's own watcher must not see it).
    edited = mkdtempSync(path.join(os.tmpdir(), 'ahp-watch-adapter-'));
    mkdirSync(path.join(edited, 'interop'));
    writeFileSync(
      path.join(edited, 'interop', 'adapter.json'),
      JSON.stringify({
        language: 'typescript',
        // Outside the project, `--import tsx` would not resolve: name the project's tsx loader.
        server: ['node', '--import', import.meta.resolve('tsx'), path.join(FIXTURES, 'watch-common', 'server.mjs'), 'edited-server'],
        client: ['node', path.join(FIXTURES, 'watch-common', 'client.mjs'), 'edited-client'],
      }),
    );
    writeFileSync(path.join(edited, 'behaviour.json'), '{"lie": true}');
    cpSync(path.join(FIXTURES, 'watch-stable', 'behaviour.json'), path.join(edited, 'behaviour.stable-copy.json'));
    dirs = prepareChildRun('watch', {
      adapters: [{ name: 'stable', cwd: path.join(FIXTURES, 'watch-stable') }, { name: 'edited', cwd: edited }],
      pairings: [{ server: 'stable', client: 'stable' }, { server: 'stable', client: 'edited' }, { server: 'edited', client: 'stable' }],
      transports: ['http'],
      watchdogs: { startupMs: 20_000, runMs: 30_000 },
    });
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined && key !== 'VITEST' && !key.startsWith('VITEST_')) env[key] = value;
    driver = execa(process.execPath, [path.join(PROJECT_ROOT, 'suites', 'harness', 'support', 'watch-driver.mjs')], {
      cwd: PROJECT_ROOT,
      env: { ...env, AHP_CONFIG: dirs.configFile, AHP_SELFTEST_PID_DIR: dirs.pidDir, TMPDIR: dirs.dir },
      extendEnv: false,
      reject: false,
      timeout: 150_000,
      stdin: 'pipe',
    });
    ({ runs, nextRun } = followWatchDriver(driver));

    await nextRun(1, 90_000);
    afterFirst = recordedPids(dirs.pidDir);
    // The edit: the adapter's client stops lying.
    writeFileSync(path.join(edited, 'behaviour.json'), '{"lie": false}');
    await nextRun(2, 90_000);
    beforeClose = recordedPids(dirs.pidDir);
    aliveBeforeClose = new Set([...beforeClose.keys()].filter((pid) => !pidGone(pid)));
    driver.stdin!.write('close\n');
    await driver;
    pids = recordedPids(dirs.pidDir);
    survivors = await survivorsAfter(pids, 5000);
    killRecorded([...pids.keys()]);
  }, 200_000);
  afterAll(() => {
    if (dirs) removeChildRun(dirs);
    if (edited) rmSync(edited, { recursive: true, force: true });
  });

  const states = (run: RunEnd, group: string): string[] => [...new Set(run.tests.filter((t) => t.group === group).map((t) => t.state))];
  /** The first failure of a group, for assertion messages. */
  const why = (run: RunEnd, group: string): string => (run.tests.find((t) => t.group === group && t.state === 'failed') as { error?: string } | undefined)?.error ?? '';

  test('the first run sees the lying client fail its positive rows', () => {
    expect(states(runs[0]!, 'stable→edited http/none')).toContain('failed');
    expect(states(runs[0]!, 'stable→stable http/none'), why(runs[0]!, 'stable→stable http/none')).toEqual(['passed']);
    expect(states(runs[0]!, 'edited→stable http/none'), why(runs[0]!, 'edited→stable http/none')).toEqual(['passed']);
  });

  test('the edit reruns exactly the groups involving the edited adapter, with its new behaviour', () => {
    const second = runs[1]!;
    expect(states(second, 'stable→edited http/none')).toEqual(['passed']);
    expect(states(second, 'edited→stable http/none')).toEqual(['passed']);
    expect(states(second, 'stable→stable http/none')).not.toContain('passed');
    expect(states(second, 'stable→stable http/none')).not.toContain('failed');
  });

  test("the edited adapter's server was restarted, the other one kept up, and nothing survives", () => {
    const servers = (pidsByRole: Map<number, string>, role: string): number[] => [...pidsByRole].filter(([, r]) => r === role).map(([pid]) => pid);
    // The stable adapter: no server started after the first run, and every one still up before close.
    expect(servers(afterFirst, 'stable-server').length).toBeGreaterThan(0);
    expect(servers(beforeClose, 'stable-server')).toEqual(servers(afterFirst, 'stable-server'));
    expect(servers(beforeClose, 'stable-server').every((pid) => aliveBeforeClose.has(pid))).toBe(true);
    // The edited adapter: its first server is gone, a new one answered the rerun.
    const firstEdited = servers(afterFirst, 'edited-server');
    const newEdited = servers(beforeClose, 'edited-server').filter((pid) => !firstEdited.includes(pid));
    expect(firstEdited.length).toBeGreaterThan(0);
    expect(firstEdited.some((pid) => aliveBeforeClose.has(pid))).toBe(false);
    expect(newEdited.length).toBeGreaterThan(0);
    expect(survivors).toEqual([]);
    expect(pids.size).toBeGreaterThanOrEqual(beforeClose.size);
  });
});
