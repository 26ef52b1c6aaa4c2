// Elicitation family cost: each configured pair run directly (no vitest around it), its wall time,
// how many sender processes it started and the share of the pair's time spent inside them — the
// per-step processes dominate this family (219 of them per pair by the rules). The time a bare
// sender process takes to start and exit is measured beside it, from the pair's own unauthenticated
// probe (one process, one HTTP request): its median times the step count is what starting costs.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { elicitationCaseFile, loadConfig } from '../harness/config/load-config.ts';
import { elicitationRows } from '../harness/families/elicitation/case-rows.ts';
import { loadElicitationCaseFile } from '../harness/families/elicitation/load-elicitation-cases.ts';
import { planElicitationPairs } from '../harness/families/elicitation/pairs.ts';
import { runElicitationPair, type PairMeasures } from '../harness/families/elicitation/run.ts';
import { isRunnable, loadAdapters } from '../harness/runs/plan.ts';
import { formatDuration, type Bench } from './lib/measure.ts';

const PROBE_RUNS = 7;

export const elicitationBench: Bench = {
  name: 'elicitation',
  async run(out) {
    out.section('Elicitation: time per pair, and the share spent in sender processes');
    const config = await loadConfig();
    const file = await loadElicitationCaseFile(elicitationCaseFile(config));
    const ids = elicitationRows(file).map((row) => row.id);
    const probeId = file.probes.find((probe) => probe.kind === 'unauthenticated-receipts')?.id;
    const runDir = mkdtempSync(path.join(os.tmpdir(), 'ahp-bench-elicitation-'));
    try {
      const options = { file, schemaDir: config.schemas, runDir, logDir: path.join(runDir, 'logs'), watchdogs: config.watchdogs };
      for (const group of planElicitationPairs(loadAdapters(config), config.pairings).filter(isRunnable)) {
        const full = await runElicitationPair(group, ids, options);
        const measures = measuresOf(full.rows);
        const failed = [...full.rows.values()].filter((row) => row.verdict !== 'passed').length;
        const probeMs: number[] = [];
        for (let i = 0; probeId !== undefined && i < PROBE_RUNS; i++) {
          const probe = measuresOf((await runElicitationPair(group, [probeId], options)).rows);
          if (probe) probeMs.push(probe.senderProcessMs);
        }
        if (!measures) {
          out.line(`  ${group.label}: no measures (the pair did not run)`);
          continue;
        }
        const startMs = median(probeMs);
        out.line(`  ${group.label}: ${formatDuration(measures.pairMs)} for ${ids.length} tests (${failed} not passed)`);
        out.line(`    ${measures.senderRuns} sender processes, ${formatDuration(measures.senderProcessMs)} in them: ${percent(measures.senderProcessMs, measures.pairMs)} of the pair`);
        out.line(`    one bare sender process (median of ${probeMs.length} probe runs): ${formatDuration(startMs)}; × ${measures.senderRuns} = ${percent(startMs * measures.senderRuns, measures.pairMs)} of the pair spent starting senders`);
      }
    } finally {
      rmSync(runDir, { recursive: true, force: true });
    }
  },
};

function measuresOf(rows: Map<string, { details?: Record<string, unknown> }>): PairMeasures | undefined {
  for (const row of rows.values()) if (row.details?.pair) return row.details.pair as PairMeasures;
  return undefined;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function percent(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(0)} %` : 'n/a';
}
