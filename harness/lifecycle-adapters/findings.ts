// What the lifecycle verifier returns, and the collector its check modules write into. A failure
// that belongs to one scenario goes to that scenario's list; one that belongs to no single scenario
// (the client's exit, a broken report or receipt log, an entry no row can own) is a run failure.

import type { Party } from '../runs/verdicts.ts';

/** Who a lifecycle check charges: `client or server` when the evidence cannot tell them apart. */
export type LifecycleParty = Exclude<Party, 'harness'>;

export interface Check {
  /** The protocol runner's verbatim label (labels.ts). */
  label: string;
  /** Which entries, ids and paths are involved, in our own words. */
  message: string;
  /** `harness` only when the scenario file itself contradicts the rules (the catalogue's fixture checks). */
  party: Party;
}

export interface LifecycleVerification {
  /** Failures of the run as a whole; when present, no scenario of the run may pass. */
  runFailures: Check[];
  /** Every selected scenario id → its own failures (empty when it passed). */
  rows: Map<string, Check[]>;
}

export class Findings {
  readonly runFailures: Check[] = [];
  readonly rows = new Map<string, Check[]>();

  constructor(rowIds: Iterable<string>) {
    for (const id of rowIds) this.rows.set(id, []);
  }

  run(label: string, party: Party, message: string): void {
    this.runFailures.push({ label, message, party });
  }

  /** A failure of scenario `rowId`, which must be one of the selected rows. */
  row(rowId: string, label: string, party: Party, message: string): void {
    const list = this.rows.get(rowId);
    if (list === undefined) throw new Error(`verifier: ${JSON.stringify(rowId)} is not a selected scenario`);
    list.push({ label, message, party });
  }

  /** To the row when there is one, else a run failure (an entry no selected row owns). */
  rowOrRun(rowId: string | undefined, label: string, party: Party, message: string): void {
    if (rowId !== undefined && this.rows.has(rowId)) this.row(rowId, label, party, message);
    else this.run(label, party, message);
  }

  verification(): LifecycleVerification {
    return { runFailures: this.runFailures, rows: this.rows };
  }
}
