import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../config/load-config.ts';
import { loadAdapters, planMatrix } from '../../runs/plan.ts';
import { loadScenarioFile } from '../../scenarios/load-scenarios.ts';
import { provideRunServices } from '../../setup/run-services.ts';
import { loadTimings } from '../../setup/run-timings.ts';
import { forecastHttpServers, forecastSelection } from '../../setup/selection-forecast.ts';
import type { BrokerAddress } from '../../setup/server-broker.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's server broker: servers and trust on first use (server-broker.ts). */
    ahpBroker: BrokerAddress;
    /** Temp parent for client runs; removed at teardown. */
    ahpRunDir: string;
  }
}

/**
 * globalSetup of the `core` project: validates the configuration, the scenario file and every
 * adapter.json before any test runs, then opens the run's services — a temp dir, the synthetic
 * trust and the server broker — starting nothing but what the selection will need: the first client
 * run that needs an HTTP server (adapter, auth mode) or a mode's trust gets it created then
 * (run-services.ts), and a plain run's forecast servers start in the background while vitest still
 * boots (selection-forecast.ts), so a selection pays only for what it selected. A server that cannot start does not abort the run: its
 * groups fail with the startup error while every other pairing still runs. Watch mode keeps the
 * servers between reruns. Teardown ends every process (also after Ctrl-C or a crash, through the
 * supervisors), closes the trust and removes the temp dir.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config = await loadConfig();
  const scenarioFile = config.scenarios.core;
  if (!scenarioFile) throw new Error(`${config.file}: scenarios.core: expected the core scenario file path`);
  const scenarios = await loadScenarioFile(scenarioFile);
  const groups = planMatrix(config, loadAdapters(config));
  // The servers a plain run's selection will lease start while vitest boots (selection-forecast.ts).
  const prewarm = forecastHttpServers(forecastSelection(project), groups, scenarios.scenarios.map((row) => row.id), loadTimings('core'));
  return provideRunServices(project, config, { tempPrefix: 'ahp-core-', scenarioFile, restartDeadOnRerun: true, prewarm });
}
