// The reference adapter's lifecycle server (receiver): replays a lifecycle scenario file's scripted
// responses with held, released intercepts, records receiver-origin receipts, accepts hooks/observe
// notifications and raw content uploads, and answers the lifecycle control endpoints (README.md,
// LIFECYCLE-RULES §3).
//
//   node --import tsx lifecycle-server.ts --config /abs/server-config.json
//
// Listeners, all on 127.0.0.1 port 0: event (HTTP transport only; event auth; HTTPS under mtls),
// control (plain HTTP, unauthenticated), upload (plain HTTP, the independent `uploadAuth.token`).
// The readiness file {endpoint, controlEndpoint, uploadEndpoint, pid} is written atomically once all
// of them listen. Exit codes: 0 after /shutdown, SIGTERM/SIGINT or (stdio) end of stdin; 1 on an
// unexpected failure or an invalid observation line over stdio; 2 on a bad config (including an
// unknown or unimplemented `suite` and a bad `auth`) or scenario file; 3 when the auth mode does not
// apply to the transport (stdio with any mode but none).

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { AuthConfigError, prepareServerAuth, type ServerAuth } from './auth.ts';
import { writeJsonAtomic } from './lib/atomic-write.ts';
import { Barriers } from './lib/barriers.ts';
import { AdapterConfigError, configPathFromArgs } from './lib/config.ts';
import { createLog, errorText, keepStdoutForProtocol } from './lib/log.ts';
import { DEFAULT_SCHEMA_DIR } from './lib/paths.ts';
import { newAuthStats } from './lib/request-auth.ts';
import { loadLifecycleServerConfig, type LifecycleServerConfig } from './lib/lifecycle/config.ts';
import { ContentStore, scopeOfCredential } from './lib/lifecycle/content-store.ts';
import { createLifecycleControlServer } from './lib/lifecycle/control-server.ts';
import { createLifecycleEventServer } from './lib/lifecycle/event-http-binding.ts';
import { ReceiptLog } from './lib/lifecycle/receipt-log.ts';
import { LifecycleReceiver } from './lib/lifecycle/receiver.ts';
import { ScriptedResponses } from './lib/lifecycle/scripted-responses.ts';
import { serveLifecycleStdio, type StdioLines } from './lib/lifecycle/stdio-binding.ts';
import { createUploadReceiver, UPLOAD_PATH } from './lib/lifecycle/upload-receiver.ts';
import { loadLifecycleScenarioFileSync } from '../../harness/lifecycle/load-lifecycle-scenarios.ts';
import type { LifecycleScenario } from '../../harness/lifecycle/scenario-types.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';

/** Bound on holding one intercept reply, and on each control wait. */
const HOLD_WATCHDOG_MS = 60_000;
const WAIT_WATCHDOG_MS = 30_000;
/** How long shutdown may take before the process exits regardless. */
const SHUTDOWN_GRACE_MS = 2_000;

const log = createLog('lifecycle-server');
keepStdoutForProtocol();

function fail(code: number, message: string): never {
  log.error(message);
  process.exit(code);
}

function readConfig(): LifecycleServerConfig {
  try {
    return loadLifecycleServerConfig(configPathFromArgs(process.argv.slice(2)));
  } catch (error) {
    if (error instanceof AdapterConfigError) fail(2, `bad config: ${error.message}`);
    throw error;
  }
}

function prepareAuth(config: LifecycleServerConfig): ServerAuth {
  try {
    const plan = prepareServerAuth(config.transport, config.auth);
    if (plan.kind !== 'supported') fail(3, `refusing to start: ${plan.reason}`);
    return plan.auth;
  } catch (error) {
    if (error instanceof AuthConfigError) fail(2, `bad config: ${error.message}`);
    throw error;
  }
}

function listen(server: Server, scheme: 'http' | 'https' = 'http'): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      resolve(`${scheme}://127.0.0.1:${port}`);
    });
  });
}

async function main(): Promise<void> {
  const config = readConfig();
  const auth = prepareAuth(config);
  let rows: LifecycleScenario[];
  try {
    rows = loadLifecycleScenarioFileSync(config.scenarioFile).scenarios;
  } catch (error) {
    fail(2, `bad scenario file: ${errorText(error)}`);
  }
  const validators = loadValidators(config.schemaDir ?? DEFAULT_SCHEMA_DIR);
  const script = new ScriptedResponses(rows);
  for (const id of script.duplicateIds) log.error(`request id ${id} appears in more than one row; the first row's responses are used`);

  const receipts = new ReceiptLog();
  const releases = new Barriers();
  const content = new ContentStore();
  const receiver = new LifecycleReceiver({
    script,
    receipts,
    releases,
    content,
    contentScope: scopeOfCredential(config.uploadAuth.token),
    validators,
    holdWatchdogMs: HOLD_WATCHDOG_MS,
    log,
  });

  const servers: Server[] = [];
  let closing = false;
  const shutdown = (code: number, why: string): void => {
    if (closing) return;
    closing = true;
    log.info(`shutting down (${why})`);
    setTimeout(() => process.exit(code), SHUTDOWN_GRACE_MS).unref();
    releases.closeAll();
    receipts.close();
    for (const server of servers) {
      server.close();
      server.closeAllConnections();
    }
    // Let pending stdout writes (stdio replies) drain before exiting.
    process.stdout.write('', () => process.exit(code));
  };
  process.on('SIGTERM', () => shutdown(0, 'SIGTERM'));
  process.on('SIGINT', () => shutdown(0, 'SIGINT'));

  let stdio: StdioLines | undefined;
  if (config.transport === 'stdio') {
    process.stdout.on('error', (error) => shutdown(1, `stdout failed (${errorText(error)})`));
    stdio = serveLifecycleStdio(receiver, process.stdin, process.stdout, log, {
      onEnd: () => shutdown(0, 'end of stdin'),
      onFatal: (reason) => shutdown(1, `fatal: ${reason}`),
    });
  }
  const emitLine = stdio?.writeLine;

  const control = createLifecycleControlServer({
    receipts,
    releases,
    waitWatchdogMs: WAIT_WATCHDOG_MS,
    emit: emitLine === undefined ? undefined : (frame) => emitLine(JSON.stringify(frame)),
    checkEmitted: (frame) => {
      const check = validators.interceptResponse(frame);
      return check.valid ? undefined : check.errors[0];
    },
    log,
    shutdown: () => shutdown(0, 'POST /shutdown'),
  });
  servers.push(control);
  const upload = createUploadReceiver({ content, receipts, token: config.uploadAuth.token, log });
  servers.push(upload);

  const controlEndpoint = await listen(control);
  const uploadEndpoint = `${await listen(upload)}${UPLOAD_PATH}`;
  let endpoint: string | null = null;
  if (config.transport === 'http') {
    const events = createLifecycleEventServer(receiver, auth, newAuthStats(), log);
    servers.push(events.server);
    endpoint = await listen(events.server, events.scheme);
  }

  await writeJsonAtomic(config.readinessFile, { endpoint, controlEndpoint, uploadEndpoint, pid: process.pid });
  log.info(`ready over ${config.transport} ${Math.round(performance.now())} ms after process start (${rows.length} rows)`);
}

main().catch((error: unknown) => {
  log.error(`failed: ${errorText(error)}`);
  process.exit(1);
});
