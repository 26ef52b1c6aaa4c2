import type { TestProject } from 'vitest/node';

import { loadConfig } from '../../config/load-config.ts';
import { loadAdapters } from '../../runs/plan.ts';
import { provideRunServices } from '../../setup/run-services.ts';

/**
 * globalSetup of the `isolation` project: validates the config and every adapter.json and opens the
 * run's services (temp dir, lazy trust, broker); each case starts its own receiver and capture origin.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config = await loadConfig();
  loadAdapters(config);
  return provideRunServices(project, config, { tempPrefix: 'ahp-isolation-', scenarioFile: config.file });
}
