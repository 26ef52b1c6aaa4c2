// The `auth` project's HTTP servers, all started up front: one per (server adapter, auth mode), each
// with that mode's exact server `auth` settings from the run's synthetic trust. Only the auth
// globalSetup uses this now: every other project opens the run's services instead (run-services.ts),
// whose broker starts a server on first use (server-broker.ts). The handles are plain data the auth
// globalSetup `provide`s to the tests.
//
// Owns, for the run: a temp run dir (the servers' and client runs' files, the test PKI), removed on
// stop() and also when the process exits without teardown (Ctrl-C); the run trust (OAuth issuer,
// PKI, auth settings); and every server process (the supervisors end them if this process dies).

import path from 'node:path';

import { ensureAlive, startHttpServer, stopHttpServer, type StartHttpServerOptions } from '../adapters/http-server-pool.ts';
import { stopAll } from '../adapters/supervise.ts';
import type { LoadedAdapter, ServerHandle } from '../adapters/types.ts';
import { createRunTrust, type RunTrust } from '../auth/run-trust.ts';
import { AUTH_MODES, type AuthMode } from '../config/define-config.ts';
import type { ResolvedConfig } from '../config/load-config.ts';
import { safeLabel, type ProvidedServer } from '../runs/matrix-runner.ts';
import { openRunDir } from './run-dir.ts';
import { startFailure } from './server-broker.ts';

export interface MatrixServers {
  /** By key (`<adapter>/<auth>`): a handle, or why it could not start. Updated in place by restartDead(). */
  servers: Record<string, ProvidedServer>;
  /** The run's synthetic trust: every configured mode plus every mode in `needed`. */
  trust: RunTrust;
  /** Temp parent for the run's files (servers, client runs, PKI); removed by stop(). */
  runDir: string;
  /**
   * Watch mode, before a rerun: a server that died or turned unhealthy is started again, and one
   * that could not start gets another try. Never throws; failures land in `servers`.
   */
  restartDead(): Promise<void>;
  /** Stops every server and supervised process, closes the trust, removes the run dir. Never throws. */
  stop(): Promise<void>;
}

export interface StartMatrixServersOptions {
  config: ResolvedConfig;
  /** The servers to start, each once (see `httpServersNeeded`). */
  needed: Array<{ adapter: LoadedAdapter; auth: AuthMode; key: string }>;
  /** Absolute scenario file the servers answer from. */
  scenarioFile: string;
  /** Prefix of the temp run dir, e.g. `ahp-auth-`. */
  tempPrefix: string;
}

export async function startMatrixServers(options: StartMatrixServersOptions): Promise<MatrixServers> {
  const { config, needed, scenarioFile } = options;
  const { path: runDir, remove: removeRunDir } = openRunDir(options.tempPrefix);
  const modes = AUTH_MODES.filter((mode) => config.auth.includes(mode) || needed.some((entry) => entry.auth === mode));
  let trust: RunTrust;
  try {
    trust = await createRunTrust(modes, runDir);
  } catch (error) {
    removeRunDir();
    throw error;
  }

  const logDir = path.join(config.reports, 'logs', 'servers');
  const servers: Record<string, ProvidedServer> = {};
  const handles = new Map<string, ServerHandle>();
  const startOptions = new Map<string, StartHttpServerOptions>(
    needed.map(({ adapter, auth, key }) => [
      key,
      {
        adapter,
        auth,
        authSettings: { ...trust.server(auth) },
        scenarioFile,
        schemaDir: config.schemas,
        workDir: runDir,
        startupMs: config.watchdogs.startupMs,
      },
    ]),
  );

  const startOne = async (key: string): Promise<void> => {
    try {
      const handle = await startHttpServer(startOptions.get(key)!);
      handles.set(key, handle);
      servers[key] = { handle };
    } catch (error) {
      handles.delete(key);
      servers[key] = { error: startFailure(error, path.join(logDir, safeLabel(key))) };
    }
  };

  await boundedAll([...startOptions.keys()].map((key) => () => startOne(key)), config.parallelism);

  let stopped = false;
  return {
    servers,
    trust,
    runDir,
    async restartDead() {
      const tasks = [...startOptions.keys()].map((key) => async (): Promise<void> => {
        const handle = handles.get(key);
        if (!handle) return startOne(key);
        try {
          const fresh = await ensureAlive(handle);
          handles.set(key, fresh);
          servers[key] = { handle: fresh };
        } catch (error) {
          handles.delete(key);
          servers[key] = { error: startFailure(error, path.join(logDir, safeLabel(key))) };
        }
      });
      await boundedAll(tasks, config.parallelism);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await Promise.all([...handles.values()].map((handle) => stopHttpServer(handle)));
      handles.clear();
      await stopAll(1000);
      await trust.close().catch(() => undefined);
      removeRunDir();
    },
  };
}

async function boundedAll(tasks: Array<() => Promise<void>>, limit: number): Promise<void> {
  const queue = [...tasks];
  const workers = Array.from({ length: Math.max(1, Math.min(limit, queue.length)) }, async () => {
    for (let task = queue.shift(); task; task = queue.shift()) await task();
  });
  await Promise.all(workers);
}
