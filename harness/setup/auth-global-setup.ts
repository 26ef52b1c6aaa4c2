import type { TestProject } from 'vitest/node';

import { probeScenario, planAuthProbes, probeTrustOf, type ProbeTrust } from '../auth/probes.ts';
import { loadConfig } from '../config/load-config.ts';
import type { ProvidedServer } from '../runs/matrix-runner.ts';
import { loadAdapters } from '../runs/plan.ts';
import { loadScenarioFile } from '../scenarios/load-scenarios.ts';
import { startMatrixServers } from './matrix-servers.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The `auth` project's servers by `<adapter>/<mode>`: a handle, or why it could not start. */
    ahpAuthServers: Record<string, ProvidedServer>;
    /** Endpoints and file paths of the run's synthetic trust (no secret values). */
    ahpAuthTrust: ProbeTrust;
  }
}

/**
 * globalSetup of the `auth` project: validates the config, the core scenario file (the intercept
 * probes carry its first positive row's request) and every adapter.json, then starts each server
 * adapter once per configured auth mode it supports, over HTTP, with that mode's server settings
 * from the run's trust (matrix-servers.ts). Teardown stops them, closes the trust (which writes the
 * run's secrets for the hygiene self-test when AHP_HYGIENE_SECRETS_FILE is set) and removes the
 * temp dir.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config = await loadConfig();
  const scenarioFile = config.scenarios.core;
  if (!scenarioFile) throw new Error(`${config.file}: scenarios.core: expected the core scenario file path (the auth probes use its first positive row)`);
  probeScenario(await loadScenarioFile(scenarioFile), scenarioFile);
  const targets = planAuthProbes(config, loadAdapters(config));
  const needed = targets.filter((target) => target.skip === undefined).map(({ server, mode, key }) => ({ adapter: server, auth: mode, key }));

  const matrix = await startMatrixServers({ config, needed, scenarioFile, tempPrefix: 'ahp-auth-' });
  project.provide('ahpAuthServers', matrix.servers);
  project.provide('ahpAuthTrust', probeTrustOf(matrix.trust));

  project.onTestsRerun(async () => {
    await matrix.restartDead();
    project.provide('ahpAuthServers', matrix.servers);
  });

  return () => matrix.stop();
}
