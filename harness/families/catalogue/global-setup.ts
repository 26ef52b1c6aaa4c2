import type { TestProject } from 'vitest/node';

import { loadCatalogueScenarioFile } from './load-catalogue-scenarios.ts';
import { loadConfig } from '../../config/load-config.ts';
import { loadAdapters } from '../../runs/plan.ts';
import { provideRunServices } from '../../setup/run-services.ts';

/**
 * globalSetup of the `catalogue` project: validates the config, the catalogue scenario file and every
 * adapter.json, and opens the run's services (temp dir, lazy trust, broker). Like the lifecycle's,
 * every group run starts its own receiver (its lineage tracker lives for one server process), and
 * the receiver probes theirs.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config = await loadConfig();
  const scenarioFile = config.scenarios.catalogue;
  if (!scenarioFile) throw new Error(`${config.file}: scenarios.catalogue: expected the catalogue scenario file path`);
  await loadCatalogueScenarioFile(scenarioFile);
  loadAdapters(config);
  return provideRunServices(project, config, { tempPrefix: 'ahp-catalogue-', scenarioFile });
}
