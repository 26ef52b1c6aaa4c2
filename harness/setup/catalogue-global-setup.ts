import type { TestProject } from 'vitest/node';

import { loadCatalogueScenarioFile } from '../catalogue/load-catalogue-scenarios.ts';
import { loadConfig } from '../config/load-config.ts';
import { loadAdapters } from '../runs/plan.ts';
import { watchAdapters } from './adapter-watch.ts';
import { startRunServices } from './run-services.ts';

/**
 * globalSetup of the `catalogue` project: validates the config, the catalogue scenario file and every
 * adapter.json, and opens the run's services (temp dir, lazy trust, broker). Like the lifecycle's,
 * every group run starts its own receiver: its lineage tracker lives for one server process.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config = await loadConfig();
  const scenarioFile = config.scenarios.catalogue;
  if (!scenarioFile) throw new Error(`${config.file}: scenarios.catalogue: expected the catalogue scenario file path`);
  await loadCatalogueScenarioFile(scenarioFile);
  loadAdapters(config);
  const services = await startRunServices(config, { tempPrefix: 'ahp-catalogue-', scenarioFile });
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
