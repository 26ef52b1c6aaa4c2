import type { TestProject } from 'vitest/node';
import type { ClientAuthSettings } from '../auth/auth-settings.ts';
import type { AuthMode } from '../config/define-config.ts';
import { loadConfig } from '../config/load-config.ts';
import { loadScenarioFile } from '../scenarios/load-scenarios.ts';
import { httpServersNeeded, loadAdapters, planMatrix } from '../runs/plan.ts';
import type { ProvidedServer } from '../runs/matrix-runner.ts';
import { startMatrixServers } from './matrix-servers.ts';
import { proxyTlsFiles } from '../auth/proxy-tls.ts';
import type { ProxyTlsFiles } from '../runs/client-run.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Shared HTTP servers by `<adapter>/<auth>`: a handle, or why it could not start. */
    ahpServers: Record<string, ProvidedServer>;
    /** Temp parent for client runs; removed at teardown. */
    ahpRunDir: string;
    /**
     * The client config's `auth` for every mode of the run's trust (every configured mode). Holds
     * credentials: only ever written into 0600 adapter configs, never into names, reports or logs.
     */
    ahpClientAuth: Record<AuthMode, ClientAuthSettings>;
    /** The run's PKI files for the harness's HTTP proxy in mtls groups; null without mtls. */
    ahpProxyTls: ProxyTlsFiles | null;
  }
}

/**
 * globalSetup of the `core` project: validates the configuration, the scenario file and every
 * adapter.json before any test runs, starts each HTTP server adapter once per (adapter, auth mode)
 * with that mode's server auth settings (see matrix-servers.ts), and provides the endpoints and the
 * client auth settings. A server that cannot start does not abort the run: its groups fail with the
 * startup error while every other pairing still runs. Teardown ends every process (also after Ctrl-C
 * or a crash, through the supervisors), closes the trust and removes the temp dirs.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config = await loadConfig();
  const adapters = loadAdapters(config);
  const scenarioFile = config.scenarios.core;
  if (!scenarioFile) throw new Error(`${config.file}: scenarios.core: expected the core scenario file path`);
  await loadScenarioFile(scenarioFile);
  const groups = planMatrix(config, adapters);

  const matrix = await startMatrixServers({ config, needed: httpServersNeeded(groups), scenarioFile, tempPrefix: 'ahp-core-' });
  const clientAuth = Object.fromEntries(matrix.trust.modes.map((mode) => [mode, matrix.trust.client(mode)])) as Record<AuthMode, ClientAuthSettings>;
  project.provide('ahpServers', matrix.servers);
  project.provide('ahpRunDir', matrix.runDir);
  project.provide('ahpClientAuth', clientAuth);
  project.provide('ahpProxyTls', matrix.trust.pki ? proxyTlsFiles(matrix.trust.pki) : null);

  // Watch mode keeps servers up between reruns; one that died is started again before the rerun.
  project.onTestsRerun(async () => {
    await matrix.restartDead();
    project.provide('ahpServers', matrix.servers);
  });

  return () => matrix.stop();
}
