// End-to-end tests of the embedded reference adapter (adapters/reference) with real processes:
// the server over HTTP and stdio (readiness, control endpoints, scripted replies, barriers) and the
// client against both bindings, including failure paths that must never count as passes.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { execa, type ResultPromise } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';

import { evaluate } from '../../harness/oracle/evaluate.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';
import type { InterceptRequest } from '../../harness/protocol/messages.ts';
import type { Scenario, ScenarioFile } from '../../harness/scenarios/types.ts';
import { okResponse, toolBeforeRequest } from './support/intercept-messages.ts';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REFERENCE_DIR = path.join(PROJECT_ROOT, 'adapters', 'reference');
const ADAPTER = JSON.parse(readFileSync(path.join(REFERENCE_DIR, 'interop', 'adapter.json'), 'utf8')) as {
  language: string;
  server: string[];
  client: string[];
};
const STARTUP_MS = 15_000;

// ---- a tiny scenario set --------------------------------------------------------------------------

const TOOL_CAPABILITIES = {
  effects: ['deny', 'allow', 'ask', 'modify', 'message', 'return', 'flow', 'inject'],
  modify: { input: { replace: true, merge: true } },
  flow: { operations: ['stop'] },
  inject: { context: { append: true, deliverAt: ['now', 'next_turn'] } },
};

const toolRequest = (id: string): InterceptRequest => toolBeforeRequest(id, TOOL_CAPABILITIES);

const POSITIVE: Scenario = {
  id: 'ref.positive',
  request: toolRequest('ref.positive'),
  response: okResponse('ref.positive', [{ type: 'message', text: 'hello' }]),
  expected: { decision: 'allow', executed: true, input: { task: 1 }, messages: ['hello'] },
  tags: ['positive'],
};
const SCHEMA_INVALID: Scenario = {
  id: 'ref.schema-invalid',
  request: toolRequest('ref.schema-invalid'),
  // Deliberately invalid: an unknown effect type next to a valid one. Must reach the client as is.
  response: okResponse('ref.schema-invalid', [{ type: 'message', text: 'must not leak' }, { type: 'explode', power: 9000 }]),
  expectError: true,
  tags: ['schema-invalid'],
};
const CAPABILITY_INVALID: Scenario = {
  id: 'ref.capability-invalid',
  request: toolBeforeRequest('ref.capability-invalid', { effects: ['deny', 'message'] }),
  response: okResponse('ref.capability-invalid', [{ type: 'allow' }]),
  expectError: true,
  tags: ['capability-invalid'],
};
const HELD: Scenario = {
  id: 'ref.held',
  request: toolRequest('ref.held'),
  response: okResponse('ref.held', [{ type: 'deny', reason: 'held then denied' }]),
  expected: { decision: 'deny', executed: false, messages: [] },
  barrier: 'gate-late',
  tags: ['positive'],
};
const RELEASED_EARLY: Scenario = {
  id: 'ref.released-early',
  request: toolRequest('ref.released-early'),
  response: okResponse('ref.released-early', []),
  expected: { decision: 'allow', executed: true, messages: [] },
  barrier: 'gate-early',
  tags: ['positive'],
};

/** A negative row whose reply is never released: a timeout must fail it, never pass it. */
const NEVER_RELEASED: Scenario = {
  id: 'ref.never-released',
  request: toolRequest('ref.never-released'),
  response: okResponse('ref.never-released', [{ type: 'explode' }]),
  expectError: true,
  barrier: 'gate-never',
  tags: ['schema-invalid'],
};

// The request watchdog of the timeout runs: the held row costs it once, and every other request of
// those runs (a fresh server's first answer included) must beat it also on a loaded machine.
const REQUEST_MS = 2000;
const TIMED_OUT_ROW = { id: NEVER_RELEASED.id, status: 'failed', actual: null, error: `transport: timeout after ${REQUEST_MS} ms` };

const CLIENT_ROWS = [POSITIVE, SCHEMA_INVALID, CAPABILITY_INVALID];
const SERVER_ROWS = [...CLIENT_ROWS, HELD, RELEASED_EARLY, NEVER_RELEASED];

// ---- process and file helpers ---------------------------------------------------------------------

let workDir: string;
let serverScenarioFile: string;
let clientScenarioFile: string;
let timeoutScenarioFile: string;
const processes = new Set<ResultPromise>();

function track<P extends ResultPromise>(subprocess: P): P {
  processes.add(subprocess);
  void subprocess.finally(() => processes.delete(subprocess)).catch(() => undefined);
  return subprocess;
}

async function killAll(): Promise<void> {
  const running = [...processes];
  for (const subprocess of running) subprocess.kill('SIGKILL');
  await Promise.allSettled(running);
}

let counter = 0;
function writeJson(name: string, value: unknown): string {
  const file = path.join(workDir, `${++counter}-${name}`);
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
}

function launch(argv: string[], configFile: string, stdin: 'pipe' | 'ignore' = 'ignore') {
  const [command, ...args] = argv;
  return track(
    execa(command!, [...args, '--config', configFile], {
      cwd: REFERENCE_DIR,
      reject: false,
      stdin,
      stdout: 'pipe',
      stderr: 'pipe',
      // A bound on a stuck process, not a speed check: a server here outlives its own start and two
      // client runs, each of them started through tsx on a possibly loaded machine.
      timeout: 60_000,
      forceKillAfterDelay: 1_000,
    }),
  );
}

interface Readiness {
  endpoint: string | null;
  controlEndpoint: string;
  pid: number;
}

/**
 * Waits for the readiness file. Every observation of the file must be complete JSON: a partial
 * write (no atomic rename) would show up as a parse failure here.
 */
async function waitForReadiness(file: string, subprocess: ResultPromise): Promise<Readiness> {
  let exited = false;
  void subprocess.finally(() => (exited = true)).catch(() => undefined);
  const deadline = Date.now() + STARTUP_MS;
  while (Date.now() < deadline && !exited) {
    let text: string | undefined;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      text = undefined;
    }
    if (text !== undefined) return JSON.parse(text) as Readiness;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const result = await Promise.race([subprocess, Promise.resolve(undefined)]);
  throw new Error(`no readiness file within ${STARTUP_MS} ms (exited: ${exited}); stderr:\n${result?.stderr ?? ''}`);
}

async function startServer(transport: 'http' | 'stdio', scenarioFile = serverScenarioFile) {
  const readinessFile = path.join(workDir, `ready-${++counter}.json`);
  const config = writeJson(`server-${transport}.json`, { transport, readinessFile, scenarioFile, auth: { mode: 'none' } });
  const startedAt = performance.now();
  const subprocess = launch(ADAPTER.server, config, transport === 'stdio' ? 'pipe' : 'ignore');
  const readiness = await waitForReadiness(readinessFile, subprocess);
  return { subprocess, readiness, readinessFile, startupMs: performance.now() - startedAt };
}

async function getJson(url: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

async function postText(url: string, body: string, contentType = 'application/json') {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: response.status, text: await response.text() };
}

async function receipts(controlEndpoint: string): Promise<unknown[]> {
  const { body } = await getJson(`${controlEndpoint}/receipts`);
  return (body as { requests: unknown[] }).requests;
}

/** Resolves once the server has recorded `id` (state polling: the request is known to be held). */
async function untilReceived(controlEndpoint: string, id: string): Promise<void> {
  for (;;) {
    const requests = await receipts(controlEndpoint);
    if (requests.some((r) => (r as { id?: unknown }).id === id)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface ReportShape {
  language: string;
  results: Array<{ id: string; status: string; actual: unknown; error?: string }>;
}

const readReport = (file: string): ReportShape => JSON.parse(readFileSync(file, 'utf8')) as ReportShape;

function rowsById(report: ReportShape) {
  return Object.fromEntries(report.results.map((row) => [row.id, row]));
}

// ---- lifecycle ------------------------------------------------------------------------------------

beforeAll(() => {
  workDir = mkdtempSync(path.join(tmpdir(), 'ahp-reference-adapter-'));
  const file = (rows: Scenario[]): ScenarioFile => ({ version: 1, scenarios: rows });
  serverScenarioFile = writeJson('server-scenarios.json', file(SERVER_ROWS));
  clientScenarioFile = writeJson('client-scenarios.json', file(CLIENT_ROWS));
  timeoutScenarioFile = writeJson('timeout-scenarios.json', file([NEVER_RELEASED, POSITIVE]));
});

afterEach(killAll);

afterAll(async () => {
  await killAll();
  rmSync(workDir, { recursive: true, force: true });
});

// ---- tests ----------------------------------------------------------------------------------------

describe('the test scenarios themselves', () => {
  test('requests are schema-valid and each negative fails at the layer its tag names', () => {
    const validators = loadValidators(path.join(PROJECT_ROOT, 'schemas'));
    for (const row of SERVER_ROWS) expect(validators.interceptRequest(row.request).errors).toEqual([]);
    expect(evaluate(SCHEMA_INVALID.request, SCHEMA_INVALID.response, validators)).toMatchObject({ accepted: false, layer: 'schema' });
    expect(evaluate(CAPABILITY_INVALID.request, CAPABILITY_INVALID.response, validators)).toMatchObject({ accepted: false, layer: 'capability' });
    expect(evaluate(POSITIVE.request, POSITIVE.response, validators)).toMatchObject({ accepted: true });
  });
});

describe('reference server over http', () => {
  test('serves readiness, health, capabilities, scripted replies, receipts, barriers and shutdown', async () => {
    const { subprocess, readiness, readinessFile } = await startServer('http');

    // Readiness: exactly the three fields, loopback URLs, the real pid, and no temp file left over.
    expect(Object.keys(readiness).sort()).toEqual(['controlEndpoint', 'endpoint', 'pid']);
    expect(readiness.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(readiness.controlEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(readiness.endpoint).not.toBe(readiness.controlEndpoint);
    expect(readiness.pid).toBe(subprocess.pid);
    expect(readdirSync(path.dirname(readinessFile)).filter((name) => name.includes(path.basename(readinessFile)))).toEqual([
      path.basename(readinessFile),
    ]);
    const endpoint = readiness.endpoint!;
    const control = readiness.controlEndpoint;

    expect(await getJson(`${control}/health`)).toEqual({ status: 200, body: { ready: true } });

    // GET discovery answers the bare capability set (the ecosystem's HTTP binding); POST answers a
    // hooks/capabilities request with the full JSON-RPC envelope and the manifest.
    const validators = loadValidators(path.join(PROJECT_ROOT, 'schemas'));
    const discovered = await getJson(`${endpoint}/capabilities`);
    expect(discovered.status).toBe(200);
    expect(discovered.body).not.toHaveProperty('jsonrpc');
    expect(validators.capabilities(discovered.body).errors).toEqual([]);
    expect((discovered.body as { effects: string[] }).effects).toEqual(['deny', 'allow', 'ask', 'modify', 'message', 'return', 'flow', 'inject']);
    const posted = await postText(`${endpoint}/capabilities`, JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'hooks/capabilities', params: { protocolVersion: 'draft' } }));
    expect(posted.status).toBe(200);
    const envelope = JSON.parse(posted.text) as { result: { manifest: { authentication: string[]; events: Array<{ event: string }> } } };
    expect(envelope).toMatchObject({ jsonrpc: '2.0', id: 41, result: { protocolVersion: 'draft' } });
    expect(validators.capabilitiesResponse(envelope).errors).toEqual([]);
    expect(envelope.result.manifest.authentication).toEqual([]);
    expect(envelope.result.manifest.events.map((e) => e.event)).toEqual(['tool.before', 'turn.finish.before']);
    expect(await receipts(control)).toEqual([]);

    // A deliberately invalid scripted response comes back unchanged, byte for byte.
    const scripted = await postText(`${endpoint}/intercept`, JSON.stringify(SCHEMA_INVALID.request));
    expect(scripted.status).toBe(200);
    expect(scripted.text).toBe(JSON.stringify(SCHEMA_INVALID.response));
    expect(await receipts(control)).toEqual([SCHEMA_INVALID.request]);

    // An invalid request: JSON-RPC error, no scripted reply, no crash.
    const broken = { ...SCHEMA_INVALID.request, params: { protocolVersion: 'draft' } };
    const refused = await postText(`${endpoint}/intercept`, JSON.stringify(broken));
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text)).toMatchObject({ jsonrpc: '2.0', id: SCHEMA_INVALID.id, error: { code: -32602 } });
    const unknownId = await postText(`${endpoint}/intercept`, JSON.stringify(toolRequest('not-a-scenario')));
    expect(JSON.parse(unknownId.text)).toMatchObject({ id: 'not-a-scenario', error: { code: -32602 } });
    expect(JSON.parse((await postText(`${endpoint}/intercept`, '{not json')).text)).toMatchObject({ id: null, error: { code: -32700 } });
    expect((await postText(`${endpoint}/intercept`, JSON.stringify(POSITIVE.request), 'text/plain')).status).toBe(415);
    expect(await getJson(`${control}/health`)).toEqual({ status: 200, body: { ready: true } });

    // Barrier: the reply is held until /release, and only then resolves.
    let settled = false;
    const held = postText(`${endpoint}/intercept`, JSON.stringify(HELD.request)).finally(() => (settled = true));
    await untilReceived(control, HELD.id);
    expect(settled).toBe(false);
    expect(await postText(`${control}/release`, JSON.stringify({ barrier: 'gate-late' }))).toEqual({
      status: 200,
      text: JSON.stringify({ released: 'gate-late' }),
    });
    expect(await held).toEqual({ status: 200, text: JSON.stringify(HELD.response) });

    // A release that arrives before the request is remembered.
    expect((await postText(`${control}/release`, JSON.stringify({ barrier: 'gate-early' }))).status).toBe(200);
    expect(await postText(`${endpoint}/intercept`, JSON.stringify(RELEASED_EARLY.request))).toEqual({
      status: 200,
      text: JSON.stringify(RELEASED_EARLY.response),
    });
    expect((await postText(`${control}/release`, '{}')).status).toBe(400);

    // Receipts: every intercept envelope as received, in order, without discovery.
    expect(await receipts(control)).toEqual([SCHEMA_INVALID.request, broken, toolRequest('not-a-scenario'), HELD.request, RELEASED_EARLY.request]);

    expect((await postText(`${control}/shutdown`, '')).status).toBe(200);
    const result = await subprocess;
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('');
  });

  test('refuses a bad config (exit 2), a bad auth object (exit 2) and auth that does not apply (exit 3)', async () => {
    const readinessFile = path.join(workDir, 'never-ready.json');
    const bad = writeJson('server-bad.json', { transport: 'carrier-pigeon', readinessFile, scenarioFile: serverScenarioFile, auth: { mode: 'none' } });
    // Every auth mode runs over HTTP (suites/harness/auth-*.test.ts); a bad auth object is a bad config.
    const badAuth = writeJson('server-bad-auth.json', {
      transport: 'http',
      readinessFile,
      scenarioFile: serverScenarioFile,
      auth: { mode: 'bearer', tokn: 'test-only-secret-token' },
    });
    // stdio relies on process trust only: any other mode does not apply.
    const stdioBearer = writeJson('server-stdio-bearer.json', {
      transport: 'stdio',
      readinessFile,
      scenarioFile: serverScenarioFile,
      auth: { mode: 'bearer', token: 'test-only-secret-token' },
    });
    const [badResult, badAuthResult, stdioResult] = await Promise.all([
      launch(ADAPTER.server, bad),
      launch(ADAPTER.server, badAuth),
      launch(ADAPTER.server, stdioBearer),
    ]);
    expect(badResult.exitCode).toBe(2);
    expect(badResult.stderr).toMatch(/transport/);
    expect(badAuthResult.exitCode).toBe(2);
    expect(badAuthResult.stderr).toMatch(/"auth\.token" must be a non-empty string/);
    expect(stdioResult.exitCode).toBe(3);
    expect(stdioResult.stderr).toMatch(/auth mode bearer is inapplicable to stdio/);
    expect(badAuthResult.stderr + stdioResult.stderr).not.toContain('test-only-secret-token');
    expect(() => readFileSync(readinessFile)).toThrow();
  });
});

describe('reference server over stdio', () => {
  test('answers discovery and intercept lines; stdout carries only JSON-RPC lines', async () => {
    const { subprocess, readiness } = await startServer('stdio');
    expect(readiness.endpoint).toBeNull();
    expect(await getJson(`${readiness.controlEndpoint}/health`)).toEqual({ status: 200, body: { ready: true } });

    let stdout = '';
    const lineWaiters: Array<() => void> = [];
    subprocess.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      for (const wake of lineWaiters.splice(0)) wake();
    });
    const nthLine = async (n: number): Promise<string> => {
      while (stdout.split('\n').length - 1 < n) await new Promise<void>((resolve) => lineWaiters.push(resolve));
      return stdout.split('\n')[n - 1]!;
    };

    subprocess.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'capabilities-1', method: 'hooks/capabilities', params: { protocolVersion: 'draft' } })}\n`);
    const discovery = JSON.parse(await nthLine(1)) as unknown;
    expect(discovery).toMatchObject({ jsonrpc: '2.0', id: 'capabilities-1', result: { protocolVersion: 'draft' } });
    expect(loadValidators(path.join(PROJECT_ROOT, 'schemas')).capabilitiesResponse(discovery).errors).toEqual([]);

    subprocess.stdin!.write(`${JSON.stringify(SCHEMA_INVALID.request)}\n`);
    expect(await nthLine(2)).toBe(JSON.stringify(SCHEMA_INVALID.response));

    subprocess.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'v', method: 'hooks/capabilities', params: { protocolVersion: '0.1' } })}\n`);
    expect(JSON.parse(await nthLine(3))).toMatchObject({ id: 'v', error: { code: -32602 } });

    subprocess.stdin!.end();
    const result = await subprocess;
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});

describe('reference client', () => {
  function expectClientRows(report: ReportShape): void {
    expect(report.language).toBe('typescript');
    expect(report.results.map((row) => row.id)).toEqual(CLIENT_ROWS.map((row) => row.id));
    const rows = rowsById(report);
    expect(rows[POSITIVE.id]).toEqual({
      id: POSITIVE.id,
      status: 'passed',
      actual: { decision: 'allow', executed: true, input: { task: 1 }, messages: ['hello'] },
    });
    expect(rows[SCHEMA_INVALID.id]).toEqual({ id: SCHEMA_INVALID.id, status: 'passed', actual: { rejected: true } });
    expect(rows[CAPABILITY_INVALID.id]).toEqual({ id: CAPABILITY_INVALID.id, status: 'passed', actual: { rejected: true } });
  }

  test('runs against the http server: correct rows, exit 0, receipts are exactly the requests', async () => {
    const server = await startServer('http');
    const reportFile = path.join(workDir, 'report-http.json');
    const config = writeJson('client-http.json', {
      transport: 'http',
      endpoint: server.readiness.endpoint,
      scenarioFile: clientScenarioFile,
      reportFile,
      auth: { mode: 'none' },
    });
    const result = await launch(ADAPTER.client, config);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    const report = readReport(reportFile);
    expectClientRows(report);
    const reportText = readFileSync(reportFile, 'utf8');
    expect(reportText).not.toContain(new URL(server.readiness.endpoint!).port);
    expect(await receipts(server.readiness.controlEndpoint)).toEqual(CLIENT_ROWS.map((row) => row.request));

    // A held reply that outlives the request watchdog fails its row; over HTTP the next row still runs.
    const timeoutReport = path.join(workDir, 'report-timeout-http.json');
    const timedOut = await launch(
      ADAPTER.client,
      writeJson('client-timeout-http.json', {
        transport: 'http',
        endpoint: server.readiness.endpoint,
        scenarioFile: timeoutScenarioFile,
        reportFile: timeoutReport,
        auth: { mode: 'none' },
        watchdogs: { requestMs: REQUEST_MS },
      }),
    );
    expect(timedOut.exitCode).toBe(1);
    expect(readReport(timeoutReport).results).toEqual([TIMED_OUT_ROW, expect.objectContaining({ id: POSITIVE.id, status: 'passed' })]);
  });

  test('runs over stdio, spawning and cleaning up the server itself', async () => {
    const readinessFile = path.join(workDir, 'ready-client-stdio.json');
    const serverConfig = writeJson('server-for-client.json', { transport: 'stdio', readinessFile, scenarioFile: serverScenarioFile, auth: { mode: 'none' } });
    const reportFile = path.join(workDir, 'report-stdio.json');
    const config = writeJson('client-stdio.json', {
      transport: 'stdio',
      serverCommand: ADAPTER.server,
      serverCwd: REFERENCE_DIR,
      serverConfig,
      scenarioFile: clientScenarioFile,
      reportFile,
      auth: { mode: 'none' },
    });
    const result = await launch(ADAPTER.client, config);
    expect(result.exitCode, result.stderr).toBe(0);
    expectClientRows(readReport(reportFile));
    // The spawned server wrote its readiness file and is gone now.
    const { pid } = JSON.parse(readFileSync(readinessFile, 'utf8')) as Readiness;
    expect(() => process.kill(pid, 0)).toThrow();
  });

  test('a dead endpoint fails every row (never a passed negative) and exits non-zero', async () => {
    const port = await unusedPort();
    const reportFile = path.join(workDir, 'report-dead.json');
    const config = writeJson('client-dead.json', {
      transport: 'http',
      endpoint: `http://127.0.0.1:${port}`,
      scenarioFile: clientScenarioFile,
      reportFile,
      auth: { mode: 'none' },
    });
    const result = await launch(ADAPTER.client, config);
    expect(result.exitCode).toBe(1);
    const report = readReport(reportFile);
    expect(report.results).toHaveLength(CLIENT_ROWS.length);
    for (const row of report.results) {
      expect(row.status).toBe('failed');
      expect(row.actual).toBeNull();
      expect(row.error).toMatch(/^discovery: transport: connection failed/);
    }
    expect(readFileSync(reportFile, 'utf8')).not.toContain(String(port));
  });

  test('HTTP auth over stdio is inapplicable; bad configs (auth included) and spawn failures are caught', async () => {
    const httpReport = path.join(workDir, 'report-bearer-http.json');
    const stdioReport = path.join(workDir, 'report-bearer-stdio.json');
    const auth = { mode: 'bearer', token: 'test-only-secret-token' };
    const httpConfig = writeJson('client-bearer-http.json', {
      transport: 'http',
      endpoint: 'http://127.0.0.1:9',
      scenarioFile: clientScenarioFile,
      reportFile: httpReport,
      auth: { mode: 'bearer', token: ['test-only-secret-token'] },
    });
    const stdioConfig = writeJson('client-bearer-stdio.json', {
      transport: 'stdio',
      serverCommand: ADAPTER.server,
      serverCwd: REFERENCE_DIR,
      serverConfig: path.join(workDir, 'unused-server-config.json'),
      scenarioFile: clientScenarioFile,
      reportFile: stdioReport,
      auth,
    });
    const badConfig = writeJson('client-bad.json', { transport: 'stdio', scenarioFile: clientScenarioFile, reportFile: stdioReport, auth: { mode: 'none' } });
    const spawnReport = path.join(workDir, 'report-spawn.json');
    const spawnConfig = writeJson('client-spawn.json', {
      transport: 'stdio',
      serverCommand: [path.join(workDir, 'no-such-server')],
      serverConfig: path.join(workDir, 'unused-server-config.json'),
      scenarioFile: clientScenarioFile,
      reportFile: spawnReport,
      auth: { mode: 'none' },
    });
    const [httpResult, stdioResult, badResult, spawnResult] = await Promise.all([
      launch(ADAPTER.client, httpConfig),
      launch(ADAPTER.client, stdioConfig),
      launch(ADAPTER.client, badConfig),
      launch(ADAPTER.client, spawnConfig),
    ]);
    // A server that cannot be spawned fails every row; it never yields a passed negative.
    expect(spawnResult.exitCode).toBe(1);
    for (const row of readReport(spawnReport).results) {
      expect(row).toEqual({ id: row.id, status: 'failed', actual: null, error: 'spawn: server command failed to start (ENOENT)' });
    }
    // A bad auth object is a bad config: exit 2, no report, and the value is never echoed.
    expect(httpResult.exitCode).toBe(2);
    expect(httpResult.stderr).toMatch(/"auth\.token" must be a non-empty string/);
    expect(() => readFileSync(httpReport)).toThrow();
    expect(stdioResult.exitCode).toBe(0);
    for (const row of readReport(stdioReport).results) {
      expect(row).toEqual({ id: row.id, status: 'inapplicable', actual: null, error: 'auth mode bearer is inapplicable to stdio (process trust only)' });
    }
    expect(httpResult.stderr + stdioResult.stderr).not.toContain('test-only-secret-token');
    expect(badResult.exitCode).toBe(2);
    expect(badResult.stderr).toMatch(/serverCommand/);
  });

  test('a timeout fails the row (never a passed negative) and a stalled stdio stream is not reused', async () => {
    const stdioServerConfig = writeJson('server-timeout.json', {
      transport: 'stdio',
      readinessFile: path.join(workDir, 'ready-timeout.json'),
      scenarioFile: serverScenarioFile,
      auth: { mode: 'none' },
    });
    const reportFile = path.join(workDir, 'report-timeout-stdio.json');
    const result = await launch(
      ADAPTER.client,
      writeJson('client-timeout-stdio.json', {
        transport: 'stdio',
        serverCommand: ADAPTER.server,
        serverCwd: REFERENCE_DIR,
        serverConfig: stdioServerConfig,
        scenarioFile: timeoutScenarioFile,
        reportFile,
        auth: { mode: 'none' },
        watchdogs: { requestMs: REQUEST_MS },
      }),
    );
    expect(result.exitCode).toBe(1);
    expect(readReport(reportFile).results).toEqual([
      TIMED_OUT_ROW,
      { id: POSITIVE.id, status: 'failed', actual: null, error: 'transport: stdio stream unusable after an earlier timeout' },
    ]);
  });

  test('SIGTERM while a reply is held stops the client and the server it spawned', async () => {
    const readinessFile = path.join(workDir, 'ready-sigterm.json');
    const serverConfig = writeJson('server-sigterm.json', { transport: 'stdio', readinessFile, scenarioFile: serverScenarioFile, auth: { mode: 'none' } });
    const client = launch(
      ADAPTER.client,
      writeJson('client-sigterm.json', {
        transport: 'stdio',
        serverCommand: ADAPTER.server,
        serverCwd: REFERENCE_DIR,
        serverConfig,
        scenarioFile: timeoutScenarioFile,
        reportFile: path.join(workDir, 'report-sigterm.json'),
        auth: { mode: 'none' },
      }),
    );
    const readiness = await waitForReadiness(readinessFile, client);
    await untilReceived(readiness.controlEndpoint, NEVER_RELEASED.id);
    client.kill('SIGTERM');
    const result = await client;
    expect(result.exitCode).toBe(143);
    expect(() => process.kill(readiness.pid, 0)).toThrow();
  });
});
