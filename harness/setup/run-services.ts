import path from 'node:path';

import { stopAll } from '../adapters/supervise.ts';
import { createLazyRunTrust, type RunTrust } from '../auth/run-trust.ts';
import type { ResolvedConfig } from '../config/load-config.ts';
import { loadAdapters } from '../runs/plan.ts';
import { openRunDir } from './run-dir.ts';
import { ServerBroker, type BrokerAddress } from './server-broker.ts';

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
