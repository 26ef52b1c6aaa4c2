// The reference adapter's lifecycle server (receiver): replays a lifecycle scenario file's scripted
// responses with held, released intercepts, records receiver-origin receipts, accepts hooks/observe
// notifications and raw content uploads, and answers the lifecycle control endpoints (README.md,
// LIFECYCLE-RULES §3). With `suite: "catalogue"` it is the catalogue receiver instead: discovery,
// observations judged by one source-local lineage tracker, the same listeners and readiness
// (catalogue/serve-catalogue.ts, CATALOGUE-RULES §4).
//
//   node launch.mjs lifecycle-server.ts --config /abs/server-config.json   (or: node --import tsx ...)
//
// Listeners, all on 127.0.0.1 port 0: event (HTTP transport only; event auth; HTTPS under mtls),
// control (plain HTTP, unauthenticated), upload (plain HTTP, the independent `uploadAuth.token`).
// The readiness file {endpoint, controlEndpoint, uploadEndpoint, pid} is written atomically once all
// of them listen. Exit codes: 0 after /shutdown, SIGTERM/SIGINT or (stdio) end of stdin; 1 on an
// unexpected failure or (lifecycle) an invalid observation line over stdio; 2 on a bad config
// (including an unknown `suite` and a bad `auth`) or scenario file; 3 when the auth mode does not
// apply to the transport (stdio with any mode but none).

import type { Server } from 'node:http';

import { Barriers } from './lib/barriers.ts';
import { createLog, errorText, keepStdoutForProtocol } from './lib/log.ts';
import { DEFAULT_SCHEMA_DIR } from './lib/paths.ts';
import { exitWith, loadConfigOrExit, serverAuthOrExit, serverShutdown } from './lib/process-main.ts';
import { newAuthStats } from './lib/request-auth.ts';
import { loadLifecycleServerConfig } from './lifecycle/config.ts';
import { ContentStore, scopeOfCredential } from './lifecycle/content-store.ts';
import { createLifecycleControlServer } from './lifecycle/control-server.ts';
import { createLifecycleEventServer } from './lifecycle/event-http-binding.ts';
import { ReceiptLog } from './lifecycle/receipt-log.ts';
import { LifecycleReceiver } from './lifecycle/receiver.ts';
import { ScriptedResponses } from './lifecycle/scripted-responses.ts';
import { serveLifecycleStdio, type StdioLines } from './lifecycle/stdio-binding.ts';
import { listenAndAnnounce } from './lifecycle/receiver-listeners.ts';
import { createUploadReceiver } from './lifecycle/upload-receiver.ts';
import { serveCatalogue } from './catalogue/serve-catalogue.ts';
import { loadLifecycleScenarioFileSync } from '../../harness/families/lifecycle/load-lifecycle-scenarios.ts';
import type { LifecycleScenario } from '../../harness/lifecycle-adapters/scenario-types.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';

/** Bound on holding one intercept reply, and on each control wait. */
const HOLD_WATCHDOG_MS = 60_000;
const WAIT_WATCHDOG_MS = 30_000;

const log = createLog('lifecycle-server');
keepStdoutForProtocol();

async function main(): Promise<void> {
  const config = loadConfigOrExit(log, loadLifecycleServerConfig);
  const auth = serverAuthOrExit(log, config.transport, config.auth);
  if (config.suite === 'catalogue') return serveCatalogue(config, auth, WAIT_WATCHDOG_MS, log);
  let rows: LifecycleScenario[];
  try {
    rows = loadLifecycleScenarioFileSync(config.scenarioFile).scenarios;
  } catch (error) {
    exitWith(log, 2, `bad scenario file: ${errorText(error)}`);
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
  const shutdown = serverShutdown(log, servers, () => {
    releases.closeAll();
    receipts.close();
  });

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
  const upload = createUploadReceiver({ content, receipts, token: config.uploadAuth.token, log });
  const events = config.transport === 'http' ? () => createLifecycleEventServer(receiver, auth, newAuthStats(), log) : undefined;
  await listenAndAnnounce({ control, upload, events }, servers, config.readinessFile);
  log.info(`ready over ${config.transport} ${Math.round(performance.now())} ms after process start (${rows.length} rows)`);
}

main().catch((error: unknown) => {
  log.error(`failed: ${errorText(error)}`);
  process.exit(1);
});
