import path from 'node:path';
import type { TestProject } from 'vitest/node';

import { stopAll } from '../adapters/supervise.ts';
import { createLazyRunTrust, type RunTrust } from '../auth/run-trust.ts';
import type { LoadedAdapter } from '../adapters/types.ts';
import type { AuthMode } from '../config/define-config.ts';
import type { ResolvedConfig } from '../config/load-config.ts';
import { loadAdapters } from '../runs/plan.ts';
import { watchAdapters } from './adapter-watch.ts';
import { openRunDir } from './run-dir.ts';
import { ServerBroker, type BrokerAddress } from './server-broker.ts';
import { forecastSelection, knownSelection } from './selection-forecast.ts';

export interface RunServices {
  runDir: string;
  trust: RunTrust;
  broker: ServerBroker;
  address: BrokerAddress;
  /** Ends every server and supervised process, closes the trust, removes the run dir. Never throws. */
  stop(): Promise<void>;
}

/**
 * What a matrix project's globalSetup owns for the run: a temp dir, the lazy synthetic trust, and the
 * server broker that starts HTTP servers on first use (server-broker.ts), listening for the workers.
 */
export async function startRunServices(config: ResolvedConfig, options: { tempPrefix: string; scenarioFile: string }): Promise<RunServices> {
  const runDir = openRunDir(options.tempPrefix);
  const trust = createLazyRunTrust(runDir.path);
  const broker = new ServerBroker({
    adapters: loadAdapters(config),
    trust,
    scenarioFile: options.scenarioFile,
    schemaDir: config.schemas,
    runDir: runDir.path,
    logDir: path.join(config.reports, 'logs'),
    startupMs: config.watchdogs.startupMs,
    maxInstances: Math.max(1, config.parallelism),
  });
  let address: BrokerAddress;
  try {
    address = await broker.listen();
  } catch (error) {
    runDir.remove();
    throw error;
  }
  let stopped = false;
  return {
    runDir: runDir.path,
    trust,
    broker,
    address,
    async stop() {
      if (stopped) return;
      stopped = true;
      await broker.stop().catch(() => undefined);
      await stopAll(1000);
      await trust.close().catch(() => undefined);
      runDir.remove();
    },
  };
}

/**
 * The part every matrix project's globalSetup shares once its inputs are validated: opens the run's
 * services, provides them to the workers, and in watch mode restarts an adapter's servers (and reruns
 * its groups) when a file under its folder changes. Returns the teardown.
 */
export async function provideRunServices(
  project: TestProject,
  config: ResolvedConfig,
  options: {
    tempPrefix: string;
    scenarioFile: string;
    restartDeadOnRerun?: boolean;
    /** HTTP servers to start in the background right away (selection-forecast.ts), in this order. */
    prewarm?: ReadonlyArray<{ adapter: LoadedAdapter; auth: AuthMode }>;
  },
): Promise<() => Promise<void>> {
  const services = await startRunServices(config, options);
  if (options.prewarm && options.prewarm.length > 0) void services.broker.prewarm(options.prewarm);
  project.provide('ahpBroker', services.address);
  project.provide('ahpRunDir', services.runDir);
  project.provide('ahpShard', project.vitest.config.shard ?? null);
  project.provide('ahpSelection', knownSelection(forecastSelection(project)));
  // Watch mode keeps shared servers up between reruns; one that died is started again first.
  if (options.restartDeadOnRerun) project.onTestsRerun(() => services.broker.restartDead());
  const unwatch = watchAdapters(project, config.adapters, (adapter) => services.broker.restartAdapter(adapter), [config.reports]);
  return async () => {
    unwatch();
    await services.stop();
  };
}
