// Runs the REAL `core` vitest project as a child process against a JSON config, the way vitest's own
// repo tests itself: `node vitest.mjs run --project core --reporter=json --outputFile=...`, then reads
// the JSON reporter output. Every run gets its own folder (config, scenario subset, reports, a pid dir
// the broken-* fixtures record their pids in, and a TMPDIR for the child so the harness's `ahp-core-*`
// temp dirs of exactly this run can be checked afterwards).

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { execa } from 'execa';

import type { AuthMode } from '../../harness/config/define-config.ts';

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const VITEST_CLI = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');

/** Six core rows: allow, deny-with-return (discarded), allow-with-return, ask, schema- and capability-invalid. */
export const SELFTEST_SCENARIO_IDS = [
  'permission.allow',
  'permission.deny-discards-candidate',
  'return.structured-value',
  'permission.ask-stays-pending',
  'inject.deliver-at-unknown',
  'flow.tool.continue-not-advertised',
] as const;

export interface ChildRunDirs {
  dir: string;
  configFile: string;
  scenarioFile: string;
  outputFile: string;
  pidDir: string;
  /** TMPDIR of the child: where globalSetup creates its `ahp-core-*` run dir. */
  tmpDir: string;
}

export interface ChildConfig {
  adapters: Array<{ name: string; cwd: string }>;
  pairings: Array<{ server: string; client: string }>;
  transports: Array<'http' | 'stdio'>;
  /** Default `['none']`: the machinery self-tests need no credentials, and one mode keeps them fast. */
  auth?: AuthMode[];
  watchdogs: { startupMs: number; runMs: number };
  parallelism?: number;
}

/** A fresh folder with the scenario subset and the JSON config (reports always inside the folder). */
export function prepareChildRun(name: string, config: ChildConfig): ChildRunDirs {
  const dir = mkdtempSync(path.join(os.tmpdir(), `ahp-broken-${name}-`));
  const dirs: ChildRunDirs = {
    dir,
    configFile: path.join(dir, 'config.json'),
    scenarioFile: path.join(dir, 'scenarios.json'),
    outputFile: path.join(dir, 'vitest-output.json'),
    pidDir: path.join(dir, 'pids'),
    tmpDir: path.join(dir, 'tmp'),
  };
  mkdirSync(dirs.pidDir);
  mkdirSync(dirs.tmpDir);
  const all = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'fixtures', 'scenarios.json'), 'utf8')) as {
    scenarios: Array<{ id: string }>;
  };
  const scenarios = SELFTEST_SCENARIO_IDS.map((id) => {
    const found = all.scenarios.find((scenario) => scenario.id === id);
    if (!found) throw new Error(`fixtures/scenarios.json has no scenario "${id}" (the self-test subset needs it)`);
    return found;
  });
  writeFileSync(dirs.scenarioFile, `${JSON.stringify({ version: 1, scenarios })}\n`);
  writeFileSync(
    dirs.configFile,
    `${JSON.stringify(
      {
        schemas: path.join(PROJECT_ROOT, 'schemas'),
        scenarios: { core: dirs.scenarioFile },
        adapters: config.adapters,
        pairings: config.pairings,
        transports: config.transports,
        auth: config.auth ?? ['none'],
        watchdogs: config.watchdogs,
        parallelism: config.parallelism ?? 4,
        reports: path.join(dir, 'reports'),
      },
      null,
      2,
    )}\n`,
  );
  return dirs;
}

/** The reference adapter, or a broken fixture folder, as a config entry. */
export function referenceAdapter(name = 'reference'): { name: string; cwd: string } {
  return { name, cwd: path.join(PROJECT_ROOT, 'adapters', 'reference') };
}
export function fixtureAdapter(folder: string, name = folder.replace(/^broken-/, '')): { name: string; cwd: string } {
  return { name, cwd: path.join(FIXTURES, folder) };
}

/**
 * Starts `vitest run --project core` for the prepared run (bounded by execa's timeout). With
 * `matrixReport`, our matrix reporter runs too and writes `<dir>/reports/core.json`.
 */
export function startCoreChild(dirs: ChildRunDirs, timeoutMs: number, options: { matrixReport?: boolean } = {}) {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    // The child is a fresh vitest, not a worker of ours.
    if (value !== undefined && key !== 'VITEST' && !key.startsWith('VITEST_')) env[key] = value;
  }
  Object.assign(env, { AHP_CONFIG: dirs.configFile, AHP_SELFTEST_PID_DIR: dirs.pidDir, TMPDIR: dirs.tmpDir });
  return execa(
    process.execPath,
    [
      VITEST_CLI,
      'run',
      '--project',
      'core',
      '--reporter=json',
      ...(options.matrixReport ? ['--reporter=./harness/reporters/matrix-reporter.ts'] : []),
      `--outputFile=${dirs.outputFile}`,
    ],
    {
      cwd: PROJECT_ROOT,
      env,
      extendEnv: false,
      timeout: timeoutMs,
      forceKillAfterDelay: 2000,
      reject: false,
      all: true,
      cleanup: true,
    },
  );
}

/** One test of vitest's JSON reporter output. */
export interface JsonAssertion {
  ancestorTitles: string[];
  title: string;
  fullName: string;
  status: 'passed' | 'failed' | 'skipped' | 'pending' | 'todo' | 'disabled';
  failureMessages: string[];
  /** vitest task meta: the matrix row (`ahpMatrix`) for core rows. */
  meta?: { ahpMatrix?: { adapterStatus?: string; verdict?: string; skipReason?: string } };
}

interface JsonReport {
  testResults: Array<{ name: string; assertionResults: JsonAssertion[] }>;
}

export function readJsonReport(file: string): JsonAssertion[] {
  const report = JSON.parse(readFileSync(file, 'utf8')) as JsonReport;
  return report.testResults.flatMap((result) => result.assertionResults);
}

/** The rows of one `<server>→<client> <transport>/<auth>` group, in file order. */
export function groupRows(rows: JsonAssertion[], group: string): JsonAssertion[] {
  return rows.filter((row) => row.ancestorTitles.at(-1) === group);
}

/** pid → role, as recorded by the broken-* fixtures (`<pidDir>/<pid>` containing the role). */
export function recordedPids(pidDir: string): Map<number, string> {
  const pids = new Map<number, string>();
  for (const entry of readdirSync(pidDir)) {
    if (!/^\d+$/.test(entry)) continue; // skip `*.tmp` files of an atomic write in progress
    pids.set(Number(entry), readFileSync(path.join(pidDir, entry), 'utf8').trim());
  }
  return pids;
}

/** True when `pid` no longer exists: kill(pid, 0) throws ESRCH. */
export function pidGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Waits (bounded) until every pid is gone; returns the survivors as `pid (role)`. A zombie still
 * answers kill(pid, 0), and init reaps reparented zombies within about a second here, so the bound
 * leaves room for that. Polls: there is no OS event for "this pid is gone"; the poll only observes.
 */
export async function survivorsAfter(pids: Map<number, string>, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let alive = [...pids.keys()].filter((pid) => !pidGone(pid));
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    alive = alive.filter((pid) => !pidGone(pid));
  }
  return alive.map((pid) => `${pid} (${pids.get(pid)})`);
}

/** SIGKILLs the given recorded pids (only ever processes this test started, through the fixtures). */
export function killRecorded(pids: Iterable<number>): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Waits (bounded) until the pid dir holds every role in `roles`; resolves with the recorded map. */
export function waitForRoles(pidDir: string, roles: string[], timeoutMs: number): Promise<Map<number, string>> {
  return new Promise((resolve, reject) => {
    let done = false;
    const check = (): void => {
      if (done) return;
      const pids = recordedPids(pidDir);
      const seen = new Set(pids.values());
      if (roles.every((role) => seen.has(role))) finish(undefined, pids);
    };
    const finish = (error: Error | undefined, pids?: Map<number, string>): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(poll);
      watcher.close();
      if (error) reject(error);
      else resolve(pids!);
    };
    const timer = setTimeout(() => {
      const seen = [...recordedPids(pidDir).values()];
      finish(new Error(`within ${timeoutMs} ms only these roles recorded a pid: ${seen.join(', ') || 'none'}; waiting for ${roles.join(', ')}`));
    }, timeoutMs);
    const watcher = watch(pidDir, check);
    watcher.on('error', () => undefined);
    const poll = setInterval(check, 100); // fs.watch can miss events on some filesystems
    check();
  });
}

/** `ahp-core-*` entries left in a TMPDIR. */
export function leftoverRunDirs(tmpDir: string): string[] {
  return readdirSync(tmpDir).filter((entry) => entry.startsWith('ahp-core-'));
}

export function removeChildRun(dirs: ChildRunDirs): void {
  rmSync(dirs.dir, { recursive: true, force: true });
}
