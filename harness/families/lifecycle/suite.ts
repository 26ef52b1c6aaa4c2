import { inject } from 'vitest';

import { baselineFor } from '../../baseline/baseline-for.ts';
import { loadConfig } from '../../config/load-config.ts';
import { inapplicabilityReason } from './applicability.ts';
import { loadLifecycleScenarioFile, unrunnableLifecycleRows } from './load-lifecycle-scenarios.ts';
import { unsatisfiableReason } from './unsatisfiable-rows.ts';
import { loadValidators } from '../../protocol/load-validators.ts';
import { brokerTrust, scriptRunBoundMs, suiteRunner } from '../../lifecycle-adapters/suite-runner.ts';
import { lifecycleVerifier } from './verify/verify-lifecycle-run.ts';
import { loadAdapters, needsLifecycleCommands, planMatrix } from '../../runs/plan.ts';
import { defineGroupedSuite } from '../../setup/grouped-suite.ts';
import { defineReceiverProbeSuite } from '../../lifecycle-adapters/receiver-probe-suite.ts';
import { lifecycleReceiverProbes } from './receiver-probes.ts';
import { groupsOfShard, probeAdaptersOfShard } from '../../setup/shard-parts.ts';

/**
 * The lifecycle family: every row of the lifecycle scenario file for every pairing of adapters with
 * lifecycle commands, transport and auth mode (pairings without them are `unsupported`; rows that
 * need the other transport are skipped with their reason). One client run per group over the
 * selected rows, judged by the pure lifecycle verifier (see lifecycle-runner.ts).
 */
export async function defineLifecycleSuite(shard?: { part: number }): Promise<void> {
  const config = await loadConfig();
  const scenarioPath = config.scenarios.lifecycle;
  if (!scenarioPath) throw new Error(`${config.file}: scenarios.lifecycle: expected the lifecycle scenario file path`);
  const file = await loadLifecycleScenarioFile(scenarioPath);
  const unrunnable = unrunnableLifecycleRows(file, scenarioPath);
  const adapters = loadAdapters(config);
  const trust = brokerTrust();
  const runner = suiteRunner(config, 'lifecycle', lifecycleVerifier(loadValidators(config.schemas)), trust);
  defineGroupedSuite({
    selection: inject('ahpSelection'),
    project: 'lifecycle',
    configFile: config.file,
    rows: file.scenarios,
    groups: groupsOfShard(planMatrix(config, adapters, needsLifecycleCommands), shard),
    rowSkip: (group, row) => {
      const reason = unrunnable.get(row.id) ?? inapplicabilityReason(row, group.transport) ?? unsatisfiableReason(row);
      return reason === undefined ? undefined : `inapplicable: ${reason}`;
    },
    expectedOf: (row) => row.expected,
    run: (group, rows) => runner.run(group, rows),
    parallelism: config.parallelism,
    baseline: await baselineFor(config),
    runBoundMs: scriptRunBoundMs(config),
  });
  defineReceiverProbeSuite({
    config,
    adapters: probeAdaptersOfShard([...adapters.values()], shard),
    family: lifecycleReceiverProbes(file.scenarios),
    scenarioFile: scenarioPath,
    trust,
    runDir: inject('ahpRunDir'),
    baseline: await baselineFor(config),
  });
}
