// One client run: a client adapter runs the selected scenarios against a server adapter over one
// transport and auth mode. Produces the client's report and the server's receipts for this run.
//
// Never throws for adapter misbehaviour: every problem becomes a RunFailure with a fixed stage label
// (spawn / startup / run / report / receipts) and a message in our own words that points at the
// captured log file instead of quoting adapter output. Throws only for harness bugs (bad arguments).
//
// HTTP: the server is already running (spec.httpServer). Receipts = GET /receipts after the run minus
// before it, so the caller must serialise runs per server: wrap the call in withServerLock(handle, …).
// Stdio: the client spawns the server through harness/runs/stdio-relay.mjs — possibly many times, as
// clients that restart their server do — and every relay instance keeps its server's receipts and the
// responses it forwarded (each paired with the request it answers, by order) in its own folder;
// stdio-evidence.ts reads them back as one run. So verification can tell a scripted response from one
// the server made up, and no receipt is lost when a client kills its server.

import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { receipts as getReceipts, receiptScenarioId, release } from '../adapters/control-client.ts';
import { writePrivateJson } from '../adapters/private-json.ts';
import { writeRelaySpec } from './relay-spec.ts';
import type { LaunchedProcess } from '../adapters/launch.ts';
import { readJsonFile, runClientProcess, type ClientProcessRun } from './client-process.ts';
import { serializeScenarioFile } from '../scenarios/load-scenarios.ts';
import { startForwardingProxy, type ForwardingProxy, type ProxyExchange } from '../http/forwarding-proxy.ts';
import { endInstances, readStdioEvidence, snapshotLiveInstances } from './stdio-evidence.ts';
import type { Scenario } from '../scenarios/types.ts';
import type { ClientRunOutcome, ClientRunSpec } from './types.ts';
import { failureList, processOutcome } from './run-outcome.ts';
import { adapterFolderPart } from '../adapters/file-name-part.ts';
import { isJsonObject, jsonKey } from '../protocol/json.ts';
import { receiptEnvelope } from './verdicts.ts';
import { readLogTail } from './log-tail.ts';
import { secretsOfAuthSettings } from './redact-secrets.ts';
import { describeRunDeath } from './run-death.ts';

export const RELAY_PATH = fileURLToPath(new URL('./stdio-relay.mjs', import.meta.url));

export interface RunClientOptions {
  /** Parent folder for this run's fresh directory (configs, report, logs). */
  workDir: string;
  /** Grace between SIGTERM and SIGKILL when the run is cut short. Default 1000. */
  graceMs?: number;
  /** Per control call bound (receipts, release). Default 5000. */
  controlTimeoutMs?: number;
  /** Extra `auth` settings for the client config (token, key files, ...), merged after `mode`. */
  authSettings?: Record<string, unknown>;
  /** Extra `auth` settings for the stdio server config. */
  serverAuthSettings?: Record<string, unknown>;
  /**
   * The run's test PKI files, so the HTTP forwarding proxy can stand in for an `https:` (mtls)
   * server. Without them an mtls run has receipts-only evidence, and says so.
   */
  proxyTls?: ProxyTlsFiles;
}

/** PEM files of the run's PKI that the proxy needs (see harness/http/forwarding-proxy.ts). */
export interface ProxyTlsFiles {
  caFile: string;
  server: { certFile: string; keyFile: string };
  clients: Array<{ certFile: string; keyFile: string }>;
}

/** The files of one run, all inside `dir`. */
export interface RunFiles {
  dir: string;
  scenarioFile: string;
  clientConfig: string;
  reportFile: string;
  clientLog: string;
  serverConfig: string;
  relaySpec: string;
  readinessFile: string;
  serverLog: string;
  relayLog: string;
  /** One numbered folder per server process the stdio client started (see stdio-relay.mjs). */
  instancesDir: string;
}


function runFiles(dir: string): RunFiles {
  const at = (name: string): string => path.join(dir, name);
  return {
    dir,
    scenarioFile: at('scenarios.json'),
    clientConfig: at('client-config.json'),
    reportFile: at('report.json'),
    clientLog: at('client.log'),
    serverConfig: at('server-config.json'),
    relaySpec: at('relay-spec.json'),
    readinessFile: at('readiness.json'),
    serverLog: at('server.log'),
    relayLog: at('relay.log'),
    instancesDir: at('server-instances'),
  };
}

export async function runClient(spec: ClientRunSpec, opts: RunClientOptions): Promise<ClientRunOutcome> {
  const started = Date.now();
  const { transport, auth } = spec;
  if (transport === 'http' && !spec.httpServer) {
    throw new TypeError('runClient: transport "http" needs spec.httpServer (the running server handle)');
  }
  if (transport === 'http' && spec.httpServer && spec.httpServer.adapter !== spec.server.name) {
    throw new TypeError(`runClient: spec.httpServer belongs to "${spec.httpServer.adapter}", not "${spec.server.name}"`);
  }
  const graceMs = opts.graceMs ?? 1000;
  const controlTimeoutMs = opts.controlTimeoutMs ?? 5000;

  mkdirSync(opts.workDir, { recursive: true });
  const files = runFiles(
    mkdtempSync(path.join(opts.workDir, `run-${adapterFolderPart(spec.server.name)}-${adapterFolderPart(spec.client.name)}-${transport}-${auth}-`)),
  );

  const { failures, fail } = failureList();
  const logFiles = [files.clientLog];
  const who = `client "${spec.client.name}" against server "${spec.server.name}" (${transport}/${auth})`;

  const outcome = (extra: Partial<ClientRunOutcome>): ClientRunOutcome => ({
    spec: { transport, auth, server: spec.server.name, client: spec.client.name },
    report: undefined,
    receipts: undefined,
    ...processOutcome(started, failures, logFiles),
    ...extra,
  });

  // ----- files -----------------------------------------------------------------------------------
  writeFileSync(files.scenarioFile, serializeScenarioFile({ version: 1, scenarios: spec.clientScenarios ?? spec.scenarios }));
  const clientConfig: Record<string, unknown> = {
    transport,
    scenarioFile: files.scenarioFile,
    reportFile: files.reportFile,
    auth: { ...opts.authSettings, mode: auth },
    schemaDir: spec.schemasDir,
  };
  let proxy: ForwardingProxy | undefined;
  let evidenceNote: string | undefined;
  if (transport === 'http') {
    const endpoint = spec.httpServer!.endpoint;
    if (new URL(endpoint).protocol === 'https:' && !opts.proxyTls) {
      evidenceNote = `receipts-only evidence: the server's endpoint is https and this run has no TLS material for the harness proxy, so the responses the client was handed are not checked`;
    } else {
      const tls = new URL(endpoint).protocol === 'https:' ? readProxyTls(opts.proxyTls!) : undefined;
      proxy = await startForwardingProxy({ upstream: endpoint, ...(tls ? { tls } : {}) });
    }
    // The client gets the proxy's endpoint in exactly the server's form (origin swapped).
    clientConfig.endpoint = proxy?.endpoint ?? endpoint;
  } else {
    logFiles.push(files.relayLog, files.serverLog);
    clientConfig.serverCommand = [process.execPath, RELAY_PATH, '--relay', files.relaySpec];
    clientConfig.serverCwd = spec.server.cwd;
    clientConfig.serverConfig = files.serverConfig;
    writePrivateJson(files.serverConfig, {
      transport: 'stdio',
      readinessFile: files.readinessFile,
      scenarioFile: spec.serverScenarioFile,
      auth: { ...opts.serverAuthSettings, mode: auth },
      schemaDir: spec.schemasDir,
    });
    writeRelaySpec(files.relaySpec, {
      command: spec.server.manifest.server,
      cwd: spec.server.cwd,
      serverLogFile: files.serverLog,
      relayLogFile: files.relayLog,
      instancesDir: files.instancesDir,
      barriers: Object.fromEntries(spec.scenarios.flatMap((s) => (typeof s.barrier === 'string' ? [[s.id, s.barrier] as const] : []))),
      readinessTimeoutMs: spec.watchdogs.startupMs,
      controlTimeoutMs,
      barrierTimeoutMs: spec.watchdogs.runMs,
      graceMs,
    });
  }
  writePrivateJson(files.clientConfig, clientConfig);

  // ----- receipts before (http) -------------------------------------------------------------------
  let before: unknown[] | undefined;
  if (transport === 'http') {
    try {
      before = await getReceipts(spec.httpServer!.controlEndpoint, { timeoutMs: controlTimeoutMs });
    } catch (error) {
      fail('receipts', 'before', `${(error as Error).message} (before the run); see the server log ${spec.httpServer!.logFile}`);
    }
  }

  // ----- the client under the watchdog, with barriers -----------------------------------------------
  const barrierAbort = new AbortController();
  let barriers: Promise<void> = Promise.resolve();
  let run!: ClientProcessRun;
  try {
    run = await runClientProcess({
      command: [...spec.client.manifest.client, '--config', files.clientConfig],
      cwd: spec.client.cwd,
      logFile: files.clientLog,
      runMs: spec.watchdogs.runMs,
      graceMs,
      onStarted: (client) => {
        // Over stdio every relay instance releases its own server's barriers.
        if (transport !== 'http') return;
        barriers = handleHttpBarriers(spec, client, barrierAbort.signal, controlTimeoutMs, before?.length ?? 0).catch((error: unknown) => {
          // Once the client has exited (or the watchdog fired) the barrier wait is moot, not a failure.
          if (!barrierAbort.signal.aborted && !client.exit) fail('run', 'barrier', `${who}: ${(error as Error).message}`);
        });
      },
      // A hung stdio server answers no more responses, so the relay took no snapshot of what it did
      // receive: take one now, while the server is still alive (bounded), then end the tree.
      onTimeout: async () => {
        if (transport === 'stdio') await snapshotLiveInstances(files.instancesDir, Math.min(controlTimeoutMs, 2000));
      },
    });
    if (run.started && run.timedOut) {
      fail('run', 'timeout', `${who}: run watchdog fired after ${spec.watchdogs.runMs} ms; the client's process tree was killed; see ${files.clientLog}`);
    }
  } finally {
    barrierAbort.abort();
    await barriers;
    await proxy?.close();
    // A client that never started started no stdio server either.
    if (transport === 'stdio' && run?.started !== false) await endInstances(files.instancesDir, graceMs, RELAY_PATH);
  }
  if (!run.started) {
    fail('spawn', run.spawnError.code, `${who}: ${run.spawnError.message}; see ${files.clientLog}`);
    return outcome({});
  }
  const { exit, timedOut } = run;

  if (!timedOut && exit.signal !== null) {
    fail('run', 'signal', `${who}: the client was killed by ${exit.signal}; see ${files.clientLog}`);
  }
  if ((exit.leftovers ?? 0) > 0) {
    fail('run', 'leftover-process', `${who}: the client left ${exit.leftovers} process(es) running after it exited (outside its process group); the harness killed them; see ${files.clientLog}`);
  }

  // ----- stdio evidence: every server process the client started (failures before the report's) -------
  let receipts: unknown[] | undefined;
  let responses: unknown[] | undefined;
  let sent: unknown[] | undefined;
  if (transport === 'stdio') {
    const evidence = readStdioEvidence(files.instancesDir, spec.server.name, `${files.relayLog} and ${files.serverLog}`);
    failures.push(...evidence.failures);
    ({ receipts, responses, sent } = evidence);
  }

  // ----- report -------------------------------------------------------------------------------------
  const reportFailure = failures.length;
  const report = readJsonFile(files.reportFile, (kind, message) => fail('report', kind, `${who}: ${message}; see ${files.clientLog}`), 'report');

  // ----- HTTP receipts and the proxy's record ------------------------------------------------------------
  if (transport === 'http') {
    const handle = spec.httpServer!;
    try {
      const after = await getReceipts(handle.controlEndpoint, { timeoutMs: controlTimeoutMs });
      if (before !== undefined) {
        if (after.length < before.length) {
          fail('receipts', 'reset', `server "${spec.server.name}": GET /receipts returned ${after.length} requests after the run but ${before.length} before it (server restarted?); see the server log ${handle.logFile}`);
        } else {
          receipts = after.slice(before.length);
        }
      }
    } catch (error) {
      fail('receipts', 'after', `${(error as Error).message} (after the run); see the server log ${handle.logFile}`);
    }
    if (proxy) ({ responses, sent } = proxyEvidence(proxy.exchanges()));
  }

  // A client that left no readable report: say where it was (the last request seen, its row) and how its output ends.
  const noReport = failures[reportFailure];
  if (report === undefined && noReport !== undefined) {
    const seen = sent !== undefined ? { messages: sent, source: transport === 'stdio' ? 'the stdio relay' : 'the harness proxy' } : receipts !== undefined ? { messages: receipts.map(receiptEnvelope), source: `server "${spec.server.name}"` } : undefined;
    noReport.message += describeRunDeath({
      rows: spec.clientScenarios ?? spec.scenarios,
      seen,
      noEvidence: `server "${spec.server.name}" gave no receipts for this run`,
      ...(responses === undefined ? {} : { answered: answeredIn(responses) }),
      logTail: readLogTail(files.clientLog, { secrets: secretsOfAuthSettings(opts.authSettings) }),
      logFile: files.clientLog,
    });
  }

  return outcome({ report, receipts, exitCode: exit.code, signal: exit.signal, timedOut, ...(responses === undefined ? {} : { responses }), ...(sent === undefined ? {} : { sent }), ...(evidenceNote === undefined ? {} : { evidenceNote }) });
}

/** Whether the response record holds an answer to `message` (paired by request id and method). */
function answeredIn(responses: readonly unknown[]): (message: unknown) => boolean | undefined {
  return (message) => {
    if (!isJsonObject(message) || message.id === undefined) return undefined;
    const key = jsonKey(message.id);
    return responses.some((r) => isJsonObject(r) && jsonKey(r.requestId) === key && r.method === message.method && r.status !== null);
  };
}

function readProxyTls(files: ProxyTlsFiles): { ca: Buffer; server: { cert: Buffer; key: Buffer }; clients: Array<{ cert: Buffer; key: Buffer }> } {
  return {
    ca: readFileSync(files.caFile),
    server: { cert: readFileSync(files.server.certFile), key: readFileSync(files.server.keyFile) },
    clients: files.clients.map((client) => ({ cert: readFileSync(client.certFile), key: readFileSync(client.keyFile) })),
  };
}

/**
 * The proxy's exchanges as the run's evidence, in the same record shape the stdio relay writes: what
 * the client sent (JSON-RPC bodies), and each response paired with the request it answers.
 */
function proxyEvidence(exchanges: ProxyExchange[]): { responses: unknown[]; sent: unknown[] } {
  const responses: unknown[] = [];
  const sent: unknown[] = [];
  for (const exchange of exchanges) {
    const body = exchange.request;
    const isRpc = typeof body === 'object' && body !== null && !Array.isArray(body) && 'method' in body;
    if (exchange.requestInvalidJson) sent.push({ invalidJson: true });
    else if (body !== undefined) sent.push(body);
    // GET /capabilities has no body: it is discovery, which the checks leave out.
    const pairing = isRpc
      ? { requestId: (body as { id?: unknown }).id ?? null, method: (body as { method: unknown }).method }
      : { requestId: null, method: exchange.method === 'GET' ? 'hooks/capabilities' : null };
    const answer = exchange.responseInvalidJson ? { invalidJson: true } : { response: exchange.response ?? null };
    responses.push({ ...pairing, status: exchange.status, ...answer, ...(exchange.failure ? { failure: exchange.failure } : {}) });
  }
  return { responses, sent };
}

/**
 * HTTP: for every selected scenario with a barrier (file order), wait until the server's receipts
 * contain that scenario's request, then POST /release {barrier}. Bounded by the run watchdog (aborted
 * with it) and by the client's exit.
 */
async function handleHttpBarriers(
  spec: ClientRunSpec,
  client: LaunchedProcess,
  signal: AbortSignal,
  controlTimeoutMs: number,
  /** Receipts that predate this run (shared HTTP server): never evidence for this run's barriers. */
  skip: number,
): Promise<void> {
  const held = spec.scenarios.filter((s): s is Scenario & { barrier: string } => typeof s.barrier === 'string');
  if (held.length === 0) return;
  const controlEndpoint = spec.httpServer!.controlEndpoint;
  for (const scenario of held) {
    await waitForReceipt(controlEndpoint, scenario.id, client, signal, controlTimeoutMs, skip);
    if (signal.aborted) return;
    await release(controlEndpoint, scenario.barrier, { timeoutMs: controlTimeoutMs });
  }
}

/** Polls GET /receipts until one belongs to `id`; stops when aborted or the client has exited. */
async function waitForReceipt(
  controlEndpoint: string,
  id: string,
  client: LaunchedProcess,
  signal: AbortSignal,
  controlTimeoutMs: number,
  skip: number,
): Promise<void> {
  for (;;) {
    if (signal.aborted || client.exit) return;
    const requests = await getReceipts(controlEndpoint, { timeoutMs: controlTimeoutMs });
    if (requests.slice(skip).some((r) => receiptScenarioId(r) === id)) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 25);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
  }
}
