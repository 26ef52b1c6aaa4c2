import path from 'node:path';
import { inject } from 'vitest';

import { baselineFor } from '../../baseline/baseline-for.ts';
import { loadConfig } from '../../config/load-config.ts';
import { loadAdapters } from '../../runs/plan.ts';
import { defineGroupedSuite } from '../../setup/grouped-suite.ts';
import { planCompactionPairs } from './compaction-pairs.ts';
import { compactionCaseFile } from './compaction-file.ts';
import type { CompactionRow } from './pair-verdicts.ts';
import { HOST_RUN_MS, PROBE_RUN_MS, runCompactionPair } from './run.ts';
import { RECEIVER_READY_MS } from './receiver-start.ts';

/**
 * The compaction wire matrix (COMPACTION-RULES): every sender → receiver pair on HTTP (bearer) and
 * stdio (process trust), one test per case `<sender>→<receiver> <transport>/<auth> › <case>` and per
 * rejection probe request `… › probe:<what is wrong>`. A pair's selected rows share one run: one
 * host over the selected cases, one probe client over the selected probe requests.
 */
export async function defineCompactionSuite(): Promise<void> {
  const config = await loadConfig();
  const file = compactionCaseFile(config);
  const rows: CompactionRow[] = [...file.cases, ...file.probes];
  defineGroupedSuite<CompactionRow>({
    selection: inject('ahpSelection'),
    project: 'compaction',
    configFile: config.file,
    rows,
    groups: planCompactionPairs(loadAdapters(config), config.transports, config.pairings ?? undefined),
    expectedOf: (row) => row.expected,
    categoryOf: (row) => ('request' in row ? 'probe' : row.origin === 'rules' ? 'case' : 'case (ours)'),
    run: (group, selected) => runCompactionPair(group, selected, { file, schemasDir: config.schemas, runDir: inject('ahpRunDir'), logDir: path.join(config.reports, 'logs') }),
    parallelism: config.parallelism,
    // The probe's rows and the cases share the pair's receiver and receipt log; the rules run them as one.
    splittable: false,
    runBoundMs: RECEIVER_READY_MS + HOST_RUN_MS + PROBE_RUN_MS + 60_000,
    baseline: await baselineFor(config),
  });
}
