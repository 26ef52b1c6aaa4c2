import { inject } from 'vitest';

import { baselineFor } from '../../baseline/baseline-for.ts';
import { loadCatalogueScenarioFile, unrunnableCatalogueRows } from './load-catalogue-scenarios.ts';
import type { CatalogueScenario } from './scenario-types.ts';
import { loadConfig } from '../../config/load-config.ts';
import { loadValidators } from '../../protocol/load-validators.ts';
import type { ScriptVerifier } from '../../lifecycle-adapters/runner.ts';
import { brokerTrust, scriptRunBoundMs, suiteRunner } from '../../lifecycle-adapters/suite-runner.ts';
import { loadAdapters, needsLifecycleCommands, planMatrix } from '../../runs/plan.ts';
import { verifyCatalogueRun } from './verify/verify-catalogue-run.ts';
import { defineGroupedSuite } from '../../setup/grouped-suite.ts';
import { defineReceiverProbeSuite } from '../../lifecycle-adapters/receiver-probe-suite.ts';
import { catalogueReceiverProbes } from './catalogue-receiver-probes.ts';

/**
 * The catalogue family (CATALOGUE-RULES): every row of `scenarios.catalogue` through the lifecycle
 * adapters with `suite: "catalogue"`, for every pairing of adapters with lifecycle commands, over
 * every transport and auth mode. Rows share one connection, one receiver and one source-local lineage
 * across the file (a later row names a parent an earlier row delivered), so a group always runs the
 * whole file, whatever the selection, and is never split; the tests report the rows selected.
 * Beside the rows, each catalogue server gets the harness-driven receiver probes of what no client
 * sends (a notification without an event), `<server> <mode> › receiver/<probe>`.
 */
export async function defineCatalogueSuite(): Promise<void> {
  const config = await loadConfig();
  const scenarioPath = config.scenarios.catalogue;
  if (!scenarioPath) throw new Error(`${config.file}: scenarios.catalogue: expected the catalogue scenario file path`);
  const file = await loadCatalogueScenarioFile(scenarioPath);
  const unrunnable = unrunnableCatalogueRows(file, scenarioPath);
  // An unrunnable row is never sent: a client stops at it and the run loses every row. A message
  // without an event id, or one no SDK would write, is refused by the observe schema anyway and leaves
  // no lineage trace (§4 rule 7), so leaving it out changes no later row. A row left out for a body
  // reference may hold an accepted event a later row names as parent; that later row may then fail,
  // beside the skip that says why.
  const runnableRows = file.scenarios.filter((row) => !unrunnable.has(row.id));
  const validators = loadValidators(config.schemas);
  const verify: ScriptVerifier<CatalogueScenario> = (evidence) => verifyCatalogueRun({ ...evidence, validators });
  const trust = brokerTrust();
  const adapters = loadAdapters(config);
  const runner = suiteRunner(config, 'catalogue', verify, trust);
  defineGroupedSuite({
    selection: inject('ahpSelection'),
    project: 'catalogue',
    configFile: config.file,
    rows: file.scenarios,
    groups: planMatrix(config, adapters, needsLifecycleCommands),
    rowSkip: (_group, row) => {
      const reason = unrunnable.get(row.id);
      return reason === undefined ? undefined : `inapplicable: ${reason}`;
    },
    expectedOf: (row) => row.expected,
    categoryOf: (row) => row.category,
    run: (group) => runner.run(group, runnableRows),
    parallelism: config.parallelism,
    splittable: false,
    runBoundMs: scriptRunBoundMs(config),
    baseline: await baselineFor(config),
  });
  defineReceiverProbeSuite({
    config,
    adapters: [...adapters.values()],
    family: catalogueReceiverProbes(file.scenarios),
    scenarioFile: scenarioPath,
    trust,
    runDir: inject('ahpRunDir'),
    baseline: await baselineFor(config),
  });
}
