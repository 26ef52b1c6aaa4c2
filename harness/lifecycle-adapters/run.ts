// One lifecycle (or catalogue) group run: a client adapter's `lifecycleClient` runs the selected rows
// against a server adapter's `lifecycleServer` over one transport and auth mode (LIFECYCLE-RULES §1,
// §2, §10). Produces the client's report and the receiver's receipt log for the verifier.
//
// HTTP: a fresh server per run — a lifecycle receiver keeps sticky releases, `/wait` counts and
// immutable uploads across requests, so a server shared between runs would answer a later run from
// an earlier one's state. The harness starts it (server config with the independent upload
// credential), waits for `{endpoint, controlEndpoint, uploadEndpoint, pid}`, runs the client, reads
// `GET /receipts` (`{entries}`) and stops it. Stdio: the client spawns and reaps the server (writing
// `childPidFile` at once) and forwards the receipts in its report.
//
// Cleanup always runs (§10): the client's process group (supervised), the HTTP server, and the pids
// named in the child pid file and a stdio server's readiness file (registered-processes.ts). A child
// pid file missing after a stdio run, or either file malformed, is itself a failure of the run
// (`cleanup metadata ...`).
// Never throws for adapter misbehaviour (every problem is a RunFailure); throws for harness bugs.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { boundedJsonRequest, RequestFailure } from '../adapters/control-client.ts';
import { stopHttpServer, ServerStartError } from '../adapters/http-server-pool.ts';
import { lifecycleServerConfig, startLifecycleServer } from './lifecycle-server.ts';
import type { LaunchedProcess, ProcessExit } from '../adapters/launch.ts';
import { readJsonFile, runClientProcess } from '../runs/client-process.ts';
import { writePrivateJson } from '../adapters/private-json.ts';
import type { LoadedAdapter, ServerHandle } from '../adapters/types.ts';
import { UNAUTHORIZED_UPLOAD_TOKEN, UNAUTHORIZED_UPLOAD_TOKEN_ENV, UPLOAD_TOKEN, UPLOAD_TOKEN_ENV } from '../auth/constants.ts';
import type { AuthMode, Transport } from '../config/define-config.ts';
import { deriveContentSources } from './content-sources.ts';
import type { LifecycleScenario } from './scenario-types.ts';
import { parseJsonText } from '../protocol/json-text.ts';
import { reapRegisteredProcesses } from '../runs/registered-processes.ts';
import { failureList, processOutcome } from '../runs/run-outcome.ts';
import type { ClientProcessOutcome } from '../runs/types.ts';
import { adapterFolderPart } from '../adapters/file-name-part.ts';
import { readLogTail } from '../runs/log-tail.ts';
import { secretsOfAuthSettings } from '../runs/redact-secrets.ts';
import { describeRunDeath } from '../runs/run-death.ts';
import { partyOfFailure } from '../runs/verdicts.ts';

export type LifecycleSuite = 'lifecycle' | 'catalogue';

/**
 * A row of a family that runs through the lifecycle adapters: the client runs its `steps` (the
 * lifecycle step scripts of scenario-types.ts, or another family's steps such as the catalogue's).
 */
export interface ScriptScenario {
  id: string;
  steps: readonly object[];
}

export interface LifecycleRunSpec {
  suite: LifecycleSuite;
  server: LoadedAdapter;
  client: LoadedAdapter;
  transport: Transport;
  auth: AuthMode;
  /** Exactly the rows the client runs (selected and applicable to the transport), in file order. */
  rows: ScriptScenario[];
  /**
   * Replaces the client config's `upload` block wholesale (sender isolation: an independent upload
   * origin and no `auth`). Default: the independent upload credential's block (CLIENT_UPLOAD_CONFIG)
   * with the receiver's upload endpoint over HTTP.
   */
  upload?: Record<string, unknown>;
  /** The client config's `contentSources` (default: derived from lifecycle rows; none for the catalogue). */
  contentSources?: unknown[];
  schemasDir: string;
  watchdogs: { startupMs: number; runMs: number };
  /** The server config's `auth` for this mode (a stdio server always gets `{mode: "none"}`). */
  serverAuth: Record<string, unknown>;
  /** The client config's `auth` for this mode. */
  clientAuth: Record<string, unknown>;
}

export interface LifecycleRunOptions {
  /** Parent folder for this run's fresh directory. */
  workDir: string;
  /** Grace between SIGTERM and SIGKILL on cleanup. Default 2000 (§10). */
  graceMs?: number;
  /** Bound of each control call (receipts). Default 5000. */
  controlTimeoutMs?: number;
}

export interface LifecycleRunOutcome extends ClientProcessOutcome {
  /** The client's parsed report; undefined when missing or unparseable (a failure says why). */
  report: unknown;
  /** The receipt log `{entries}`: HTTP from the server, stdio from `report.receipts`; undefined when unavailable. */
  receipts: unknown;
  /** Whether the client process was started at all (not when the server failed to start, or the spawn failed). */
  clientStarted: boolean;
}

/** The client config's `upload` block (§2); `endpoint` is added over HTTP. */
export const CLIENT_UPLOAD_CONFIG = { auth: { type: 'bearer', tokenEnv: UPLOAD_TOKEN_ENV }, timeoutMs: 5000, maxBytes: 1_048_576 } as const;

export async function runLifecycleGroup(spec: LifecycleRunSpec, options: LifecycleRunOptions): Promise<LifecycleRunOutcome> {
  const started = Date.now();
  const graceMs = options.graceMs ?? 2000;
  const controlTimeoutMs = options.controlTimeoutMs ?? 5000;
  const { transport, server, client } = spec;
  const serverCommand = server.manifest.lifecycleServer;
  const clientCommand = client.manifest.lifecycleClient;
  if (!serverCommand || !clientCommand) throw new TypeError('runLifecycleGroup: both adapters need their lifecycle command (the planner marks such pairings unsupported)');

  mkdirSync(options.workDir, { recursive: true });
  const dir = mkdtempSync(path.join(options.workDir, `${spec.suite}-${adapterFolderPart(server.name)}-${adapterFolderPart(client.name)}-${transport}-${spec.auth}-`));
  const files = {
    scenarioFile: path.join(dir, 'scenarios.json'),
    serverConfig: path.join(dir, 'server-config.json'),
    clientConfig: path.join(dir, 'client-config.json'),
    reportFile: path.join(dir, 'report.json'),
    childPidFile: path.join(dir, 'child.json'),
    readinessFile: path.join(dir, 'ready.json'),
    clientLog: path.join(dir, 'client.log'),
    serverLog: path.join(dir, 'server.log'),
  };
  const { failures, fail } = failureList();
  const who = `${spec.suite} client "${client.name}" against server "${server.name}" (${transport}/${spec.auth})`;
  const logFiles = [files.clientLog, files.serverLog];
  const outcome = (extra: Partial<LifecycleRunOutcome>): LifecycleRunOutcome => ({
    report: undefined,
    receipts: undefined,
    clientStarted: false,
    ...processOutcome(started, failures, logFiles),
    ...extra,
  });

  const serverConfig = lifecycleServerConfig(spec.suite, spec.schemasDir);

  // ----- HTTP: the run's own server -----------------------------------------------------------------
  let httpServer: ServerHandle | undefined;
  if (transport === 'http') {
    try {
      httpServer = await startLifecycleServer({
        adapter: server,
        suite: spec.suite,
        auth: spec.auth,
        authSettings: { ...spec.serverAuth },
        // The scenario file the server answers from is the run's own (upload endpoints merged in
        // below only concern the client; the server indexes requests and responses by id).
        scenarioFile: writeScenarioFile(files.scenarioFile, spec.rows, undefined),
        schemaDir: spec.schemasDir,
        workDir: dir,
        startupMs: spec.watchdogs.startupMs,
        graceMs,
      });
    } catch (error) {
      if (!(error instanceof ServerStartError)) throw error;
      failures.push({ stage: error.stage, kind: error.kind, message: error.message, party: 'server' });
      return outcome({ logFiles: [error.logFile] });
    }
    logFiles[1] = httpServer.logFile;
    writeScenarioFile(files.scenarioFile, spec.rows, httpServer.uploadEndpoint);
  } else {
    writeScenarioFile(files.scenarioFile, spec.rows, undefined);
    writePrivateJson(files.serverConfig, {
      ...serverConfig,
      transport: 'stdio',
      readinessFile: files.readinessFile,
      scenarioFile: files.scenarioFile,
      auth: { mode: 'none' },
    });
  }

  // ----- the client ---------------------------------------------------------------------------------
  let contentSources: unknown[];
  try {
    contentSources = spec.contentSources ?? (spec.suite === 'lifecycle' ? deriveContentSources(spec.rows as LifecycleScenario[]) : []);
  } catch (error) {
    throw new Error(`harness bug: content sources of already-linted rows: ${(error as Error).message}`);
  }
  writePrivateJson(files.clientConfig, {
    suite: spec.suite,
    transport,
    scenarioFile: files.scenarioFile,
    reportFile: files.reportFile,
    auth: { ...spec.clientAuth, mode: spec.auth },
    childPidFile: files.childPidFile,
    upload: spec.upload ?? { ...CLIENT_UPLOAD_CONFIG, ...(httpServer?.uploadEndpoint ? { endpoint: httpServer.uploadEndpoint } : {}) },
    contentSources,
    schemaDir: spec.schemasDir,
    ...(httpServer
      ? { endpoint: httpServer.endpoint, controlEndpoint: httpServer.controlEndpoint }
      : { serverCommand, serverCwd: server.cwd, serverConfig: files.serverConfig }),
  });

  let clientProcess: LaunchedProcess | undefined;
  let exit: ProcessExit = { code: null, signal: null };
  let timedOut = false;
  try {
    const run = await runClientProcess({
      command: [...clientCommand, '--config', files.clientConfig],
      cwd: client.cwd,
      env: { [UPLOAD_TOKEN_ENV]: UPLOAD_TOKEN, [UNAUTHORIZED_UPLOAD_TOKEN_ENV]: UNAUTHORIZED_UPLOAD_TOKEN },
      logFile: files.clientLog,
      runMs: spec.watchdogs.runMs,
      graceMs,
    });
    if (!run.started) {
      fail('spawn', run.spawnError.code, `${who}: ${run.spawnError.message}; see ${files.clientLog}`, partyOfFailure('spawn', run.spawnError.code));
      return outcome({});
    }
    ({ process: clientProcess, exit, timedOut } = run);
    if (timedOut) fail('run', 'timeout', `${who}: run watchdog fired after ${spec.watchdogs.runMs} ms; the client's process tree was killed; see ${files.clientLog}`, 'client or server');
    if (!timedOut && exit.signal !== null) fail('run', 'signal', `${who}: the client was killed by ${exit.signal}; see ${files.clientLog}`, 'client');

    const reportFailure = failures.length;
    const report = readJsonFile(files.reportFile, (kind, message) => fail('report', kind, `${who}: ${message}; see ${files.clientLog}`, 'client'), 'report');
    let receipts: unknown;
    if (httpServer) {
      receipts = await fetchReceiptLog(httpServer.controlEndpoint, controlTimeoutMs).catch((error: Error) => {
        fail('receipts', 'fetch', `server "${server.name}": GET /receipts: ${error.message}; see the server log ${httpServer!.logFile}`, 'server');
        return undefined;
      });
    } else if (isObject(report)) {
      receipts = report.receipts;
    }
    const noReport = failures[reportFailure];
    if (report === undefined && noReport !== undefined) noReport.message += runDeathClue(spec, receipts, files.clientLog);
    return outcome({ report, receipts, clientStarted: true, exitCode: exit.code, signal: exit.signal, timedOut });
  } finally {
    await clientProcess?.stop(graceMs);
    const clientLeftovers = clientProcess ? (clientProcess.exit ?? (await clientProcess.exited)).leftovers ?? 0 : 0;
    if (clientLeftovers > 0) {
      // Over stdio the client's descendants include the server it spawned and whatever that started:
      // an escapee there cannot be told apart.
      const left = transport === 'stdio' ? 'the client (or the stdio server it spawned)' : 'the client';
      fail('run', 'leftover-process', `${who}: ${left} left ${clientLeftovers} process(es) running after the client exited (outside its process group); the harness killed them`, transport === 'stdio' ? 'client or server' : 'client');
    }
    if (httpServer) {
      const { leftovers } = await stopHttpServer(httpServer, { graceMs, keepWorkDir: true });
      if (leftovers > 0) fail('run', 'leftover-process', `server "${server.name}" left ${leftovers} process(es) running after it shut down; the harness killed them; see ${httpServer.logFile}`, 'server');
    }
    for (const problem of await reapRegisteredProcesses(files, { childPidFileRequired: transport === 'stdio' && clientProcess !== undefined })) {
      fail('run', 'cleanup', problem.message, problem.party);
    }
  }
}

/**
 * Where a lifecycle client that left no readable report was when it died: over HTTP the receiver's
 * log says which message reached it last; over stdio the log travels in the report, so only the
 * client's output can tell.
 */
function runDeathClue(spec: LifecycleRunSpec, receipts: unknown, clientLog: string): string {
  const entries = isObject(receipts) && Array.isArray(receipts.entries) ? receipts.entries.filter(isObject) : undefined;
  const withMessages = entries?.filter((entry) => entry.message !== undefined);
  const idOf = (entry: Record<string, unknown>): string => JSON.stringify(entry.id ?? entry.eventId ?? null);
  return describeRunDeath({
    rows: spec.rows,
    seen: withMessages === undefined ? undefined : { messages: withMessages.map((entry) => entry.message), source: `server "${spec.server.name}"` },
    noEvidence:
      spec.transport === 'stdio'
        ? 'over stdio the receiver\'s receipt log travels in the report, so the harness saw no request'
        : `server "${spec.server.name}" gave no readable receipt log`,
    // A `received` entry is answered by a later `replied` of the same id; notifications are never answered.
    ...(entries === undefined
      ? {}
      : {
          answered: (message: unknown) => {
            const entry = withMessages!.findLast((e) => e.message === message);
            if (entry === undefined || entry.kind !== 'received') return undefined;
            return entries.slice(entries.indexOf(entry) + 1).some((e) => e.kind === 'replied' && idOf(e) === idOf(entry));
          },
        }),
    logTail: readLogTail(clientLog, { secrets: [...secretsOfAuthSettings(spec.clientAuth), UPLOAD_TOKEN, UNAUTHORIZED_UPLOAD_TOKEN] }),
    logFile: clientLog,
  });
}

/**
 * The rows as the client gets them: over HTTP each upload step with its own `upload` object gets the
 * receiver's `endpoint` merged in, the step's keys winning (§2); nothing else is rewritten.
 */
function writeScenarioFile(file: string, rows: ScriptScenario[], uploadEndpoint: string | undefined): string {
  const scenarios = uploadEndpoint === undefined ? rows : rows.map((row) => withUploadEndpoint(row, uploadEndpoint));
  writeFileSync(file, `${JSON.stringify({ version: 1, scenarios }, null, 2)}\n`, { mode: 0o600 });
  return file;
}

function withUploadEndpoint(row: ScriptScenario, endpoint: string): ScriptScenario {
  const steps = (row.steps as Array<{ op: string; upload?: object }>).map((step) => (step.op === 'upload' && step.upload !== undefined ? { ...step, upload: { endpoint, ...step.upload } } : step));
  return { ...row, steps };
}

/**
 * The receiver's receipt log, as it answers it (`{entries:[...]}` — the verifier checks the shape).
 * Not `receipts()` of the control client: a lifecycle log is `{entries}`, not `{requests}`, only a
 * 200 counts, and the failure wording is this run's.
 */
async function fetchReceiptLog(controlEndpoint: string, timeoutMs: number): Promise<unknown> {
  const url = new URL('receipts', controlEndpoint.endsWith('/') ? controlEndpoint : `${controlEndpoint}/`);
  let response;
  try {
    response = await boundedJsonRequest(url, 'GET', undefined, timeoutMs);
  } catch (error) {
    if (!(error instanceof RequestFailure)) throw error;
    throw new Error(error.kind === 'timeout' ? `no answer within ${timeoutMs} ms` : `unreachable (${error.code})`);
  }
  if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
  const parsed = parseJsonText(response.text);
  if (!parsed.ok) throw new Error(`the body is not JSON ${parsed.where}`);
  return parsed.value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

