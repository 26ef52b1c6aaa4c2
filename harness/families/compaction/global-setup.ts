import type { TestProject } from 'vitest/node';

import { loadConfig } from '../../config/load-config.ts';
import { loadAdapters } from '../../runs/plan.ts';
import { provideRunServices } from '../../setup/run-services.ts';
import { compactionCaseFile } from './compaction-file.ts';

/**
 * globalSetup of the `compaction` project: validates the config, the compaction case file and every
 * adapter.json before any test runs, and opens the run's services (temp dir, broker). No receiver
 * starts here: each pair's receiver config and tokens are fresh, so each pair run starts its own.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config = await loadConfig();
  compactionCaseFile(config);
  loadAdapters(config);
  return provideRunServices(project, config, { tempPrefix: 'ahp-compaction-', scenarioFile: config.scenarios.compaction ?? config.file });
}
