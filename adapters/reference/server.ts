// The reference adapter's server half: serves a central scenario file's scripted responses over the
// AHP HTTP or stdio binding, with a separate control HTTP server (see README.md).
//
//   node --import tsx server.ts --config /abs/server-config.json
//
// Exit codes: 0 after /shutdown, SIGTERM/SIGINT or (stdio) end of stdin; 1 on an unexpected
// failure; 2 on a bad config (including a bad `auth` object) or scenario file; 3 when the auth mode
// does not apply to the transport (stdio with any mode but none).

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { AuthConfigError, prepareServerAuth, type ServerAuth } from './auth.ts';
import { writeJsonAtomic } from './lib/atomic-write.ts';
import { Barriers } from './lib/barriers.ts';
import { AdapterConfigError, configPathFromArgs, loadServerConfig, type ServerConfig } from './lib/config.ts';
import { createControlServer } from './lib/control-server.ts';
import { dispatchText, type ServerState } from './lib/dispatch.ts';
import { createAhpHttpServer } from './lib/http-binding.ts';
import { newAuthStats } from './lib/request-auth.ts';
import { errorEnvelope, INVALID_REQUEST } from './lib/jsonrpc.ts';
import { createLog, errorText, keepStdoutForProtocol } from './lib/log.ts';
import { readLines } from './lib/ndjson.ts';
import { DEFAULT_SCHEMA_DIR } from './lib/paths.ts';
import type { Scenario } from '../../harness/scenarios/types.ts';
import { loadScenarioFileSync } from '../../harness/scenarios/load-scenarios.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';

const BARRIER_WATCHDOG_MS = 60_000;
/** How long shutdown may take before the process exits regardless. */
const SHUTDOWN_GRACE_MS = 2_000;

const log = createLog('server');
keepStdoutForProtocol();

function fail(code: number, message: string): never {
  log.error(message);
  process.exit(code);
}

function readConfig(): ServerConfig {
  try {
    return loadServerConfig(configPathFromArgs(process.argv.slice(2)));
  } catch (error) {
    if (error instanceof AdapterConfigError) fail(2, `bad config: ${error.message}`);
    throw error;
  }
}

function prepareAuth(config: ServerConfig): ServerAuth {
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
  const authStats = newAuthStats();

  let scenarios: Map<string, Scenario>;
  try {
    scenarios = new Map(loadScenarioFileSync(config.scenarioFile).scenarios.map((row) => [row.id, row]));
  } catch (error) {
    fail(2, `bad scenario file: ${errorText(error)}`);
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
  let closing = false;
  const shutdown = (code: number, why: string): void => {
    if (closing) return;
    closing = true;
    log.info(`shutting down (${why})`);
    setTimeout(() => process.exit(code), SHUTDOWN_GRACE_MS).unref();
    state.barriers.closeAll();
    for (const server of servers) {
      server.close();
      server.closeAllConnections();
    }
    // Let pending stdout writes (stdio replies) drain before exiting.
    process.stdout.write('', () => process.exit(code));
  };
  process.on('SIGTERM', () => shutdown(0, 'SIGTERM'));
  process.on('SIGINT', () => shutdown(0, 'SIGINT'));

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
  // performance.now() counts from process start, so this includes node + tsx startup.
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
