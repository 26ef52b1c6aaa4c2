// Process machinery of the harness: adapter.json loading, the supervisor, readiness, HTTP server
// start/stop, client runs over http and stdio (through the relay), watchdogs and cleanup. The fake
// adapters under fixtures/process-*/ are deliberately small and deliberately broken.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';

import { AdapterError, loadAdapter } from '../../harness/adapters/adapter-manifest.ts';
import { ControlError, receipts } from '../../harness/adapters/control-client.ts';
import {
  ensureAlive,
  serverProcess,
  ServerLockTimeoutError,
  ServerStartError,
  startHttpServer,
  stopHttpServer,
  withServerLock,
} from '../../harness/adapters/http-server-pool.ts';
import { launch, SpawnError } from '../../harness/adapters/launch.ts';
import { ReadinessError, validateReadiness, waitForReadiness } from '../../harness/adapters/readiness.ts';
import { groupAlive, liveCount, stopAll, waitGroupGone } from '../../harness/adapters/supervise.ts';
import type { LoadedAdapter, ServerHandle } from '../../harness/adapters/types.ts';
import { runClient } from '../../harness/runs/client-run.ts';
import type { ClientRunSpec } from '../../harness/runs/types.ts';
import { serializeScenarioFile } from '../../harness/scenarios/load-scenarios.ts';
import type { Scenario } from '../../harness/scenarios/types.ts';
import { allowScenario } from './support/allow-scenario.ts';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
// A bound every working fake must beat also on a loaded CI machine; the cases that want a startup
// watchdog to fire give their own short one.
const STARTUP_MS = 30_000;

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'ahp-processes-test-'));
});
afterEach(async () => {
  await stopAll(200);
  rmSync(tmp, { recursive: true, force: true });
});

function fixtureAdapter(dir: string, name = dir): LoadedAdapter {
  const cwd = path.join(FIXTURES, dir);
  return loadAdapter({ name, cwd, adapterFile: path.join(cwd, 'interop', 'adapter.json') });
}

/** True when `pid` is gone: kill(pid, 0) throws ESRCH. */
function pidGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function waitPidGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!pidGone(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

async function caught<T>(promise: Promise<unknown>, type: new (...args: never[]) => T): Promise<T> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}

function scenario(id: string, extra: Partial<Scenario> = {}): Scenario {
  return allowScenario(id, { event: { type: 'tool.call' }, effects: ['allow'], expected: { decision: 'allow' } }, extra);
}

function writeScenarios(scenarios: Scenario[]): string {
  const file = path.join(tmp, 'server-scenarios.json');
  writeFileSync(file, serializeScenarioFile({ version: 1, scenarios }));
  return file;
}

// ---------------------------------------------------------------------------------------------------
describe('loadAdapter', () => {
  function adapterAt(content: string | undefined, opts: { cwd?: string } = {}): () => LoadedAdapter {
    const cwd = opts.cwd ?? path.join(tmp, 'sdk');
    mkdirSync(path.join(tmp, 'sdk', 'interop'), { recursive: true });
    const adapterFile = path.join(tmp, 'sdk', 'interop', 'adapter.json');
    if (content !== undefined) writeFileSync(adapterFile, content);
    return () => loadAdapter({ name: 'sdk', cwd, adapterFile });
  }
  function adapterError(load: () => unknown): AdapterError {
    let error: unknown;
    try {
      load();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AdapterError);
    return error as AdapterError;
  }

  test('loads a valid manifest and keeps extra keys', () => {
    const adapter = fixtureAdapter('process-fake-adapter', 'fake');
    expect(adapter.name).toBe('fake');
    expect(adapter.manifest.language).toBe('fake');
    expect(adapter.manifest.server).toEqual(['node', 'fake-server.mjs', 'ok']);
    expect(adapter.manifest.lifecycle).toEqual({ note: 'extra keys are allowed' });
  });

  test('missing adapter.json names the file', () => {
    const error = adapterError(adapterAt(undefined));
    expect(error.message).toContain(path.join(tmp, 'sdk', 'interop', 'adapter.json'));
    expect(error.message).toMatch(/missing/);
  });

  test('invalid JSON names the position', () => {
    const error = adapterError(adapterAt('{\n  "language": "x",\n  "server": [,]\n}'));
    expect(error.message).toMatch(/invalid JSON at line 3, column 14/);
  });

  test('a non-object top level is rejected', () => {
    expect(adapterError(adapterAt('["node"]')).message).toMatch(/expected a JSON object.*got an array/);
  });

  test.each([
    ['language', { server: ['a'], client: ['b'] }, /language: expected a non-empty string, got nothing/],
    ['language', { language: ' ', server: ['a'], client: ['b'] }, /language: expected a non-empty string/],
    ['server', { language: 'x', server: [], client: ['b'] }, /server: empty command: expected a non-empty array/],
    ['server', { language: 'x', server: 'node s.js', client: ['b'] }, /server: empty command: .*got "node s.js"/],
    ['server[1]', { language: 'x', server: ['node', ''], client: ['b'] }, /server\[1\]: expected a non-empty string/],
    ['client', { language: 'x', server: ['a'] }, /client: empty command/],
    ['client[0]', { language: 'x', server: ['a'], client: [3] }, /client\[0\]: expected a non-empty string .*got number 3/],
  ])('field %s is checked', (field, manifest, pattern) => {
    const error = adapterError(adapterAt(JSON.stringify(manifest)));
    expect(error.field).toBe(field);
    expect(error.message).toMatch(pattern);
    expect(error.message).toContain('adapter.json');
  });

  test('cwd missing or not a directory', () => {
    const missing = adapterError(adapterAt('{}', { cwd: path.join(tmp, 'nope') }));
    expect(missing.field).toBe('cwd');
    expect(missing.message).toMatch(/nope: cwd: expected an existing directory/);
    writeFileSync(path.join(tmp, 'file'), '');
    const file = adapterError(adapterAt('{}', { cwd: path.join(tmp, 'file') }));
    expect(file.message).toMatch(/cwd: expected a directory/);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('launch (supervisor)', () => {
  test('reports the exit code, and a signal exit never as 0', async () => {
    const ok = await launch({ command: [process.execPath, '-e', 'process.exit(7)'], cwd: tmp });
    expect(await ok.exited).toEqual({ code: 7, signal: null });
    const killed = await launch({ command: [process.execPath, '-e', "process.kill(process.pid, 'SIGKILL')"], cwd: tmp });
    expect(await killed.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(liveCount()).toBe(0);
  });

  test('writes stdout and stderr to the log file', async () => {
    const log = path.join(tmp, 'out.log');
    const p = await launch({
      command: [process.execPath, '-e', "console.log('to-out'); console.error('to-err')"],
      cwd: tmp,
      stdoutFile: log,
      stderrFile: log,
    });
    await p.exited;
    expect(readFileSync(log, 'utf8')).toMatch(/to-out[\s\S]*to-err|to-err[\s\S]*to-out/);
  });

  test('a start reported while this event loop was blocked past the spawn deadline is a start, not a timeout', async () => {
    // The child writes its parent's (the supervisor's) pid; once that supervisor is a zombie it has
    // written every status line it ever will, so the loop is blocked exactly across a reported start.
    const marker = path.join(tmp, 'supervisor.pid');
    const pending = launch({
      command: [process.execPath, '-e', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, String(process.ppid))`],
      cwd: tmp,
      graceMs: 50,
      spawnTimeoutMs: 50,
    });
    const supervisorDone = (): boolean => {
      if (!existsSync(marker)) return false;
      const pid = readFileSync(marker, 'utf8');
      if (pid === '') return false;
      try {
        return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? true;
      } catch {
        return true; // already reaped
      }
    };
    const bound = Date.now() + 20_000;
    while (!supervisorDone() && Date.now() < bound) {
      // busy: this is the blocked event loop under test
    }
    expect(supervisorDone(), 'the supervisor ran the command and ended within the bound').toBe(true);
    const started = await pending;
    expect(await started.exited).toEqual({ code: 0, signal: null });
  });

  test('a command that cannot be spawned is a SpawnError naming the command', async () => {
    const error = await caught(launch({ command: ['ahp-no-such-command-xyz'], cwd: tmp }), SpawnError);
    expect(error.message).toMatch(/^spawn: cannot start "ahp-no-such-command-xyz" in .* \(ENOENT\)/);
  });

  test('stop() ends a tree whose processes ignore SIGTERM, grandchild included', async () => {
    const pidFile = path.join(tmp, 'grandchild.pid');
    const p = await launch({
      command: [process.execPath, path.join(FIXTURES, 'process-stubborn-tree', 'stubborn.mjs'), pidFile],
      cwd: tmp,
    });
    await waitForFile(pidFile, 30_000);
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    expect(pidGone(grandchild)).toBe(false);

    await p.stop(300);
    expect(p.exit).toEqual({ code: null, signal: 'SIGKILL' });
    expect(groupAlive(p.pid)).toBe(false);
    expect(await waitPidGone(grandchild, 10_000)).toBe(true);
    expect(pidGone(p.pid)).toBe(true);
  });

  test('a descendant that left the group is found by its inherited tag, killed, and counted', async () => {
    const pidFile = path.join(tmp, 'escapee.pid');
    const p = await launch({ command: [process.execPath, path.join(FIXTURES, 'process-escapee', 'escapee.mjs'), pidFile], cwd: tmp, graceMs: 200 });
    const exit = await p.exited;
    const escapee = Number(readFileSync(pidFile, 'utf8'));
    expect(exit).toEqual({ code: 0, signal: null, leftovers: 1 });
    expect(await waitPidGone(escapee, 10_000)).toBe(true);
  });

  test('a tree that ends by itself reports no leftovers', async () => {
    const p = await launch({ command: [process.execPath, '-e', 'process.exit(0)'], cwd: tmp });
    expect(await p.exited).toEqual({ code: 0, signal: null });
  });

  // A vitest worker that dies: SIGKILL runs no hook at all (the supervisor sees its stdin close);
  // SIGINT / SIGTERM go through the installed handlers (stop all, then re-raise).
  test.each(['SIGKILL', 'SIGINT', 'SIGTERM'] as const)(
    'when the process that launched it gets %s, the supervised sleeper goes too',
    async (signal) => {
      const worker = spawn(process.execPath, ['--import', 'tsx', path.join(FIXTURES, 'process-worker-death', 'worker.ts')], {
        cwd: PROJECT_ROOT, // where `--import tsx` resolves
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const workerExit = new Promise<string | null>((resolve) => worker.once('exit', (_code, sig) => resolve(sig)));
      const sleeperPid = await new Promise<number>((resolve, reject) => {
        let text = '';
        const timer = setTimeout(() => reject(new Error('worker did not report the sleeper pid within 45 s')), 45_000);
        worker.stdout!.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes('\n')) {
            clearTimeout(timer);
            resolve(Number(text.trim()));
          }
        });
      });
      expect(pidGone(sleeperPid)).toBe(false);
      worker.kill(signal);
      // The sleeper ignores SIGTERM: the grace (300 ms) then SIGKILL must end it.
      expect(await waitPidGone(sleeperPid, 5000)).toBe(true);
      expect(await workerExit).toBe(signal); // the signal was re-raised, not swallowed
    },
  );
});

async function waitForFile(file: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file) || readFileSync(file, 'utf8') === '') {
    if (Date.now() > deadline) throw new Error(`${file} did not appear within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// ---------------------------------------------------------------------------------------------------
describe('waitForReadiness', () => {
  test('validates the fields, naming the offending one', () => {
    const file = '/x/readiness.json';
    const ok = validateReadiness({ endpoint: null, controlEndpoint: 'http://127.0.0.1:5/', pid: 12 }, file);
    expect(ok).toEqual({ endpoint: null, controlEndpoint: 'http://127.0.0.1:5/', pid: 12 });
    const cases: Array<[unknown, string]> = [
      [{ endpoint: 5, controlEndpoint: 'http://a', pid: 1 }, 'endpoint'],
      [{ endpoint: null, controlEndpoint: 'ftp://a', pid: 1 }, 'controlEndpoint'],
      [{ endpoint: null, pid: 1 }, 'controlEndpoint'],
      [{ endpoint: null, controlEndpoint: 'http://a', pid: 0 }, 'pid'],
      [{ endpoint: null, controlEndpoint: 'http://a', pid: 1.5 }, 'pid'],
      [[], ''],
    ];
    for (const [value, field] of cases) {
      let error: unknown;
      try {
        validateReadiness(value, file);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ReadinessError);
      expect((error as ReadinessError).field).toBe(field);
      expect((error as ReadinessError).message).toContain(file);
    }
  });

  test('a non-atomic writer is waited for while the file keeps changing', async () => {
    const file = path.join(tmp, 'readiness.json');
    const full = JSON.stringify({ endpoint: null, controlEndpoint: 'http://127.0.0.1:9', pid: 42 });
    const waiting = waitForReadiness(file, { timeoutMs: STARTUP_MS, settleMs: 400 });
    writeFileSync(file, full.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    writeFileSync(file, full);
    expect((await waiting).pid).toBe(42);
  });

  test('a garbled file that stops changing is an error naming the position', async () => {
    const file = path.join(tmp, 'readiness.json');
    writeFileSync(file, '{"endpoint": null, "controlEndpoint": ');
    const error = await caught(waitForReadiness(file, { timeoutMs: STARTUP_MS, settleMs: 100 }), ReadinessError);
    expect(error.kind).toBe('garbled');
    expect(error.message).toMatch(/is not valid JSON at line 1, column 39/);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('HTTP server start/stop', () => {
  let scenarioFile: string;
  beforeEach(() => {
    scenarioFile = writeScenarios([scenario('s-1')]);
  });

  test('server never writes readiness: the startup watchdog fires with a precise message, process gone', async () => {
    const error = await caught(
      startHttpServer({ adapter: fixtureAdapter('process-server-silent'), auth: 'none', scenarioFile, workDir: tmp, startupMs: 600 }),
      ServerStartError,
    );
    expect(error.stage).toBe('startup');
    expect(error.kind).toBe('timeout');
    expect(error.message).toMatch(/^startup: server adapter "process-server-silent" \(none\): watchdog fired after 600 ms: readiness file .*readiness\.json was not written; see the server log .*server\.log$/);
    expect(error.pid).toBeGreaterThan(0);
    expect(groupAlive(error.pid!)).toBe(false);
    expect(pidGone(error.pid!)).toBe(true);
  });

  test('server exits at start: the message names the exit code and the log path, never the output', async () => {
    const error = await caught(
      startHttpServer({ adapter: fixtureAdapter('process-server-exit'), auth: 'none', scenarioFile, workDir: tmp, startupMs: STARTUP_MS }),
      ServerStartError,
    );
    expect(error.kind).toBe('exited');
    expect(error.message).toContain('exited with code 3 before writing readiness file');
    expect(error.message).toContain(`see the server log ${error.logFile}`);
    expect(error.message).not.toContain('fake-secret-token');
  });

  test('garbled readiness names the field', async () => {
    const error = await caught(
      startHttpServer({ adapter: fixtureAdapter('process-server-bad-field'), auth: 'none', scenarioFile, workDir: tmp, startupMs: STARTUP_MS }),
      ServerStartError,
    );
    expect(error.kind).toBe('invalid');
    expect(error.message).toMatch(/readiness\.json: pid: expected a positive integer, got "abc"/);
    expect(groupAlive(error.pid!)).toBe(false);
  });

  test('readiness that is not JSON is reported as garbled', async () => {
    const error = await caught(
      startHttpServer({ adapter: fixtureAdapter('process-server-garbled'), auth: 'none', scenarioFile, workDir: tmp, startupMs: STARTUP_MS }),
      ServerStartError,
    );
    expect(error.kind).toBe('garbled');
    expect(error.message).toMatch(/is not valid JSON at line 1/);
  });

  test('a good server starts, passes /health, restarts when dead (ensureAlive) and stops cleanly', async () => {
    const handle = await startHttpServer({
      adapter: fixtureAdapter('process-fake-adapter'),
      auth: 'none',
      scenarioFile,
      schemaDir: tmp,
      workDir: tmp,
      startupMs: STARTUP_MS,
    });
    expect(handle.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(JSON.parse(readFileSync(path.join(handle.workDir, 'server-config.json'), 'utf8'))).toMatchObject({
      transport: 'http',
      scenarioFile,
      auth: { mode: 'none' },
      schemaDir: tmp,
    });
    expect(await receipts(handle.controlEndpoint)).toEqual([]);
    expect(await ensureAlive(handle)).toBe(handle);

    process.kill(-handle.pid, 'SIGKILL');
    await serverProcess(handle)!.exited;
    const restarted = await ensureAlive(handle);
    expect(restarted.pid).not.toBe(handle.pid);
    expect(existsSync(handle.workDir)).toBe(false);

    await stopHttpServer(restarted);
    expect(groupAlive(restarted.pid)).toBe(false);
    expect(existsSync(restarted.workDir)).toBe(false);
    await expect(receipts(restarted.controlEndpoint, { timeoutMs: 500 })).rejects.toBeInstanceOf(ControlError);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('runClient', () => {
  const scenarios = [scenario('s-1'), scenario('s-2', { barrier: 'b-2' }), scenario('s-3')];
  let scenarioFile: string;
  let server: ServerHandle | undefined;

  beforeEach(() => {
    scenarioFile = writeScenarios(scenarios);
  });
  afterEach(async () => {
    if (server) await stopHttpServer(server);
    server = undefined;
  });

  function spec(overrides: Partial<ClientRunSpec>): ClientRunSpec {
    return {
      server: fixtureAdapter('process-fake-adapter', 'fake'),
      client: fixtureAdapter('process-fake-adapter', 'fake'),
      transport: 'http',
      auth: 'none',
      scenarios,
      serverScenarioFile: scenarioFile,
      schemasDir: tmp,
      // Only the hang tests below want the watchdog to fire (they set their own); every other run
      // must end by itself, also on a loaded machine, so the bound is generous.
      watchdogs: { startupMs: STARTUP_MS, runMs: 30_000 },
      ...overrides,
    };
  }

  test('http: report, barrier released, receipts are exactly this run', async () => {
    const adapter = fixtureAdapter('process-fake-adapter', 'fake');
    server = await startHttpServer({ adapter, auth: 'none', scenarioFile, workDir: tmp, startupMs: STARTUP_MS });
    const handle = server;
    const first = await withServerLock(handle, () => runClient(spec({ httpServer: handle }), { workDir: tmp }));
    expect(first.failures).toEqual([]);
    expect(first.exitCode).toBe(0);
    expect(first.timedOut).toBe(false);
    expect((first.report as { results: Array<{ id: string }> }).results.map((r) => r.id).sort()).toEqual(['s-1', 's-2', 's-3']);
    expect((first.receipts ?? []).map((r) => (r as { id: string }).id).sort()).toEqual(['s-1', 's-2', 's-3']);

    const only = [scenario('s-3')];
    const [a, b] = await Promise.all([
      withServerLock(handle, () => runClient(spec({ httpServer: handle, scenarios: only }), { workDir: tmp })),
      withServerLock(handle, () => runClient(spec({ httpServer: handle, scenarios: [scenario('s-1')] }), { workDir: tmp })),
    ]);
    expect(a.receipts).toEqual([scenarios[2]!.request]);
    expect(b.receipts).toEqual([scenarios[0]!.request]);
  });

  test('http: server hangs on a request → the run watchdog fires and the client tree is killed', async () => {
    server = await startHttpServer({ adapter: fixtureAdapter('process-server-hang'), auth: 'none', scenarioFile, workDir: tmp, startupMs: STARTUP_MS });
    const handle = server;
    const outcome = await runClient(
      spec({ server: fixtureAdapter('process-server-hang'), httpServer: handle, scenarios: [scenario('s-1')], watchdogs: { startupMs: STARTUP_MS, runMs: 800 } }),
      { workDir: tmp, graceMs: 200 },
    );
    expect(outcome.timedOut).toBe(true);
    expect(outcome.exitCode).toBeNull();
    expect(outcome.signal).not.toBeNull();
    const stages = outcome.failures.map((f) => `${f.stage}/${f.kind}`);
    expect(stages).toContain('run/timeout');
    expect(stages).toContain('report/missing');
    const timeout = outcome.failures.find((f) => f.kind === 'timeout')!;
    expect(timeout.message).toMatch(/^run: client "fake" against server "process-server-hang" \(http\/none\): run watchdog fired after 800 ms; .*see .*client\.log$/);
    expect(liveCount()).toBe(1); // only the server is left
  });

  test('http: a missing report is a "report" failure', async () => {
    server = await startHttpServer({ adapter: fixtureAdapter('process-fake-adapter', 'fake'), auth: 'none', scenarioFile, workDir: tmp, startupMs: STARTUP_MS });
    const handle = server;
    const outcome = await runClient(
      spec({ client: fixtureAdapter('process-client-no-report'), httpServer: handle, scenarios: [scenario('s-1')] }),
      { workDir: tmp },
    );
    expect(outcome.exitCode).toBe(0);
    expect(outcome.failures.map((f) => `${f.stage}/${f.kind}`)).toEqual(['report/missing']);
    // Where it stopped: its one request reached the server (through the harness proxy), which names its row.
    expect(outcome.failures[0]!.message).toMatch(/^report: .*report\.json was not written; see .*client\.log; it stopped on or after row "s-1" \(row 1 of 1\): the last request the harness proxy saw was hooks\/intercept id "s-1", and it was answered, which belongs to that row; it was the last row of its file; its output /);
    expect(outcome.receipts).toHaveLength(1);
  });

  test('a client command that cannot be spawned is a "spawn" failure', async () => {
    const client = { ...fixtureAdapter('process-fake-adapter', 'fake') };
    client.manifest = { ...client.manifest, client: ['ahp-no-such-client-xyz'] };
    const outcome = await runClient(spec({ transport: 'stdio', client }), { workDir: tmp });
    expect(outcome.failures.map((f) => `${f.stage}/${f.kind}`)).toEqual(['spawn/ENOENT']);
  });

  test('stdio: a server command that cannot be spawned is a "spawn" failure', async () => {
    const outcome = await runClient(
      spec({ transport: 'stdio', server: fixtureAdapter('process-server-missing-command'), scenarios: [scenario('s-1')] }),
      { workDir: tmp },
    );
    expect(outcome.exitCode).toBe(1);
    expect(outcome.failures.map((f) => `${f.stage}/${f.kind}`)).toEqual(['spawn/ENOENT', 'report/missing']);
    expect(outcome.failures[0]!.message).toMatch(/^spawn: server "process-server-missing-command": the stdio relay could not start its command \(ENOENT\); see .*relay\.log and .*server\.log$/);
  });

  test('stdio: through the relay, receipts come from its snapshot and nothing is left running', async () => {
    const outcome = await runClient(spec({ transport: 'stdio' }), { workDir: tmp });
    expect(outcome.failures).toEqual([]);
    expect(outcome.exitCode).toBe(0);
    const results = (outcome.report as { results: Array<{ id: string; actual: unknown }> }).results;
    expect(results.map((r) => r.id)).toEqual(['s-1', 's-2', 's-3']);
    expect(results[1]!.actual).toEqual(scenarios[1]!.response);
    expect(outcome.receipts).toEqual(scenarios.map((s) => s.request));
    // Both configs name the configured schema directory (spec.schemasDir).
    const runDir = path.dirname(outcome.logFiles[0]!);
    for (const name of ['client-config.json', 'server-config.json']) {
      expect(JSON.parse(readFileSync(path.join(runDir, name), 'utf8')), name).toMatchObject({ schemaDir: tmp });
    }
    // The relay recorded each forwarded response with the request it answered.
    expect(outcome.responses).toEqual(scenarios.map((s) => ({ requestId: s.id, method: 'hooks/intercept', response: s.response, instance: 1 })));
    // ... and every message the client sent.
    expect(outcome.sent).toEqual(scenarios.map((s) => s.request));
    expect(outcome.logFiles).toHaveLength(3);
    const pids = instanceStatus(outcome.logFiles[0]!);
    expect(groupAlive(pids.serverPid)).toBe(false);
  });

  test('stdio: server hangs → watchdog, and the relay-registered server group is killed', async () => {
    const hang = fixtureAdapter('process-server-hang');
    const outcome = await runClient(
      // The run watchdog must leave the client, relay and server time to start and deliver the
      // request on a loaded machine: the receipts assertion below depends on it.
      spec({ transport: 'stdio', server: hang, scenarios: [scenario('s-1')], watchdogs: { startupMs: STARTUP_MS, runMs: 15_000 } }),
      { workDir: tmp, graceMs: 200 },
    );
    expect(outcome.timedOut).toBe(true);
    expect(outcome.failures.map((f) => f.stage)).toEqual(expect.arrayContaining(['run', 'report']));
    const pids = instanceStatus(outcome.logFiles[0]!);
    expect(await waitGroupGone(pids.serverPid, 2000)).toBe(true);
    // Processes reparented to init are reaped by it (slowly in some containers): bounded wait.
    expect(await waitPidGone(pids.relayPid, 5000)).toBe(true);
    expect(await waitPidGone(pids.serverPid, 5000)).toBe(true);
    // The relay's final snapshot still saw the request the server received.
    expect(outcome.receipts).toEqual([scenario('s-1').request]);
  });
});

describe('withServerLock', () => {
  test('serialises runs and breaks a lock left by a dead process', async () => {
    const handle = { workDir: tmp, adapter: 'x' };
    // A lock whose owner is dead (pid 2^22 + 1 is above any pid_max default in use here).
    mkdirSync(path.join(tmp, 'run.lock'));
    writeFileSync(path.join(tmp, 'run.lock', 'owner'), `${2 ** 22 + 1}:0`);
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = withServerLock(handle, async () => {
      order.push('first:start');
      await gate;
      order.push('first:end');
    });
    const second = withServerLock(handle, async () => {
      order.push('second');
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(existsSync(path.join(tmp, 'run.lock'))).toBe(true);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first:start', 'first:end', 'second']);
    expect(existsSync(path.join(tmp, 'run.lock'))).toBe(false);
  });

  test('waiting for a lock held by a live process is bounded', async () => {
    mkdirSync(path.join(tmp, 'run.lock'));
    writeFileSync(path.join(tmp, 'run.lock', 'owner'), `${process.ppid}:0`);
    const error = await caught(withServerLock({ workDir: tmp, adapter: 'x' }, async () => 1, { timeoutMs: 200 }), ServerLockTimeoutError);
    expect(error.message).toMatch(/run lock of server "x"/);
  });
});

afterAll(async () => {
  await stopAll(200);
});

/** The stdio relay's record of the first server process of a run (its run dir holds the client log). */
function instanceStatus(clientLog: string): { serverPid: number; relayPid: number } {
  return JSON.parse(readFileSync(path.join(path.dirname(clientLog), 'server-instances', '0001', 'status.json'), 'utf8')) as { serverPid: number; relayPid: number };
}

beforeAll(() => {
  // Guard: the fixtures must exist where the tests expect them.
  expect(existsSync(path.join(FIXTURES, 'process-fake-adapter', 'interop', 'adapter.json'))).toBe(true);
});
