import type { TestProject } from 'vitest/node';

import { loadConfig } from '../config/load-config.ts';
import { loadAdapters } from '../runs/plan.ts';
import { watchAdapters } from './adapter-watch.ts';
import { startRunServices } from './run-services.ts';

/**
 * globalSetup of the `isolation` project: validates the config and every adapter.json and opens the
 * run's services (temp dir, lazy trust, broker); each case starts its own receiver and capture origin.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config = await loadConfig();
  loadAdapters(config);
  const services = await startRunServices(config, { tempPrefix: 'ahp-isolation-', scenarioFile: config.file });
  project.provide('ahpBroker', services.address);
  project.provide('ahpRunDir', services.runDir);
  project.provide('ahpShard', project.vitest.config.shard ?? null);
  // Watch mode: a change under an adapter's folder restarts its servers and reruns its groups.
  const unwatch = watchAdapters(project, config.adapters, (adapter) => services.broker.restartAdapter(adapter));
  return async () => {
    unwatch();
    await services.stop();
  };
}
