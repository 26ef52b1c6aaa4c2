// The receiver's delivery evidence (CATALOGUE-RULES §6 (12)–(13)). From the fixture alone: each sent
// message of each row, in order, paired with its expected delivery, becomes the exact entry an honest
// receiver appends — `observed` for an accepted one, `rejected` with its errorKind otherwise. The
// receiver's non-discovery entries, in order, must be exactly that list (upstream reports one label
// for the group). Here every difference is charged to the row it touches, the label once per row,
// or to the run when no row owns it, so a lie fails exactly the rows whose evidence it changed.

import { observedEntry, rejectedEntry } from '../receipt-entries.ts';
import type { CatalogueScenario } from '../scenario-types.ts';
import { isJsonObject, jsonEqual, type JsonObject } from '../../../protocol/json.ts';
import { jsonDiff } from '../../../protocol/json-diff.ts';
import type { ProtocolValidators } from '../../../protocol/validator-types.ts';
import type { Findings } from '../../../lifecycle-adapters/findings.ts';
import { alignmentGaps } from './entry-alignment.ts';
import { CATALOGUE_LABEL, schemaErrorLabel } from './labels.ts';

export type EvidenceValidators = Pick<ProtocolValidators, 'observeNotification'>;

interface ExpectedEntry {
  rowId: string;
  /** `sent[k]` of that row. */
  sentIndex: number;
  entry: JsonObject;
}

/** (12): the entries the fixture expects, in order; a message expected accepted must itself be a valid observation. */
export function expectedEvidence(rows: readonly CatalogueScenario[], validators: EvidenceValidators, findings: Findings): ExpectedEntry[] {
  const expected: ExpectedEntry[] = [];
  for (const row of rows) {
    row.expected.sent.forEach((message, k) => {
      const delivery = row.expected.deliveries[k];
      if (delivery === undefined || delivery.accepted) {
        if (!isJsonObject(message.params)) {
          findings.row(row.id, CATALOGUE_LABEL.observationParamsMissing, 'harness', `the fixture expects sent[${k}] to be observed, but its params is not an object`);
        }
        for (const error of validators.observeNotification(message).errors) {
          findings.row(row.id, schemaErrorLabel(error), 'harness', `the fixture expects sent[${k}] to be observed, but it is not a valid hooks/observe notification: ${error}`);
        }
        expected.push({ rowId: row.id, sentIndex: k, entry: observedEntry(message) as unknown as JsonObject });
      } else {
        expected.push({ rowId: row.id, sentIndex: k, entry: rejectedEntry(message, delivery.errorKind ?? 'schema') as unknown as JsonObject });
      }
    });
  }
  return expected;
}

/**
 * (13): the receiver's entries other than discovery, in order, are exactly the expected ones. The
 * lists are aligned (entry-alignment.ts) and every difference is charged where it belongs: a
 * missing, altered or misplaced entry to the row that expects it, an extra one to the row whose
 * message it carries, or to the run when it carries none. Each row, and the run, gets the label
 * once, with its differences in order.
 */
export function checkEvidence(entries: readonly JsonObject[], expected: readonly ExpectedEntry[], rows: readonly CatalogueScenario[], findings: Findings): void {
  const actual = entries.flatMap((entry, index) => (entry.kind === 'discovery' ? [] : [{ entry, index }]));
  const gaps = alignmentGaps(
    expected.map((want) => want.entry),
    actual.map((got) => got.entry),
    jsonEqual,
  );
  const problems = new Map<string | undefined, string[]>();
  const charge = (rowId: string | undefined, problem: string): void => {
    problems.set(rowId, [...(problems.get(rowId) ?? []), problem]);
  };
  const position = (k: number): string => `delivery entry ${k + 1} of ${expected.length} expected`;
  const missing: number[] = [];
  const extra: number[] = [];
  for (const gap of gaps) {
    // Within one gap, entries on both sides stand in for each other, in order: altered ones.
    const paired = Math.min(gap.expected.length, gap.actual.length);
    for (let p = 0; p < paired; p++) {
      const want = expected[gap.expected[p]!]!;
      const got = actual[gap.actual[p]!]!;
      charge(
        want.rowId,
        `${position(gap.expected[p]!)}: entries[${got.index}] is not the expected ${describeEntry(want.entry)} for sent[${want.sentIndex}] of this row: ${jsonDiff(want.entry, got.entry).join('; ')}`,
      );
    }
    missing.push(...gap.expected.slice(paired));
    extra.push(...gap.actual.slice(paired));
  }
  for (const k of missing) {
    const want = expected[k]!;
    // An entry missing here and extra elsewhere was recorded, but out of order.
    const moved = extra.findIndex((a) => jsonEqual(actual[a]!.entry, want.entry));
    if (moved >= 0) {
      const got = actual[extra.splice(moved, 1)[0]!]!;
      charge(want.rowId, `${position(k)}: the expected ${describeEntry(want.entry)} for sent[${want.sentIndex}] of this row is recorded out of order, at entries[${got.index}]`);
    } else {
      charge(want.rowId, `${position(k)}: the receiver recorded nothing for sent[${want.sentIndex}] of this row (expected ${describeEntry(want.entry)})`);
    }
  }
  for (const a of extra) {
    const got = actual[a]!;
    const owner = rows.find((row) => row.expected.sent.some((message) => jsonEqual(message, got.entry.message)));
    const problem = `the receiver recorded an extra entries[${got.index}] (${describeEntry(got.entry)}) that no expected entry accounts for`;
    charge(owner?.id, owner === undefined ? problem : `${problem}; it carries a message of this row`);
  }
  for (const [rowId, list] of problems) findings.rowOrRun(rowId, CATALOGUE_LABEL.evidenceMismatch, 'client or server', list.join('; '));
}

function describeEntry(entry: JsonObject): string {
  const kind = typeof entry.kind === 'string' ? entry.kind : 'entry';
  const suffix = entry.kind === 'rejected' ? ` (${String(entry.errorKind)})` : '';
  return `${kind}${suffix} of event ${JSON.stringify(entry.eventId ?? null)}`;
}
