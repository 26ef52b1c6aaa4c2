import type { TestProject } from 'vitest/node';

import { elicitationCaseFile, loadConfig } from '../../config/load-config.ts';
import { loadAdapters } from '../../runs/plan.ts';
import { provideRunServices } from '../../setup/run-services.ts';
import { loadElicitationCaseFile } from './load-elicitation-cases.ts';

/**
 * globalSetup of the `elicitation` project: validates the config, the elicitation case file and every
 * adapter.json, and opens the run's services (the temp dir that holds each pair's files and the Go
 * builds). Each pair starts its own receiver; nothing is shared between pairs but the builds.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config = await loadConfig();
  const scenarioFile = elicitationCaseFile(config);
  await loadElicitationCaseFile(scenarioFile);
  loadAdapters(config);
  return provideRunServices(project, config, { tempPrefix: 'ahp-elicitation-', scenarioFile });
}
