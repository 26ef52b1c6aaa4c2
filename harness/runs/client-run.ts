// One client run: a client adapter runs the selected scenarios against a server adapter over one
// transport and auth mode. Produces the client's report and the server's receipts for this run.
//
// Never throws for adapter misbehaviour: every problem becomes a RunFailure with a fixed stage label
// (spawn / startup / run / report / receipts) and a message in our own words that points at the
// captured log file instead of quoting adapter output. Throws only for harness bugs (bad arguments).
//
// HTTP: the server is already running (spec.httpServer). Receipts = GET /receipts after the run minus
// before it, so the caller must serialise runs per server: wrap the call in withServerLock(handle, …).
// Stdio: the client spawns the server through harness/runs/stdio-relay.mjs, which snapshots receipts
// to a file before forwarding each scenario's response; the last snapshot is this run's receipts. The
// relay also records every response it forwarded, paired with the request it answers (by order): the
// run's `responses`, so verification can tell a scripted response from one the server made up.

import { mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { parseJsonText } from '../protocol/json-text.ts';
import { receipts as getReceipts, receiptScenarioId, release } from '../adapters/control-client.ts';
import { writePrivateJson } from '../adapters/private-json.ts';
import { launch, SpawnError, type LaunchedProcess, type ProcessExit } from '../adapters/launch.ts';
import { validateReadiness, waitForReadiness } from '../adapters/readiness.ts';
import { groupAlive, killGroup, killPid, waitGroupGone } from '../adapters/supervise.ts';
import { serializeScenarioFile } from '../scenarios/load-scenarios.ts';
import type { Scenario } from '../scenarios/types.ts';
import type { ClientRunOutcome, ClientRunSpec, RunFailure, RunStage } from './types.ts';

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
  receiptsFile: string;
  responsesFile: string;
  pidFile: string;
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 40) || 'adapter';
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
    receiptsFile: at('receipts.json'),
    responsesFile: at('responses.ndjson'),
    pidFile: at('relay-pids.json'),
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
    mkdtempSync(path.join(opts.workDir, `run-${safeName(spec.server.name)}-${safeName(spec.client.name)}-${transport}-${auth}-`)),
  );

  const failures: RunFailure[] = [];
  const fail = (stage: RunStage, kind: string, message: string): void => {
    failures.push({ stage, kind, message: `${stage}: ${message}` });
  };
  const logFiles = [files.clientLog];
  const who = `client "${spec.client.name}" against server "${spec.server.name}" (${transport}/${auth})`;

  const outcome = (extra: Partial<ClientRunOutcome>): ClientRunOutcome => ({
    spec: { transport, auth, server: spec.server.name, client: spec.client.name },
    report: undefined,
    receipts: undefined,
    exitCode: null,
    signal: null,
    timedOut: false,
    failures,
    logFiles,
    durationMs: Date.now() - started,
    ...extra,
  });

  // ----- files -----------------------------------------------------------------------------------
  writeFileSync(files.scenarioFile, serializeScenarioFile({ version: 1, scenarios: spec.scenarios }));
  const clientConfig: Record<string, unknown> = {
    transport,
    scenarioFile: files.scenarioFile,
    reportFile: files.reportFile,
    auth: { ...opts.authSettings, mode: auth },
    schemaDir: spec.schemasDir,
  };
  if (transport === 'http') {
    clientConfig.endpoint = spec.httpServer!.endpoint;
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
    writePrivateJson(files.relaySpec, {
      command: spec.server.manifest.server,
      cwd: spec.server.cwd,
      serverLogFile: files.serverLog,
      relayLogFile: files.relayLog,
      receiptsFile: files.receiptsFile,
      responsesFile: files.responsesFile,
      pidFile: files.pidFile,
      expectedIds: spec.scenarios.map((s) => s.id),
      readinessTimeoutMs: spec.watchdogs.startupMs,
      controlTimeoutMs,
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

  // ----- launch ------------------------------------------------------------------------------------
  let client: LaunchedProcess;
  try {
    client = await launch({
      command: [...spec.client.manifest.client, '--config', files.clientConfig],
      cwd: spec.client.cwd,
      stdoutFile: files.clientLog,
      stderrFile: files.clientLog,
      graceMs,
    });
  } catch (error) {
    if (!(error instanceof SpawnError)) throw error;
    fail('spawn', error.code, `${who}: ${error.message}; see ${files.clientLog}`);
    return outcome({});
  }

  // ----- run under the watchdog, with barriers -------------------------------------------------------
  let timedOut = false;
  let exit: ProcessExit;
  const barrierAbort = new AbortController();
  const barriers = handleBarriers(spec, files, client, barrierAbort.signal, controlTimeoutMs, before?.length ?? 0).catch((error: unknown) => {
    // Once the client has exited (or the watchdog fired) the barrier wait is moot, not a failure.
    if (!barrierAbort.signal.aborted && !client.exit) fail('run', 'barrier', `${who}: ${(error as Error).message}`);
  });
  let watchdog: NodeJS.Timeout | undefined;
  try {
    const result = await Promise.race([
      client.exited,
      new Promise<'timeout'>((resolve) => {
        watchdog = setTimeout(() => resolve('timeout'), spec.watchdogs.runMs);
      }),
    ]);
    if (result === 'timeout') {
      timedOut = true;
      // A hung stdio server answers no more responses, so the relay took no snapshot of what it did
      // receive: take one now, while the server is still alive (bounded), then end the tree.
      if (transport === 'stdio') await snapshotStdioReceipts(files, Math.min(controlTimeoutMs, 2000));
      await client.stop(graceMs);
      exit = client.exit ?? (await client.exited);
      fail('run', 'timeout', `${who}: run watchdog fired after ${spec.watchdogs.runMs} ms; the client's process tree was killed; see ${files.clientLog}`);
    } else {
      exit = result;
    }
  } finally {
    clearTimeout(watchdog);
    barrierAbort.abort();
    await client.stop(graceMs); // no-op when already exited; ensures the tree is gone on any path
    await barriers;
    if (transport === 'stdio') {
      const spawnError = await cleanupRelay(files, graceMs);
      if (spawnError !== undefined) {
        fail('spawn', spawnError, `server "${spec.server.name}": the stdio relay could not start its command (${spawnError}); see ${files.relayLog}`);
      }
    }
  }

  if (!timedOut && exit.signal !== null) {
    fail('run', 'signal', `${who}: the client was killed by ${exit.signal}; see ${files.clientLog}`);
  }

  // ----- report -------------------------------------------------------------------------------------
  const report = readJsonFile(files.reportFile, (kind, message) => fail('report', kind, `${who}: ${message}; see ${files.clientLog}`), 'report');

  // ----- receipts --------------------------------------------------------------------------------------
  let receipts: unknown[] | undefined;
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
  } else {
    const snapshot = failures.some((f) => f.stage === 'spawn') ? undefined : readJsonFile(
      files.receiptsFile,
      (kind, message) => fail('receipts', kind, `server "${spec.server.name}" via the stdio relay: ${message}; see ${files.relayLog} and ${files.serverLog}`),
      'receipts snapshot',
    );
    if (snapshot !== undefined) {
      const value = snapshot as { requests?: unknown; error?: unknown; stage?: unknown; kind?: unknown };
      if (Array.isArray(value.requests)) receipts = value.requests;
      else if (typeof value.error === 'string') {
        const kind = typeof value.kind === 'string' && /^[a-z-]+$/.test(value.kind) ? value.kind : 'relay';
        fail(value.stage === 'startup' ? 'startup' : 'receipts', kind, `server "${spec.server.name}" via the stdio relay: ${value.error}; see ${files.relayLog} and ${files.serverLog}`);
      } else {
        fail('receipts', 'invalid', `server "${spec.server.name}": receipts snapshot ${files.receiptsFile}: field "requests": expected an array`);
      }
    }
  }

  // ----- forwarded responses (stdio) ------------------------------------------------------------------
  let responses: unknown[] | undefined;
  if (transport === 'stdio' && !failures.some((f) => f.stage === 'spawn')) {
    responses = readResponseRecords(files.responsesFile, (kind, message) =>
      fail('receipts', kind, `server "${spec.server.name}" via the stdio relay: ${message}; see ${files.relayLog}`),
    );
  }

  return outcome({ report, receipts, exitCode: exit.code, signal: exit.signal, timedOut, ...(responses === undefined ? {} : { responses }) });
}

/**
 * Reads the relay's NDJSON response record (see stdio-relay.mjs). A last line without its newline
 * (a relay killed mid-write) is ignored; a missing file or a garbled complete line is reported
 * through `onFail` and yields undefined.
 */
function readResponseRecords(file: string, onFail: (kind: string, message: string) => void): unknown[] | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    onFail('responses', `response record ${file} ${code === 'ENOENT' ? 'was not written' : `cannot be read (${code})`}`);
    return undefined;
  }
  const lines = text.split('\n');
  lines.pop(); // '' after the last newline, or an incomplete last record
  const records: unknown[] = [];
  for (const [index, line] of lines.entries()) {
    const parsed = parseJsonText(line);
    if (!parsed.ok) {
      onFail('responses', `response record ${file} line ${index + 1} is not valid JSON ${parsed.where}`);
      return undefined;
    }
    records.push(parsed.value);
  }
  return records;
}

/** Reads a JSON file; reports "missing" / "invalid-json" through `onFail` and returns undefined. */
function readJsonFile(file: string, onFail: (kind: string, message: string) => void, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    onFail(code === 'ENOENT' ? 'missing' : 'unreadable', `${what} file ${file} ${code === 'ENOENT' ? 'was not written' : `cannot be read (${code})`}`);
    return undefined;
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    onFail('invalid-json', `${what} file ${file} is not valid JSON ${parsed.where}`);
    return undefined;
  }
  return parsed.value;
}

/**
 * For every selected scenario with a barrier (file order): wait until the server's receipts contain
 * that scenario's request, then POST /release {barrier}. Bounded by the run watchdog (aborted with it)
 * and by the client's exit.
 */
async function handleBarriers(
  spec: ClientRunSpec,
  files: RunFiles,
  client: LaunchedProcess,
  signal: AbortSignal,
  controlTimeoutMs: number,
  /** Receipts that predate this run (shared HTTP server): never evidence for this run's barriers. */
  skip: number,
): Promise<void> {
  const held = spec.scenarios.filter((s): s is Scenario & { barrier: string } => typeof s.barrier === 'string');
  if (held.length === 0) return;

  let controlEndpoint: string;
  if (spec.transport === 'http') {
    controlEndpoint = spec.httpServer!.controlEndpoint;
  } else {
    const readiness = await waitForReadiness(files.readinessFile, {
      timeoutMs: spec.watchdogs.startupMs,
      exited: client.exited,
      logFile: files.serverLog,
    });
    controlEndpoint = readiness.controlEndpoint;
  }
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

/** Writes a /receipts snapshot of the relay's server to the receipts file (best effort, bounded). */
async function snapshotStdioReceipts(files: RunFiles, timeoutMs: number): Promise<void> {
  let controlEndpoint: string;
  try {
    controlEndpoint = validateReadiness(JSON.parse(readFileSync(files.readinessFile, 'utf8')), files.readinessFile).controlEndpoint;
  } catch {
    return; // not ready (yet): nothing to ask
  }
  try {
    const requests = await getReceipts(controlEndpoint, { timeoutMs });
    const tmp = `${files.receiptsFile}.harness.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ requests, reason: 'run watchdog' })}\n`, { mode: 0o600 });
    renameSync(tmp, files.receiptsFile);
  } catch {
    // the relay's own snapshot (if any) stands
  }
}

/**
 * Kills the stdio server group the relay registered (and the relay), bounded. Returns the relay's
 * spawn error code when it could not start the server command.
 */
async function cleanupRelay(files: RunFiles, graceMs: number): Promise<string | undefined> {
  let pids: { relayPid?: unknown; serverPid?: unknown; spawnError?: unknown };
  try {
    pids = JSON.parse(readFileSync(files.pidFile, 'utf8')) as typeof pids;
  } catch {
    return undefined; // the relay never got as far as starting the server
  }
  if (typeof pids.spawnError === 'string') return pids.spawnError;
  const serverPid = typeof pids.serverPid === 'number' && pids.serverPid > 0 ? pids.serverPid : undefined;
  const relayPid = typeof pids.relayPid === 'number' && pids.relayPid > 0 ? pids.relayPid : undefined;
  if (serverPid !== undefined && groupAlive(serverPid)) {
    if (!(await waitGroupGone(serverPid, graceMs))) {
      killGroup(serverPid, 'SIGTERM');
      if (!(await waitGroupGone(serverPid, graceMs))) killGroup(serverPid, 'SIGKILL');
      await waitGroupGone(serverPid, 1000);
    }
  }
  // The relay normally died with the client's group; only kill a pid that is still our relay.
  if (relayPid !== undefined && isRelayProcess(relayPid)) killPid(relayPid, 'SIGKILL');
  return undefined;
}

function isRelayProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(RELAY_PATH);
  } catch {
    return false; // gone, or no /proc: never signal a pid we cannot identify
  }
}
