import type { TestProject } from 'vitest/node';

import type { ClientAuthSettings, ServerAuthSettings } from '../auth/auth-settings.ts';
import type { AuthMode } from '../config/define-config.ts';
import { loadConfig } from '../config/load-config.ts';
import { loadLifecycleScenarioFile } from '../lifecycle/load-lifecycle-scenarios.ts';
import { loadAdapters } from '../runs/plan.ts';
import { startMatrixServers } from './matrix-servers.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * The server config's `auth` for every mode of the run's trust. Holds credentials: only ever
     * written into 0600 adapter configs, never into names, reports or logs.
     */
    ahpServerAuth: Record<AuthMode, ServerAuthSettings>;
  }
}

/**
 * globalSetup of the `lifecycle` project: validates the config, the lifecycle scenario file and
 * every adapter.json before any test runs, and creates the run's synthetic trust (OAuth issuer, test
 * PKI) and temp dir. No server starts here: a lifecycle receiver keeps state across requests (sticky
 * releases, wait counts, immutable uploads), so every group run starts its own (lifecycle-run.ts),
 * and the receiver probes theirs. Teardown ends every process, closes the trust and removes the dir.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config = await loadConfig();
  const scenarioFile = config.scenarios.lifecycle;
  if (!scenarioFile) throw new Error(`${config.file}: scenarios.lifecycle: expected the lifecycle scenario file path`);
  await loadLifecycleScenarioFile(scenarioFile);
  loadAdapters(config);

  const matrix = await startMatrixServers({ config, needed: [], scenarioFile, tempPrefix: 'ahp-lifecycle-' });
  const modes = matrix.trust.modes;
  project.provide('ahpRunDir', matrix.runDir);
  project.provide('ahpServerAuth', Object.fromEntries(modes.map((mode) => [mode, matrix.trust.server(mode)])) as Record<AuthMode, ServerAuthSettings>);
  project.provide('ahpClientAuth', Object.fromEntries(modes.map((mode) => [mode, matrix.trust.client(mode)])) as Record<AuthMode, ClientAuthSettings>);
  return () => matrix.stop();
}
