// Runs REAL vitest projects (`auth`, `core`) as child processes against a JSON config with several
// auth modes, for the auth self-tests (auth-weak-servers, auth-hygiene) — the auth-aware sibling of
// core-child-run.ts, whose JSON-report readers and adapter entries it reuses. Every run gets its own
// folder: config, scenario subset, reports, and one private TMPDIR per child so the temp dirs of
// exactly that child can be checked afterwards.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { execa } from 'execa';

import type { AuthMode } from '../../harness/config/define-config.ts';
import { PROJECT_ROOT, readJsonReport, SELFTEST_SCENARIO_IDS, type JsonAssertion } from './core-child-run.ts';

export { fixtureAdapter, readJsonReport, referenceAdapter, type JsonAssertion } from './core-child-run.ts';

const VITEST_CLI = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');

export interface AuthChildConfig {
  adapters: Array<{ name: string; cwd: string }>;
  pairings?: Array<{ server: string; client: string }>;
  transports: Array<'http' | 'stdio'>;
  auth: AuthMode[];
  watchdogs: { startupMs: number; runMs: number };
  parallelism?: number;
  /** Rows of fixtures/scenarios.json to use (default: the self-test subset of core-child-run.ts). */
  scenarioIds?: readonly string[];
}

export interface AuthRunDirs {
  dir: string;
  configFile: string;
  scenarioFile: string;
  reportsDir: string;
}

/** A fresh folder with the scenario subset and the JSON config (reports inside the folder). */
export function prepareAuthRun(name: string, config: AuthChildConfig): AuthRunDirs {
  const dir = mkdtempSync(path.join(os.tmpdir(), `ahp-selftest-${name}-`));
  const dirs: AuthRunDirs = {
    dir,
    configFile: path.join(dir, 'config.json'),
    scenarioFile: path.join(dir, 'scenarios.json'),
    reportsDir: path.join(dir, 'reports'),
  };
  const all = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'fixtures', 'scenarios.json'), 'utf8')) as { scenarios: Array<{ id: string }> };
  const scenarios = (config.scenarioIds ?? SELFTEST_SCENARIO_IDS).map((id) => {
    const found = all.scenarios.find((scenario) => scenario.id === id);
    if (!found) throw new Error(`fixtures/scenarios.json has no scenario "${id}" (the self-test subset needs it)`);
    return found;
  });
  writeFileSync(dirs.scenarioFile, `${JSON.stringify({ version: 1, scenarios })}\n`);
  const { scenarioIds: _ids, ...rest } = config;
  writeFileSync(
    dirs.configFile,
    `${JSON.stringify(
      {
        schemas: path.join(PROJECT_ROOT, 'schemas'),
        scenarios: { core: dirs.scenarioFile },
        ...rest,
        parallelism: config.parallelism ?? 4,
        reports: dirs.reportsDir,
      },
      null,
      2,
    )}\n`,
  );
  return dirs;
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
  rows: JsonAssertion[];
  durationMs: number;
}

/**
 * Runs `vitest run --project <project> --reporter=json` for the prepared config, with its own TMPDIR
 * `<dir>/tmp-<project>`, bounded by `timeoutMs`. Never throws for a failing run.
 */
export interface ChildRunOptions {
  /** Added to the child's environment. */
  env?: Record<string, string>;
  /** Reporters besides vitest's JSON reporter (a CLI `--reporter` replaces the config's list). */
  reporters?: string[];
}

export async function runVitestChild(dirs: AuthRunDirs, project: string, timeoutMs: number, options: ChildRunOptions = {}): Promise<ChildRun> {
  const tmpDir = path.join(dirs.dir, `tmp-${project}`);
  mkdirSync(tmpDir, { recursive: true });
  const outputFile = path.join(dirs.dir, `vitest-${project}.json`);
  const childEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    // The child is a fresh vitest, not a worker of ours.
    if (value !== undefined && key !== 'VITEST' && !key.startsWith('VITEST_')) childEnv[key] = value;
  }
  Object.assign(childEnv, { AHP_CONFIG: dirs.configFile, TMPDIR: tmpDir }, options.env ?? {});
  const reporters = ['--reporter=json', ...(options.reporters ?? []).map((reporter) => `--reporter=${reporter}`)];
  const started = Date.now();
  const result = await execa(process.execPath, [VITEST_CLI, 'run', '--project', project, ...reporters, `--outputFile=${outputFile}`], {
    cwd: PROJECT_ROOT,
    env: childEnv,
    extendEnv: false,
    timeout: timeoutMs,
    forceKillAfterDelay: 2000,
    reject: false,
    all: true,
    cleanup: true,
  });
  let rows: JsonAssertion[] = [];
  try {
    rows = readJsonReport(outputFile);
  } catch {
    // asserted by the caller, with the child's output
  }
  return {
    project,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    output: String(result.all ?? ''),
    outputFile,
    tmpDir,
    rows,
    durationMs: Date.now() - started,
  };
}

export function removeAuthRun(dirs: AuthRunDirs): void {
  rmSync(dirs.dir, { recursive: true, force: true });
}
