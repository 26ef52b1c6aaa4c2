import path from 'node:path';
import { inject } from 'vitest';

import { baselineFor } from '../../baseline/baseline-for.ts';
import { loadConfig } from '../../config/load-config.ts';
import { loadScenarioFile } from '../../scenarios/load-scenarios.ts';
import { loadAdapters, planMatrix } from '../../runs/plan.ts';
import { MatrixRunner, type GroupRun } from './runner.ts';
import { BrokerClient } from '../../setup/broker-client.ts';
import { defineGroupedSuite, type GroupRunResult, type RowOutcome } from '../../setup/grouped-suite.ts';
import { groupsOfShard } from '../../setup/shard-parts.ts';

/**
 * The core family: every core scenario for every configured server→client pairing, transport and
 * auth mode, one client run per group over the selected rows (see grouped-suite.ts). The shared HTTP
 * servers come from the project's globalSetup (core-global-setup.ts).
 */
export async function defineMatrixSuite(suite: string, shard?: { part: number }): Promise<void> {
  const config = await loadConfig();
  const scenarioPath = config.scenarios[suite];
  if (!scenarioPath) throw new Error(`${config.file}: scenarios.${suite}: expected the ${suite} scenario file path`);
  const scenarioFile = await loadScenarioFile(scenarioPath);
  // A lease may wait for its server to start and for another run to hand an instance back.
  const broker = new BrokerClient(inject('ahpBroker'), config.watchdogs.startupMs + config.watchdogs.runMs * 4 + 30_000);
  const runner = new MatrixRunner({
    serverScenarioFile: scenarioPath,
    schemasDir: config.schemas,
    servers: broker,
    watchdogs: config.watchdogs,
    runDir: inject('ahpRunDir'),
    logDir: path.join(config.reports, 'logs'),
    blind: config.blind,
  });
  defineGroupedSuite({
    selection: inject('ahpSelection'),
    project: suite,
    configFile: config.file,
    rows: scenarioFile.scenarios,
    groups: groupsOfShard(planMatrix(config, loadAdapters(config)), shard),
    expectedOf: (scenario) => scenario.expected ?? { expectError: true },
    isNegative: (scenario) => scenario.expectError === true,
    run: async (group, rows) => coreResult(await runner.run(group, rows)),
    parallelism: config.parallelism,
    baseline: await baselineFor(config),
    runBoundMs: config.watchdogs.startupMs + config.watchdogs.runMs * 2 + 30_000,
  });
}

function coreResult(run: GroupRun): GroupRunResult {
  const runLabels = run.verification.integrity.map((line) => /^\[([^\]]+)\]/.exec(line)?.[1] ?? 'run/unknown');
  const rows = new Map<string, RowOutcome>();
  for (const [id, row] of run.verification.rows) {
    rows.set(id, {
      verdict: row.verdict,
      reason: row.reason,
      adapterStatus: row.adapterStatus,
      actual: row.actual,
      errors: [...runLabels, ...row.faults.map((fault) => fault.label)],
      ...(run.verification.note === undefined ? {} : { note: run.verification.note }),
    });
  }
  return { rows, keptLogs: run.keptLogs, durationMs: run.outcome.durationMs };
}
