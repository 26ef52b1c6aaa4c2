// The package as a user gets it: `npm pack` once, installed offline into a fresh temporary folder
// outside the checkout (suites/harness/support/offline-install.ts), then used the three ways the
// README shows — the CLI in a Python SDK's folder with no config, ahpConformance() in a TypeScript
// SDK's own vitest config, and `init` in an empty folder followed by the command it prints. Runs are
// narrowed to plain HTTP without auth (and -t where the point is one row) to keep this file fast.

import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { readJsonReport } from './support/vitest-json-report.ts';
import { installOffline, packInto, sandboxEnv } from './support/offline-install.ts';
import { followWatchDriver, type RunEnd } from './support/watch-events.ts';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const RUN_TIMEOUT_MS = 240_000;
const BROKEN_ROW = 'permission.no-effects-allows';
/** Narrowing for speed: the defaults (every transport and auth mode) are tested in cli-args.test.ts. */
const NARROW = ['--suite', 'core', '--transport', 'http', '--auth', 'none'];

let root: string;
let install: string;
let cli: string;

interface CoreJson {
  summary: { groups: { total: number; passed?: number; failed?: number }; scenarios: { total: number; passed?: number; failed?: number } };
  groups: Array<{ server: string; client: string; status: string }>;
}

function run(command: string, args: string[], cwd: string) {
  return execa(command, args, { cwd, env: sandboxEnv(root), extendEnv: false, timeout: RUN_TIMEOUT_MS, forceKillAfterDelay: 2000, cleanup: true, reject: false, all: true });
}

function coreJson(dir: string): CoreJson {
  return JSON.parse(readFileSync(path.join(dir, 'reports', 'core.json'), 'utf8')) as CoreJson;
}

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'ahp-package-'));
  const tarball = await packInto(root);
  install = await installOffline(root, path.join(root, 'ts-sdk'), tarball);
  cli = path.join(install, 'node_modules', 'ahp-conformance', 'bin', 'ahp-conformance.mjs');
}, 900_000);

// Several installed node_modules trees: removing them takes a while on a loaded machine.
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
}, 120_000);

describe('the packed package', () => {
  test('ships compiled JavaScript with declarations, the schemas, the fixtures and the prebuilt reference adapter, and no TypeScript sources', () => {
    const dist = path.join(install, 'node_modules', 'ahp-conformance', 'dist');
    for (const file of ['harness/package/cli.js', 'harness/package/vitest-helper.d.ts', 'harness/config/define-config.d.ts', 'suites/core/core.test.js', 'fixtures/scenarios.json', 'schemas']) {
      expect(existsSync(path.join(dist, file)), file).toBe(true);
    }
    const reference = JSON.parse(readFileSync(path.join(dist, 'adapters', 'reference', 'interop', 'adapter.json'), 'utf8')) as Record<string, unknown>;
    expect(reference.server).toEqual(['node', 'server.js']);
    expect(reference.lifecycleClient).toEqual(['node', 'lifecycle-client.js']);
    const sources = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? sources(path.join(dir, entry.name)) : /(?<!\.d)\.ts$/.test(entry.name) ? [entry.name] : []));
    expect(sources(dist)).toEqual([]);
    // Dev-only tools stay out of a user's install.
    for (const tool of ['tsx', 'esbuild', 'fast-check', 'typescript']) expect(existsSync(path.join(install, 'node_modules', tool)), tool).toBe(false);
  });
});

describe('npx ahp-conformance in a Python SDK folder with only interop/adapter.json', () => {
  let sdk: string;
  beforeAll(() => {
    sdk = path.join(root, 'python-sdk');
    mkdirSync(sdk);
    cpSync(path.join(FIXTURES, 'python-fake-sdk'), sdk, { recursive: true });
  });

  test('pairs the SDK with the reference adapter both ways and with itself, and core passes', async () => {
    const result = await run(process.execPath, [cli, ...NARROW], sdk);
    expect(result.exitCode, result.all).toBe(0);
    const report = coreJson(sdk);
    expect(report.groups.map((group) => `${group.server}→${group.client} ${group.status}`).sort()).toEqual(['python→python passed', 'python→reference passed', 'reference→python passed']);
    expect(report.summary.scenarios.failed ?? 0).toBe(0);
    // Only the reports are added to the SDK's folder: no node_modules or caches.
    expect(readdirSync(sdk).sort()).toEqual(['interop', 'reports', 'sdk.py']);
  }, RUN_TIMEOUT_MS);

  test('a deliberately broken row fails, and the message names the python server as the party at fault', async () => {
    const manifest = JSON.parse(readFileSync(path.join(sdk, 'interop', 'adapter.json'), 'utf8')) as { server: string[] };
    manifest.server = [...manifest.server, '--alter', BROKEN_ROW];
    writeFileSync(path.join(sdk, 'interop', 'adapter.json'), JSON.stringify(manifest));
    const output = path.join(sdk, 'vitest.json');
    const result = await run(process.execPath, [cli, ...NARROW, '-t', BROKEN_ROW, '--reporter', 'json', '--outputFile', output], sdk);
    expect(result.exitCode, result.all).toBe(1);
    const rows = readJsonReport(output).filter((row) => row.status !== 'skipped');
    const failed = rows.filter((row) => row.status === 'failed').map((row) => row.ancestorTitles.at(-1));
    expect(failed.sort()).toEqual(['python→python http/none', 'python→reference http/none']);
    expect(rows.find((row) => row.ancestorTitles.at(-1) === 'reference→python http/none')?.status).toBe('passed');
    for (const row of rows.filter((entry) => entry.status === 'failed')) {
      expect(row.failureMessages.join('\n')).toContain(`[responses/mismatch] server fault: server "python" altered the scripted response of "${BROKEN_ROW}"`);
    }
  }, RUN_TIMEOUT_MS);

  test('a bad flag ends in one line naming it, exit code 2, before vitest starts', async () => {
    const result = await run(process.execPath, [cli, '--transport', 'carrier-pigeon'], sdk);
    expect(result.exitCode).toBe(2);
    expect(result.all?.trim()).toBe('ahp-conformance: --transport: "carrier-pigeon" is not one of http, stdio');
  });
});

describe('ahpConformance() in a TypeScript SDK repo with its own vitest.config.ts', () => {
  beforeAll(() => cpSync(path.join(FIXTURES, 'ts-fake-sdk'), install, { recursive: true }));

  test('npx vitest run --project ahp:core passes', async () => {
    const result = await run('npx', ['vitest', 'run', '--project', 'ahp:core'], install);
    expect(result.exitCode, result.all).toBe(0);
    const report = coreJson(install);
    expect(report.groups.map((group) => `${group.server}→${group.client} ${group.status}`).sort()).toEqual(['fake-ts→reference passed', 'reference→fake-ts passed']);
  }, RUN_TIMEOUT_MS);

  test('-t narrows the run to one scenario', async () => {
    const output = path.join(install, 'vitest.json');
    // vitest matches -t against the describe (the group) and the test (the scenario id) joined by a space.
    const result = await run('npx', ['vitest', 'run', '--project', 'ahp:core', '-t', `reference→fake-ts http/none ${BROKEN_ROW}`, '--reporter', 'json', '--outputFile', output], install);
    expect(result.exitCode, result.all).toBe(0);
    const ran = readJsonReport(output).filter((row) => row.status !== 'skipped' && row.status !== 'pending');
    expect(ran.map((row) => `${row.ancestorTitles.at(-1)} › ${row.title}`)).toEqual([`reference→fake-ts http/none › ${BROKEN_ROW}`]);
    expect(ran[0]!.status).toBe('passed');
  }, RUN_TIMEOUT_MS);
});

describe('watch mode with ahpConformance()', () => {
  test("editing the SDK's adapter restarts its server and reruns the groups that involve it, with the new code", async () => {
    // The self-test's watch driver (vitest's Node API in watch mode), run with the install's vitest.
    cpSync(path.join(FIXTURES, '..', 'support', 'watch-driver.mjs'), path.join(install, 'watch-driver.mjs'));
    const driver = execa(process.execPath, ['watch-driver.mjs'], {
      cwd: install,
      env: { ...sandboxEnv(root), AHP_WATCH_PROJECT: 'ahp:core' },
      extendEnv: false,
      timeout: RUN_TIMEOUT_MS,
      forceKillAfterDelay: 2000,
      cleanup: true,
      reject: false,
      stdin: 'pipe',
    });
    const { runs, nextRun, output } = followWatchDriver(driver);
    const states = (run: RunEnd, group: string): string[] => [...new Set(run.tests.filter((t) => t.group === group).map((t) => t.state))].sort();
    try {
      await nextRun(1, 90_000);
      expect(states(runs[0]!, 'fake-ts→reference http/none')).toEqual(['passed']);
      // The edit: the fake server now adds a field to every scripted response.
      const adapter = path.join(install, 'adapter.mjs');
      const code = readFileSync(adapter, 'utf8');
      const edited = code.replace('row ? row.response :', 'row ? { ...row.response, edited: true } :');
      expect(edited).not.toBe(code);
      writeFileSync(adapter, edited);
      await nextRun(2, 90_000);
      expect(states(runs[1]!, 'fake-ts→reference http/none'), output().slice(-2000)).toEqual(['failed']);
      expect(states(runs[1]!, 'reference→fake-ts http/none')).toEqual(['passed']);
    } finally {
      driver.stdin!.write('close\n');
      await driver;
      writeFileSync(path.join(install, 'adapter.mjs'), readFileSync(path.join(FIXTURES, 'ts-fake-sdk', 'adapter.mjs')));
    }
  }, RUN_TIMEOUT_MS);
});

describe('ahp-conformance init in an empty folder', () => {
  test('writes ahp.config.json and prints the next command, which then runs', async () => {
    const empty = path.join(root, 'empty-sdk');
    mkdirSync(empty);
    const init = await run(process.execPath, [cli, 'init'], empty);
    expect(init.exitCode, init.all).toBe(0);
    expect(existsSync(path.join(empty, 'ahp.config.json'))).toBe(true);
    const next = /^next: npx ahp-conformance(.*)$/m.exec(init.stdout);
    expect(next, init.stdout).not.toBeNull();
    const printed = next![1]!.trim().split(/\s+/).filter(Boolean);
    const result = await run(process.execPath, [cli, ...printed, ...NARROW, '-t', BROKEN_ROW], empty);
    expect(result.exitCode, result.all).toBe(0);
    expect(coreJson(empty).groups.map((group) => `${group.server}→${group.client} ${group.status}`)).toEqual(['reference→reference passed']);
  }, RUN_TIMEOUT_MS);
});
