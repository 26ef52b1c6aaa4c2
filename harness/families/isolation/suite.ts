import path from 'node:path';
import { inject } from 'vitest';

import { baselineFor } from '../../baseline/baseline-for.ts';
import { loadConfig } from '../../config/load-config.ts';
import { isolationScenario } from './isolation-scenario.ts';
import { planIsolationCases } from './isolation-cases.ts';
import { runIsolationCase } from './isolation-run.ts';
import { loadValidators } from '../../protocol/load-validators.ts';
import { requiredHook } from '../family-hooks.ts';
import { loadAdapters } from '../../runs/plan.ts';
import { defineGroupedSuite } from '../../setup/grouped-suite.ts';
import { brokerTrust, scriptRunBoundMs } from '../../lifecycle-adapters/suite-runner.ts';

/**
 * Sender isolation (SENDER-ISOLATION-RULES): every adapter with lifecycle commands as a sender
 * against its own lifecycle server, in six cases (four credentialed HTTP modes, the HTTP and stdio
 * controls), each its own test `<L>→<L> <transport>/<mode> › sender-isolation`: does the raw content
 * upload reach an independent origin as exactly one well-formed anonymous request, while the
 * credentialed event exchange with its own receiver still succeeds?
 */
export async function defineIsolationSuite(): Promise<void> {
  const config = await loadConfig();
  const validators = loadValidators(config.schemas);
  const row = isolationScenario(validators);
  const options = {
    row,
    // The exchange with its own receiver is a lifecycle step script, judged by lifecycle's verifier.
    lifecycleVerifier: (await requiredHook('lifecycle', 'stepScriptVerifier'))(validators),
    trust: brokerTrust(),
    schemasDir: config.schemas,
    watchdogs: config.watchdogs,
    runDir: inject('ahpRunDir'),
    logDir: path.join(config.reports, 'logs'),
  };
  defineGroupedSuite({
    selection: inject('ahpSelection'),
    project: 'isolation',
    configFile: config.file,
    rows: [row],
    groups: planIsolationCases(loadAdapters(config).values()),
    expectedOf: (scenario) => scenario.expected,
    run: (group) => runIsolationCase(group, options),
    parallelism: config.parallelism,
    splittable: false,
    runBoundMs: scriptRunBoundMs(config),
    baseline: await baselineFor(config),
  });
}
