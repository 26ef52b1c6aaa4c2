import path from 'node:path';
import { inject } from 'vitest';

import { baselineFor } from '../baseline/baseline-for.ts';
import { loadCatalogueScenarioFile } from '../catalogue/load-catalogue-scenarios.ts';
import type { CatalogueScenario } from '../catalogue/scenario-types.ts';
import type { AuthMode } from '../config/define-config.ts';
import { loadConfig } from '../config/load-config.ts';
import { loadValidators } from '../protocol/load-validators.ts';
import { LifecycleRunner, type ScriptVerifier } from '../runs/lifecycle-runner.ts';
import { loadAdapters, needsLifecycleCommands, planMatrix } from '../runs/plan.ts';
import { verifyCatalogueRun } from '../verify/catalogue/verify-catalogue-run.ts';
import { BrokerClient } from './broker-client.ts';
import { defineGroupedSuite } from './grouped-suite.ts';

/**
 * The catalogue family (CATALOGUE-RULES): every row of `scenarios.catalogue` through the lifecycle
 * adapters with `suite: "catalogue"`, for every pairing of adapters with lifecycle commands, over
 * every transport and auth mode. Rows share one connection, one receiver and one source-local lineage
 * across the file (a later row names a parent an earlier row delivered), so a group always runs the
 * whole file, whatever the selection, and is never split; the tests report the rows selected.
 */
export async function defineCatalogueSuite(): Promise<void> {
  const config = await loadConfig();
  const scenarioPath = config.scenarios.catalogue;
  if (!scenarioPath) throw new Error(`${config.file}: scenarios.catalogue: expected the catalogue scenario file path`);
  const file = await loadCatalogueScenarioFile(scenarioPath);
  const validators = loadValidators(config.schemas);
  const verify: ScriptVerifier<CatalogueScenario> = (evidence) => verifyCatalogueRun({ ...evidence, validators });
  const broker = new BrokerClient(inject('ahpBroker'), 60_000);
  const runner = new LifecycleRunner<CatalogueScenario>({
    suite: 'catalogue',
    schemasDir: config.schemas,
    verify,
    trust: (mode: AuthMode) => broker.trust(mode),
    watchdogs: config.watchdogs,
    runDir: inject('ahpRunDir'),
    logDir: path.join(config.reports, 'logs'),
  });
  defineGroupedSuite({
    selection: inject('ahpSelection'),
    project: 'catalogue',
    configFile: config.file,
    rows: file.scenarios,
    groups: planMatrix(config, loadAdapters(config), needsLifecycleCommands),
    expectedOf: (row) => row.expected,
    categoryOf: (row) => row.category,
    run: (group) => runner.run(group, file.scenarios),
    parallelism: config.parallelism,
    splittable: false,
    runBoundMs: config.watchdogs.startupMs * 2 + config.watchdogs.runMs * 2 + 30_000,
    baseline: await baselineFor(config),
  });
}
