import type { TestProject } from 'vitest/node';

import { probeScenario } from './probes.ts';
import { loadConfig } from '../../config/load-config.ts';
import { loadScenarioFile } from '../../scenarios/load-scenarios.ts';
import { provideRunServices } from '../../setup/run-services.ts';

/**
 * globalSetup of the `auth` project: validates the config, the core scenario file (the intercept
 * probes carry its first positive row's request) and every adapter.json, then opens the run's
 * services (run-services.ts) like every matrix project: the probe tests lease each (server adapter,
 * mode) HTTP server from the run's broker on first use, and ask it for that mode's trust, so a
 * selection of one mode's probes starts one server and builds only that mode's issuer or PKI.
 * Teardown stops the servers, closes the trust (which writes the run's secrets for the hygiene
 * self-test when AHP_HYGIENE_SECRETS_FILE is set) and removes the temp dir.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config = await loadConfig();
  const scenarioFile = config.scenarios.core;
  if (!scenarioFile) throw new Error(`${config.file}: scenarios.core: expected the core scenario file path (the auth probes use its first positive row)`);
  probeScenario(await loadScenarioFile(scenarioFile), scenarioFile);
  return provideRunServices(project, config, { tempPrefix: 'ahp-auth-', scenarioFile, restartDeadOnRerun: true });
}
