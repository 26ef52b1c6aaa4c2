import path from 'node:path';
import { inject } from 'vitest';

import { baselineFor } from '../../baseline/baseline-for.ts';
import { elicitationCaseFile, loadConfig } from '../../config/load-config.ts';
import { loadAdapters } from '../../runs/plan.ts';
import { defineGroupedSuite } from '../../setup/grouped-suite.ts';
import { blindRun } from './blind-cases.ts';
import { elicitationRows } from './case-rows.ts';
import { loadElicitationCaseFile } from './load-elicitation-cases.ts';
import { planElicitationPairs } from './pairs.ts';
import { ATOMIC_TIMEOUT_MS, runElicitationPair, STEP_TIMEOUT_MS } from './run.ts';

/**
 * The elicitation family (ELICITATION-RULES): for every directed sender → receiver pair of adapters
 * with an `elicitation` command, one test per wire case, the concurrent scenario, each atomic row
 * (`atomic/<name>`) and each probe, named `<sender>→<receiver> http/bearer › <case id>`. A pair is one
 * run — one receiver, whose receipts span every case — over exactly the selected cases, never split.
 */
export async function defineElicitationSuite(): Promise<void> {
  const config = await loadConfig();
  const file = await loadElicitationCaseFile(elicitationCaseFile(config));
  const rows = elicitationRows(file);
  const options = {
    schemaDir: config.schemas,
    runDir: inject('ahpRunDir'),
    logDir: path.join(config.reports, 'logs'),
    watchdogs: config.watchdogs,
  };
  // A pair runs its steps one after another: its bound is every step's watchdog, plus the helper and startup.
  const stepsPerPair = rows.length * 4 + 8;
  defineGroupedSuite({
    selection: inject('ahpSelection'),
    project: 'elicitation',
    configFile: config.file,
    rows,
    groups: planElicitationPairs(loadAdapters(config), config.pairings),
    expectedOf: (row) => row.expected,
    categoryOf: (row) => row.kind,
    run: async (group, selected) => {
      const ids = selected.map((row) => row.id);
      if (!config.blind) return runElicitationPair(group, ids, { ...options, file });
      // Blind: the pair's adapters see opaque case names (fresh per pair); verdicts come back under the real ids.
      const blind = blindRun(file);
      const result = await runElicitationPair(group, ids.map((id) => blind.opaqueId.get(id) ?? id), { ...options, file: blind.file });
      return { ...result, rows: new Map([...result.rows].map(([id, outcome]) => [blind.originalId.get(id) ?? id, blind.reveal(outcome)])) };
    },
    parallelism: config.parallelism,
    splittable: false,
    runBoundMs: config.watchdogs.startupMs + ATOMIC_TIMEOUT_MS + stepsPerPair * Math.min(STEP_TIMEOUT_MS, config.watchdogs.runMs) + 30_000,
    baseline: await baselineFor(config),
  });
}
