// Runs a REAL vitest project (`core`, `auth`, `lifecycle`, `catalogue`) as a child process against a JSON
// config, the way vitest's own repo tests itself: `node vitest.mjs run --project <p> --reporter=json
// --outputFile=...`, then reads the JSON reporter output (./vitest-json-report.ts). Every run gets its
// own folder: config, scenario subsets (core, and lifecycle and catalogue when asked), reports, a pid
// dir the broken-* and lying-* fixtures record their pids in (./recorded-pids.ts), and one private
// TMPDIR per child so the temp dirs of exactly that child can be checked afterwards.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { execa, type ResultPromise } from 'execa';

import type { AuthMode } from '../../../harness/config/define-config.ts';
import { readJsonReport, type JsonAssertion } from './vitest-json-report.ts';

export const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const VITEST_CLI = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');

/** Six core rows: allow, deny-with-return (discarded), allow-with-return, ask, schema- and capability-invalid. */
/**
 * Watchdogs for a child run in which every process ends by itself: bounds on a stuck process, never
 * speed checks, sized for a loaded 2-core CI machine (reference processes start through tsx, and a
 * plain node start has taken over 5 s there). A case whose point is a watchdog firing sets its own.
 */
export const HONEST_WATCHDOGS = { startupMs: 30_000, runMs: 30_000 } as const;

export const SELFTEST_SCENARIO_IDS = [
  'permission.allow',
  'permission.deny-discards-candidate',
  'return.structured-value',
  'permission.ask-stays-pending',
  'inject.deliver-at-unknown',
  'flow.tool.continue-not-advertised',
] as const;

export interface ChildConfig {
  adapters: Array<{ name: string; cwd: string; adapterFile?: string }>;
  /** Default: every server × client pair. */
  pairings?: Array<{ server: string; client: string }>;
  transports: Array<'http' | 'stdio'>;
  /** Default `['none']`: the machinery self-tests need no credentials, and one mode keeps them fast. */
  auth?: AuthMode[];
  watchdogs: { startupMs: number; runMs: number };
  parallelism?: number;
  /** Rows of fixtures/scenarios.json to use (default: SELFTEST_SCENARIO_IDS). */
  scenarioIds?: readonly string[];
  /** A known-failure baseline file (absolute). */
  baseline?: string;
  /** Rows of fixtures/lifecycle-scenarios.json for `scenarios.lifecycle` (default: no lifecycle file in the config). */
  lifecycleScenarioIds?: readonly string[];
  /** Rows of fixtures/catalogue-scenarios.json for `scenarios.catalogue`, in the order given (default: no catalogue file in the config). */
  catalogueScenarioIds?: readonly string[];
}

export interface ChildRunDirs {
  dir: string;
  configFile: string;
  scenarioFile: string;
  /** The lifecycle scenario subset; written only when the config asked for `lifecycleScenarioIds`. */
  lifecycleScenarioFile: string;
  /** The catalogue scenario subset; written only when the config asked for `catalogueScenarioIds`. */
  catalogueScenarioFile: string;
  reportsDir: string;
  /** Where the broken-* fixtures record their pids (AHP_SELFTEST_PID_DIR of every child). */
  pidDir: string;
}

/** A fresh folder with the scenario subset and the JSON config (reports always inside the folder). */
export function prepareChildRun(name: string, config: ChildConfig): ChildRunDirs {
  const dir = mkdtempSync(path.join(os.tmpdir(), `ahp-selftest-${name}-`));
  const dirs: ChildRunDirs = {
    dir,
    configFile: path.join(dir, 'config.json'),
    scenarioFile: path.join(dir, 'scenarios.json'),
    lifecycleScenarioFile: path.join(dir, 'lifecycle-scenarios.json'),
    catalogueScenarioFile: path.join(dir, 'catalogue-scenarios.json'),
    reportsDir: path.join(dir, 'reports'),
    pidDir: path.join(dir, 'pids'),
  };
  mkdirSync(dirs.pidDir);
  writeSubset(dirs.scenarioFile, 'scenarios.json', config.scenarioIds ?? SELFTEST_SCENARIO_IDS);
  const scenarios: Record<string, string> = { core: dirs.scenarioFile };
  if (config.lifecycleScenarioIds !== undefined) {
    writeSubset(dirs.lifecycleScenarioFile, 'lifecycle-scenarios.json', config.lifecycleScenarioIds);
    scenarios.lifecycle = dirs.lifecycleScenarioFile;
  }
  if (config.catalogueScenarioIds !== undefined) {
    writeSubset(dirs.catalogueScenarioFile, 'catalogue-scenarios.json', config.catalogueScenarioIds);
    scenarios.catalogue = dirs.catalogueScenarioFile;
  }
  const { scenarioIds: _ids, lifecycleScenarioIds: _lifecycleIds, catalogueScenarioIds: _catalogueIds, ...rest } = config;
  writeFileSync(
    dirs.configFile,
    `${JSON.stringify(
      {
        schemas: path.join(PROJECT_ROOT, 'schemas'),
        scenarios,
        ...rest,
        auth: config.auth ?? ['none'],
        parallelism: config.parallelism ?? 4,
        reports: dirs.reportsDir,
      },
      null,
      2,
    )}\n`,
  );
  return dirs;
}

/** Writes the rows `ids` of the project's `fixtures/<fixture>`, in the order given, as a scenario file. */
function writeSubset(file: string, fixture: string, ids: readonly string[]): void {
  const all = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'fixtures', fixture), 'utf8')) as { scenarios: Array<{ id: string }> };
  const scenarios = ids.map((id) => {
    const found = all.scenarios.find((scenario) => scenario.id === id);
    if (!found) throw new Error(`fixtures/${fixture} has no scenario "${id}" (the self-test subset needs it)`);
    return found;
  });
  writeFileSync(file, `${JSON.stringify({ version: 1, scenarios })}\n`);
}

/** The reference adapter, or a fixture folder (`broken-` dropped from the default name), as a config entry. */
export function referenceAdapter(name = 'reference'): { name: string; cwd: string } {
  return { name, cwd: path.join(PROJECT_ROOT, 'adapters', 'reference') };
}
export function fixtureAdapter(folder: string, name = folder.replace(/^broken-/, '')): { name: string; cwd: string } {
  return { name, cwd: path.join(FIXTURES, folder) };
}

export interface ChildRunOptions {
  /** Added to the child's environment. */
  env?: Record<string, string>;
  /** Reporters besides vitest's JSON reporter (a CLI `--reporter` replaces the config's list). */
  reporters?: string[];
  /** Further CLI arguments, e.g. `['-t', '→']` to select only the matrix rows of a project. */
  args?: string[];
  /**
   * Run the child in a process group of its own, so that a harness bug signalling "its own" process
   * group can only ever hit the child, never the vitest that runs the self-test.
   */
  ownProcessGroup?: boolean;
  /** vitest file filters (e.g. `suites/auth/probes.test.ts`): only the project's files that match run. */
  files?: string[];
}

/** A child vitest in flight: the execa subprocess and where its output and temp dirs go. */
export interface StartedChild {
  project: string;
  subprocess: ResultPromise<{ all: true; reject: false }>;
  /** vitest's JSON reporter output. */
  outputFile: string;
  /** The child's TMPDIR: where globalSetup creates its `ahp-core-*` run dir. */
  tmpDir: string;
}

/**
 * Starts `vitest run --project <project> --reporter=json` for the prepared run, with its own TMPDIR
 * `<dir>/tmp-<project>`, bounded by execa's timeout `timeoutMs`.
 */
export function startVitestChild(dirs: ChildRunDirs, project: string, timeoutMs: number, options: ChildRunOptions = {}): StartedChild {
  const tmpDir = path.join(dirs.dir, `tmp-${project}`);
  mkdirSync(tmpDir, { recursive: true });
  const outputFile = path.join(dirs.dir, `vitest-${project}.json`);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    // The child is a fresh vitest, not a worker of ours.
    if (value !== undefined && key !== 'VITEST' && !key.startsWith('VITEST_')) env[key] = value;
  }
  // A timings cache of its own: every child run is a first run, planned the same whatever ran before.
  const timings = path.join(dirs.dir, 'run-timings.json');
  Object.assign(env, { AHP_CONFIG: dirs.configFile, AHP_SELFTEST_PID_DIR: dirs.pidDir, TMPDIR: tmpDir, AHP_TIMINGS_FILE: timings }, options.env ?? {});
  const reporters = ['--reporter=json', ...(options.reporters ?? []).map((reporter) => `--reporter=${reporter}`)];
  const subprocess = execa(process.execPath, [VITEST_CLI, 'run', '--project', project, ...reporters, `--outputFile=${outputFile}`, ...(options.files ?? []), ...(options.args ?? [])], {
    cwd: PROJECT_ROOT,
    env,
    extendEnv: false,
    timeout: timeoutMs,
    forceKillAfterDelay: 2000,
    reject: false,
    all: true,
    cleanup: true,
    detached: options.ownProcessGroup ?? false,
  });
  return { project, subprocess, outputFile, tmpDir };
}

export interface ChildRun {
  project: string;
  exitCode: number | undefined;
  timedOut: boolean;
  /** Interleaved stdout + stderr of the child vitest. */
  output: string;
  outputFile: string;
  /** The child's TMPDIR. */
  tmpDir: string;
  /** vitest's JSON report rows; empty when the child wrote none (asserted by the caller, with `output`). */
  rows: JsonAssertion[];
  durationMs: number;
}

/** Runs the child to its end (see startVitestChild) and reads its JSON report. Never throws for a failing run. */
export async function runVitestChild(dirs: ChildRunDirs, project: string, timeoutMs: number, options: ChildRunOptions = {}): Promise<ChildRun> {
  const started = Date.now();
  const child = startVitestChild(dirs, project, timeoutMs, options);
  const result = await child.subprocess;
  let rows: JsonAssertion[] = [];
  try {
    rows = readJsonReport(child.outputFile);
  } catch {
    // asserted by the caller, with the child's output
  }
  return {
    project,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    output: String(result.all ?? ''),
    outputFile: child.outputFile,
    tmpDir: child.tmpDir,
    rows,
    durationMs: Date.now() - started,
  };
}

/** `<prefix>*` entries (a project's run dirs, `ahp-core-` by default) left in a child's TMPDIR. */
export function leftoverRunDirs(tmpDir: string, prefix = 'ahp-core-'): string[] {
  return readdirSync(tmpDir).filter((entry) => entry.startsWith(prefix));
}

export function removeChildRun(dirs: ChildRunDirs): void {
  rmSync(dirs.dir, { recursive: true, force: true });
}
