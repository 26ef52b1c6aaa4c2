// Capability discovery of a server adapter through its real transport, the way a client does it, for
// the fuzz host envelope:
// - HTTP: the server is started (auth none, an empty scenario file) and asked `POST /capabilities`
//   with a `hooks/capabilities` request; a server that does not answer it with a manifest is asked
//   `GET /capabilities` for the bare capability set instead. Always stopped.
// - stdio: the server is started through the harness relay (as a client would spawn it), sent one
//   `hooks/capabilities` line once ready, and its first reply line is read; then its stdin is closed
//   and whatever is left of its process tree is ended.
// Every wait is bounded. Messages describe what came back (status, shape), never quote it (adapter
// output may hold credentials). The temp folder is removed on success and kept on failure, for the
// caller to persist (its path is in the message).

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { boundedJsonRequest, RequestFailure } from '../adapters/control-client.ts';
import { ServerStartError, startHttpServer, stopHttpServer } from '../adapters/http-server-pool.ts';
import { writePrivateJson } from '../adapters/private-json.ts';
import { writeRelaySpec } from './relay-spec.ts';
import type { ProcessExit } from '../adapters/launch.ts';
import { ReadinessError, waitForReadiness } from '../adapters/readiness.ts';
import type { LoadedAdapter } from '../adapters/types.ts';
import type { Transport } from '../config/define-config.ts';
import { endpointRoutes } from '../http/endpoint-routes.ts';
import { isJsonObject, type JsonObject } from '../protocol/json.ts';
import { parseJsonText } from '../protocol/json-text.ts';
import { PROTOCOL_VERSION } from '../protocol/messages.ts';
import { RELAY_PATH } from './client-run.ts';
import { endInstances } from './stdio-evidence.ts';
import { fileNamePart } from '../adapters/file-name-part.ts';

export type CapabilityDiscovery =
  | { ok: true; form: 'manifest'; manifest: JsonObject; via: string }
  | { ok: true; form: 'bare'; capabilities: JsonObject; via: string }
  | { ok: false; problem: string; dir: string };

export interface DiscoveryOptions {
  adapter: LoadedAdapter;
  transport: Transport;
  schemasDir: string;
  /** Parent of this discovery's temp folder. */
  workDir: string;
  /** Startup watchdog (readiness). */
  startupMs: number;
  /** Bound for each discovery exchange. Default 15 000 ms. */
  exchangeMs?: number;
  /** Grace between polite shutdown and SIGKILL. Default 1000 ms. */
  graceMs?: number;
}

export const DISCOVERY_REQUEST_ID = 'ahp-fuzz-discovery';
const DISCOVERY_REQUEST = { jsonrpc: '2.0', id: DISCOVERY_REQUEST_ID, method: 'hooks/capabilities', params: { protocolVersion: PROTOCOL_VERSION } };
/** A reply line longer than this is not read further. */
const MAX_LINE_BYTES = 4 * 1024 * 1024;

export async function discoverCapabilities(options: DiscoveryOptions): Promise<CapabilityDiscovery> {
  const { adapter, transport } = options;
  mkdirSync(options.workDir, { recursive: true });
  const dir = mkdtempSync(path.join(options.workDir, `discovery-${fileNamePart(adapter.name, 40)}-${transport}-`));
  const scenarioFile = path.join(dir, 'scenarios.json');
  writeFileSync(scenarioFile, `${JSON.stringify({ version: 1, scenarios: [] })}\n`);
  const who = `server "${adapter.name}" over ${transport}`;
  let result: CapabilityDiscovery;
  try {
    const context: Context = { options, dir, scenarioFile, who, problem: (text) => ({ ok: false, problem: `${who}: ${text}`, dir }) };
    result = transport === 'http' ? await overHttp(context) : await overStdio(context);
  } catch (error) {
    result = { ok: false, problem: `${who}: discovery failed: ${(error as Error).message}`, dir };
  }
  if (result.ok) rmSync(dir, { recursive: true, force: true });
  return result;
}

// ----- HTTP -------------------------------------------------------------------------------------------

/** One discovery: its options, its temp folder (with an empty scenario file) and how it fails. */
interface Context {
  options: DiscoveryOptions;
  dir: string;
  scenarioFile: string;
  who: string;
  problem: (text: string) => CapabilityDiscovery;
}

async function overHttp({ options, dir, scenarioFile, who, problem }: Context): Promise<CapabilityDiscovery> {
  let handle;
  try {
    handle = await startHttpServer({ adapter: options.adapter, auth: 'none', scenarioFile, schemaDir: options.schemasDir, workDir: dir, startupMs: options.startupMs });
  } catch (error) {
    if (error instanceof ServerStartError) return problem(error.message);
    throw error;
  }
  try {
    const url = endpointRoutes(handle.endpoint).capabilities;
    const timeoutMs = options.exchangeMs ?? 15_000;
    const posted = await exchange('POST', url, JSON.stringify(DISCOVERY_REQUEST), timeoutMs);
    const manifest = manifestOf(posted.body);
    if (manifest) return { ok: true, form: 'manifest', manifest, via: `${who} (POST /capabilities)` };
    const got = await exchange('GET', url, undefined, timeoutMs);
    if (isJsonObject(got.body) && Array.isArray(got.body.effects)) return { ok: true, form: 'bare', capabilities: got.body, via: `${who} (GET /capabilities, bare capability set)` };
    const fromGet = manifestOf(got.body);
    if (fromGet) return { ok: true, form: 'manifest', manifest: fromGet, via: `${who} (GET /capabilities)` };
    return problem(
      `neither POST /capabilities (${posted.what}) nor GET /capabilities (${got.what}) answered a manifest or a capability set; ` +
        `see the server log ${handle.logFile}`,
    );
  } finally {
    await stopHttpServer(handle, { keepWorkDir: true, graceMs: options.graceMs });
  }
}

async function exchange(method: 'GET' | 'POST', url: string, body: string | undefined, timeoutMs: number): Promise<{ body?: unknown; what: string }> {
  let response;
  try {
    response = await boundedJsonRequest(url, method, body, timeoutMs);
  } catch (error) {
    if (!(error instanceof RequestFailure)) throw error;
    return { what: error.kind === 'timeout' ? `no answer within ${timeoutMs} ms` : `request failed (${error.code})` };
  }
  const parsed = parseJsonText(response.text);
  const shape = parsed.ok ? shapeOf(parsed.value) : 'a body that is not JSON';
  if (response.status !== 200 || !parsed.ok) return { what: `HTTP ${response.status} with ${shape}` };
  return { body: parsed.value, what: `HTTP 200 with ${shape}` };
}

/** The manifest of a hooks/capabilities response envelope, or of its bare `{protocolVersion, manifest}` result. */
function manifestOf(body: unknown): JsonObject | undefined {
  if (!isJsonObject(body)) return undefined;
  const result = isJsonObject(body.result) ? body.result : body;
  return isJsonObject(result.manifest) ? result.manifest : undefined;
}

// ----- stdio ------------------------------------------------------------------------------------------

async function overStdio({ options, dir, scenarioFile, who, problem }: Context): Promise<CapabilityDiscovery> {
  const graceMs = options.graceMs ?? 1000;
  const files = {
    serverConfig: path.join(dir, 'server-config.json'),
    relaySpec: path.join(dir, 'relay-spec.json'),
    readiness: path.join(dir, 'readiness.json'),
    serverLog: path.join(dir, 'server.log'),
    relayLog: path.join(dir, 'relay.log'),
    instances: path.join(dir, 'server-instances'),
  };
  writePrivateJson(files.serverConfig, { transport: 'stdio', readinessFile: files.readiness, scenarioFile, auth: { mode: 'none' }, schemaDir: options.schemasDir });
  writeRelaySpec(files.relaySpec, {
    command: options.adapter.manifest.server,
    cwd: options.adapter.cwd,
    serverLogFile: files.serverLog,
    relayLogFile: files.relayLog,
    instancesDir: files.instances,
    barriers: {},
    readinessTimeoutMs: options.startupMs,
    controlTimeoutMs: 5000,
    barrierTimeoutMs: 5000,
    graceMs,
  });
  const logs = `see ${files.relayLog} and ${files.serverLog}`;
  const relay = spawn(process.execPath, [RELAY_PATH, '--relay', files.relaySpec, '--config', files.serverConfig], {
    cwd: options.adapter.cwd,
    stdio: ['pipe', 'pipe', 'ignore'],
    windowsHide: true,
  });
  const exited = new Promise<ProcessExit>((resolve) => {
    relay.once('exit', (code, signal) => resolve({ code, signal }));
    relay.once('error', () => resolve({ code: null, signal: null }));
  });
  relay.stdin.on('error', () => undefined);
  try {
    try {
      await waitForReadiness(files.readiness, { timeoutMs: options.startupMs, exited, logFile: files.serverLog });
    } catch (error) {
      if (!(error instanceof ReadinessError)) throw error;
      if (error.kind === 'exited') {
        const exit = await exited;
        return problem(`the server exited (${exit.signal ?? `code ${exit.code}`}) before it was ready; ${logs}`);
      }
      return problem(`the server did not become ready (${error.kind === 'timeout' ? `nothing within ${options.startupMs} ms` : `readiness file ${error.kind}`}); ${logs}`);
    }
    const exchangeMs = options.exchangeMs ?? 15_000;
    const line = readLine(relay.stdout, exited, exchangeMs);
    relay.stdin.write(`${JSON.stringify(DISCOVERY_REQUEST)}\n`);
    const reply = await line;
    if (reply.kind !== 'line') return problem(`no reply line to hooks/capabilities (${reply.kind === 'timeout' ? `none within ${exchangeMs} ms` : 'the server exited first'}); ${logs}`);
    const parsed = parseJsonText(reply.text);
    if (!parsed.ok) return problem(`the reply line to hooks/capabilities is not JSON; ${logs}`);
    const manifest = manifestOf(parsed.value);
    if (!manifest || (isJsonObject(parsed.value) && parsed.value.id !== DISCOVERY_REQUEST_ID)) {
      return problem(`the reply to hooks/capabilities is ${shapeOf(parsed.value)}, expected a response with id "${DISCOVERY_REQUEST_ID}" carrying result.manifest; ${logs}`);
    }
    return { ok: true, form: 'manifest', manifest, via: `${who} (hooks/capabilities)` };
  } finally {
    relay.stdin.end();
    const gone = await Promise.race([exited.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 3 * graceMs + 1000).unref())]);
    if (!gone) relay.kill('SIGKILL');
    await endInstances(files.instances, graceMs, RELAY_PATH);
  }
}

type LineRead = { kind: 'line'; text: string } | { kind: 'timeout' } | { kind: 'exited' };

/** The first non-blank line of `stream`, bounded by `timeoutMs`, the process's exit and MAX_LINE_BYTES. */
function readLine(stream: NodeJS.ReadableStream, exited: Promise<ProcessExit>, timeoutMs: number): Promise<LineRead> {
  return new Promise((resolve) => {
    let buffered = '';
    let done = false;
    const finish = (result: LineRead): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stream.off('data', onData);
      resolve(result);
    };
    const onData = (chunk: Buffer | string): void => {
      buffered += chunk.toString();
      for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line !== '') return finish({ kind: 'line', text: line });
      }
      if (buffered.length > MAX_LINE_BYTES) finish({ kind: 'line', text: buffered });
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    stream.on('data', onData);
    void exited.then(() => setImmediate(() => finish({ kind: 'exited' })));
  });
}

/** What a JSON value is, without any of its content. */
function shapeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
