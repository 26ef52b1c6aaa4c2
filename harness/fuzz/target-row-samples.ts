// The bookkeeping the fuzz logs of rows that are no disagreement share (host limitations, outcomes
// undefined by the protocol): per target, how many rows in how many batches, and a bounded sample of
// the rows, written as one replayable scenario file per target.

import type { Scenario } from '../scenarios/types.ts';
import { scenariosHash, writeScenarioSet } from './counterexample-file.ts';
import type { FuzzTarget } from './targets.ts';

/** Rows kept per target for its file. */
const KEPT_ROWS = 20;

export interface TargetRows {
  target: FuzzTarget;
  rows: number;
  batches: Set<number>;
  kept: Scenario[];
}

export class TargetRowSamples<Entry extends TargetRows> {
  private readonly byTarget = new Map<string, Entry>();

  constructor(private readonly fresh: (target: FuzzTarget) => Entry) {}

  /** Counts one row of `target` in `batch`, keeps `row()` while the sample has room; returns the entry. */
  add(target: FuzzTarget, batch: number, row: () => Scenario): Entry {
    const entry = this.byTarget.get(target.label) ?? this.fresh(target);
    this.byTarget.set(target.label, entry);
    entry.rows++;
    entry.batches.add(batch);
    if (entry.kept.length < KEPT_ROWS) entry.kept.push(row());
    return entry;
  }

  get empty(): boolean {
    return this.byTarget.size === 0;
  }

  /** Writes `<dir>/<pairing>-<kind>-<hash>.json` per target and maps each entry with the written file. */
  write<Report>(dir: string, kind: string, report: (entry: Entry, written: { file: string; configFile?: string }) => Report): Report[] {
    return [...this.byTarget.values()].map((entry) =>
      report(entry, writeScenarioSet(dir, `${entry.target.pairing}-${kind}-${scenariosHash(entry.kept)}`, entry.kept, entry.target)),
    );
  }
}
