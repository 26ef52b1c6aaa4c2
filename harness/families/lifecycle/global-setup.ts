import type { TestProject } from 'vitest/node';

import { loadConfig } from '../../config/load-config.ts';
import { loadLifecycleScenarioFile } from './load-lifecycle-scenarios.ts';
import { loadAdapters } from '../../runs/plan.ts';
import { provideRunServices } from '../../setup/run-services.ts';

/**
 * globalSetup of the `lifecycle` project: validates the config, the lifecycle scenario file and
 * every adapter.json before any test runs, and opens the run's services (temp dir, lazy synthetic
 * trust, broker; run-services.ts). No server starts here: a lifecycle receiver keeps state across
 * requests (sticky releases, wait counts, immutable uploads), so every group run starts its own
 * (lifecycle-run.ts), and the receiver probes theirs; the broker only hands out each mode's trust on
 * first use. Teardown ends every process, closes the trust and removes the dir.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config = await loadConfig();
  const scenarioFile = config.scenarios.lifecycle;
  if (!scenarioFile) throw new Error(`${config.file}: scenarios.lifecycle: expected the lifecycle scenario file path`);
  await loadLifecycleScenarioFile(scenarioFile);
  loadAdapters(config);
  return provideRunServices(project, config, { tempPrefix: 'ahp-lifecycle-', scenarioFile });
}
