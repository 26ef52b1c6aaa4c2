import { CLIENT_PROBE_TEST, clientProbeCases, clientProbeLabel, planClientProbes } from '../families/auth/client-probe-cases.ts';
import { planAuthProbes, PROBE_ENDPOINTS, probeCases } from '../families/auth/probes.ts';
import { CATALOGUE_RECEIVER_PROBES } from '../families/catalogue/catalogue-receiver-probes.ts';
import { loadCatalogueScenarioFile } from '../families/catalogue/load-catalogue-scenarios.ts';
import type { LoadedAdapter } from '../adapters/types.ts';
import { elicitationCaseFile, type ResolvedConfig } from '../config/load-config.ts';
import { planIsolationCases } from '../families/isolation/isolation-cases.ts';
import { elicitationRows } from '../families/elicitation/case-rows.ts';
import { loadElicitationCaseFile } from '../families/elicitation/load-elicitation-cases.ts';
import { planElicitationPairs } from '../families/elicitation/pairs.ts';
import { ISOLATION_ROW_ID } from '../families/isolation/isolation-scenario.ts';
import { loadLifecycleScenarioFile } from '../families/lifecycle/load-lifecycle-scenarios.ts';
import { RECEIVER_PROBES } from '../families/lifecycle/receiver-probes.ts';
import { loadAdapters, needsLifecycleCommands, planMatrix } from '../runs/plan.ts';
import { loadScenarioFile } from '../scenarios/load-scenarios.ts';
import type { BaselineRow } from './baseline.ts';

/**
 * Every test row the configuration defines, over every family a baseline can name (core, lifecycle
 * with its receiver probes, catalogue, isolation, elicitation, auth), so an entry that names none of them is an
 * error in any project.
 */
export async function configuredRows(config: ResolvedConfig): Promise<BaselineRow[]> {
  const adapters = loadAdapters(config);
  const rows: BaselineRow[] = [];
  if (config.scenarios.core) {
    const ids = (await loadScenarioFile(config.scenarios.core)).scenarios.map((s) => s.id);
    for (const group of planMatrix(config, adapters)) for (const id of ids) rows.push({ project: 'core', group: group.label, id });
    for (const target of planAuthProbes(config, adapters)) {
      for (const probe of probeCases(target.mode)) {
        for (const endpoint of PROBE_ENDPOINTS) rows.push({ project: 'auth', group: `${target.server.name} ${target.mode}/${probe.name}`, id: endpoint });
      }
    }
    for (const target of planClientProbes(config, adapters)) {
      for (const probe of clientProbeCases(target.mode)) rows.push({ project: 'auth', group: clientProbeLabel(target, probe), id: CLIENT_PROBE_TEST });
    }
  }
  if (config.scenarios.lifecycle) {
    const ids = (await loadLifecycleScenarioFile(config.scenarios.lifecycle)).scenarios.map((s) => s.id);
    for (const group of planMatrix(config, adapters, needsLifecycleCommands)) for (const id of ids) rows.push({ project: 'lifecycle', group: group.label, id });
    rows.push(...probeRows(config, adapters.values(), 'lifecycle', RECEIVER_PROBES));
  }
  if (config.scenarios.catalogue) {
    const ids = (await loadCatalogueScenarioFile(config.scenarios.catalogue)).scenarios.map((s) => s.id);
    for (const group of planMatrix(config, adapters, needsLifecycleCommands)) for (const id of ids) rows.push({ project: 'catalogue', group: group.label, id });
    rows.push(...probeRows(config, adapters.values(), 'catalogue', CATALOGUE_RECEIVER_PROBES));
  }
  // The isolation grid is fixed (it does not follow the config's transports and modes).
  for (const group of planIsolationCases(adapters.values())) rows.push({ project: 'isolation', group: group.label, id: ISOLATION_ROW_ID });
  // So is the elicitation grid (directed pairs over http/bearer); its case file always exists by default.
  const elicitationIds = elicitationRows(await loadElicitationCaseFile(elicitationCaseFile(config))).map((row) => row.id);
  for (const group of planElicitationPairs(adapters, config.pairings)) for (const id of elicitationIds) rows.push({ project: 'elicitation', group: group.label, id });
  return rows;
}

/** The receiver probe tests of a family: `<server> <mode>` › `receiver/<probe>` per lifecycle server, over HTTP only. */
function probeRows(config: ResolvedConfig, adapters: Iterable<LoadedAdapter>, project: string, probes: ReadonlyArray<{ name: string }>): BaselineRow[] {
  if (!config.transports.includes('http')) return [];
  const rows: BaselineRow[] = [];
  for (const adapter of adapters) {
    if (!adapter.manifest.lifecycleServer) continue;
    for (const mode of config.auth) for (const probe of probes) rows.push({ project, group: `${adapter.name} ${mode}`, id: `receiver/${probe.name}` });
  }
  return rows;
}
