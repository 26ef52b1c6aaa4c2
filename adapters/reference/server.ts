// The reference adapter's server half: serves a central scenario file's scripted responses over the
// AHP HTTP or stdio binding, with a separate control HTTP server (see README.md).
//
//   node launch.mjs server.ts --config /abs/server-config.json   (or: node --import tsx server.ts ...)
//
// Exit codes: 0 after /shutdown, SIGTERM/SIGINT or (stdio) end of stdin; 1 on an unexpected
// failure; 2 on a bad config (including a bad `auth` object) or scenario file; 3 when the auth mode
// does not apply to the transport (stdio with any mode but none).

import type { Server } from 'node:http';

import { Barriers } from './lib/barriers.ts';
import { writeJsonAtomic } from './lib/atomic-write.ts';
import { loadServerConfig } from './lib/config.ts';
import { createControlServer } from './lib/control-server.ts';
import { dispatchText, type ServerState } from './lib/dispatch.ts';
import { createAhpHttpServer } from './lib/http-binding.ts';
import { newAuthStats } from './lib/request-auth.ts';
import { errorEnvelope, INVALID_REQUEST } from './lib/jsonrpc.ts';
import { createLog, errorText, keepStdoutForProtocol } from './lib/log.ts';
import { readLines } from './lib/ndjson.ts';
import { DEFAULT_SCHEMA_DIR } from './lib/paths.ts';
import { exitWith, listen, loadConfigOrExit, serverAuthOrExit, serverShutdown } from './lib/process-main.ts';
import type { Scenario } from '../../harness/scenarios/types.ts';
import { loadScenarioFileSync } from '../../harness/scenarios/load-scenarios.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';

const BARRIER_WATCHDOG_MS = 60_000;

const log = createLog('server');
keepStdoutForProtocol();

async function main(): Promise<void> {
  const config = loadConfigOrExit(log, loadServerConfig);

  const auth = serverAuthOrExit(log, config.transport, config.auth);
  const authStats = newAuthStats();

  let scenarios: Map<string, Scenario>;
  try {
    scenarios = new Map(loadScenarioFileSync(config.scenarioFile).scenarios.map((row) => [row.id, row]));
  } catch (error) {
    exitWith(log, 2, `bad scenario file: ${errorText(error)}`);
  }
  const validators = loadValidators(config.schemaDir ?? DEFAULT_SCHEMA_DIR);

  const state: ServerState = {
    scenarios,
    validators,
    receipts: [],
    barriers: new Barriers(),
    authMode: config.auth.mode,
    barrierWatchdogMs: BARRIER_WATCHDOG_MS,
    log,
  };

  const servers: Server[] = [];
  const shutdown = serverShutdown(log, servers, () => state.barriers.closeAll());

  const control = createControlServer({
    receipts: state.receipts,
    barriers: state.barriers,
    authStats,
    log,
    shutdown: () => shutdown(0, 'POST /shutdown'),
  });
  servers.push(control);
  const controlEndpoint = await listen(control);

  let endpoint: string | null = null;
  if (config.transport === 'http') {
    const ahp = createAhpHttpServer(state, auth, authStats);
    servers.push(ahp.server);
    endpoint = await listen(ahp.server, ahp.scheme);
  } else {
    serveStdio(state, () => shutdown(0, 'end of stdin'));
  }

  await writeJsonAtomic(config.readinessFile, { endpoint, controlEndpoint, pid: process.pid });
  // performance.now() counts from process start, so this includes node's startup and loading every
  // module: from launch.mjs's cached bundle (rebuilt first when a source changed), or through tsx's
  // loader when started with --import tsx.
  log.info(`ready over ${config.transport} ${Math.round(performance.now())} ms after process start (${scenarios.size} scenarios)`);
}

/** NDJSON over stdin/stdout: one compact JSON-RPC envelope per line in, one per line out. */
function serveStdio(state: ServerState, onEnd: () => void): void {
  const writeLine = (body: string): void => {
    process.stdout.write(`${body}\n`);
  };
  process.stdout.on('error', (error) => {
    log.error(`stdout failed (${errorText(error)})`);
    onEnd();
  });
  readLines(process.stdin, (event) => {
    if (event.kind === 'end') return onEnd();
    if (event.kind === 'overflow') {
      return writeLine(errorEnvelope(null, INVALID_REQUEST, 'Invalid Request: line exceeds the maximum message size'));
    }
    if (event.line.trim() === '') return;
    dispatchText(event.line, 'stdio', state).then(
      (reply) => writeLine(reply.body),
      (error: unknown) => log.error(`unexpected failure handling a stdio message: ${errorText(error)}`),
    );
  });
}

main().catch((error: unknown) => {
  log.error(`failed: ${errorText(error)}`);
  process.exit(1);
});
