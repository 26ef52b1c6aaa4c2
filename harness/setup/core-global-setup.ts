import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../config/load-config.ts';
import { ensureAlive, ServerStartError, startHttpServer, stopHttpServer } from '../adapters/http-server-pool.ts';
import { stopAll } from '../adapters/supervise.ts';
import type { ServerHandle } from '../adapters/types.ts';
import { loadScenarioFile } from '../scenarios/load-scenarios.ts';
import { httpServersNeeded, loadAdapters, planMatrix } from '../runs/plan.ts';
import { safeLabel, type ProvidedServer } from '../runs/matrix-runner.ts';
import type { RunFailure } from '../runs/types.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Shared HTTP servers by `<adapter>/<auth>`: a handle, or why it could not start. */
    ahpServers: Record<string, ProvidedServer>;
    /** Temp parent for client runs; removed at teardown. */
    ahpRunDir: string;
  }
}

/**
 * globalSetup of the `core` project: validates the configuration, the scenario file and every
 * adapter.json before any test runs, starts each HTTP server adapter once per (adapter, auth mode)
 * and provides the endpoints. A server that cannot start does not abort the run: its groups fail
 * with the startup error while every other pairing still runs. Teardown ends every process (also
 * after Ctrl-C or a crash, through the supervisors) and removes the temp dirs.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config = await loadConfig();
  const adapters = loadAdapters(config);
  const scenarioFile = config.scenarios.core;
  if (!scenarioFile) throw new Error(`${config.file}: scenarios.core: expected the core scenario file path`);
  await loadScenarioFile(scenarioFile);
  const groups = planMatrix(config, adapters);

  const runDir = mkdtempSync(path.join(os.tmpdir(), 'ahp-core-'));
  // Ctrl-C makes vitest exit without running teardown; the temp dir must not outlive the run then
  // either (the supervisors already end the processes when this process goes away).
  const removeRunDir = (): void => rmSync(runDir, { recursive: true, force: true });
  process.once('exit', removeRunDir);
  const logDir = path.join(config.reports, 'logs');
  const servers: Record<string, ProvidedServer> = {};
  const handles = new Map<string, ServerHandle>();

  const startOne = async (key: string, options: Parameters<typeof startHttpServer>[0]): Promise<void> => {
    try {
      const handle = await startHttpServer(options);
      handles.set(key, handle);
      servers[key] = { handle };
    } catch (error) {
      servers[key] = { error: startFailure(error, path.join(logDir, 'servers', safeLabel(key))) };
    }
  };

  const needed = httpServersNeeded(groups);
  const startOptions = new Map(
    needed.map(({ adapter, auth, key }) => [
      key,
      { adapter, auth, scenarioFile, schemaDir: config.schemas, workDir: runDir, startupMs: config.watchdogs.startupMs },
    ]),
  );
  await boundedAll(
    [...startOptions].map(([key, options]) => () => startOne(key, options)),
    config.parallelism,
  );
  project.provide('ahpServers', servers);
  project.provide('ahpRunDir', runDir);

  // Watch mode keeps servers up between reruns; one that died is started again before the rerun.
  project.onTestsRerun(async () => {
    for (const [key, handle] of handles) {
      try {
        const fresh = await ensureAlive(handle);
        handles.set(key, fresh);
        servers[key] = { handle: fresh };
      } catch (error) {
        handles.delete(key);
        servers[key] = { error: startFailure(error, path.join(logDir, 'servers', safeLabel(key))) };
      }
    }
    project.provide('ahpServers', servers);
  });

  return async () => {
    await Promise.all([...handles.values()].map((handle) => stopHttpServer(handle)));
    await stopAll(1000);
    process.removeListener('exit', removeRunDir);
    removeRunDir();
  };
}

function startFailure(error: unknown, keepDir: string): RunFailure {
  if (error instanceof ServerStartError) {
    let message = error.message;
    if (existsSync(error.logFile)) {
      mkdirSync(keepDir, { recursive: true });
      const kept = path.join(keepDir, 'server.log');
      cpSync(error.logFile, kept);
      message = message.split(error.logFile).join(kept);
    }
    return { stage: error.stage, kind: error.kind, message };
  }
  return { stage: 'startup', kind: 'error', message: `startup: ${(error as Error).message}` };
}

async function boundedAll(tasks: Array<() => Promise<void>>, limit: number): Promise<void> {
  const queue = [...tasks];
  const workers = Array.from({ length: Math.max(1, Math.min(limit, queue.length)) }, async () => {
    for (let task = queue.shift(); task; task = queue.shift()) await task();
  });
  await Promise.all(workers);
}
