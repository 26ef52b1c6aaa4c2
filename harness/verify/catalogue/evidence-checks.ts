// The receiver's delivery evidence (CATALOGUE-RULES §6 (12)–(13)). From the fixture alone: each sent
// message of each row, in order, paired with its expected delivery, becomes the exact entry an honest
// receiver appends — `observed` for an accepted one, `rejected` with its errorKind otherwise. The
// receiver's non-discovery entries, in order, must be exactly that list. One mismatch is reported
// once, at the first differing entry, and charged to the row that entry belongs to.

import { observedEntry, rejectedEntry } from '../../catalogue/receipt-entries.ts';
import type { CatalogueScenario } from '../../catalogue/scenario-types.ts';
import { isJsonObject, jsonEqual, type JsonObject } from '../../protocol/json.ts';
import { jsonDiff } from '../../protocol/json-diff.ts';
import type { ProtocolValidators } from '../../protocol/validator-types.ts';
import type { Findings } from '../lifecycle/findings.ts';
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

/** (13): the receiver's entries other than discovery, in order, are exactly the expected ones. */
export function checkEvidence(entries: readonly JsonObject[], expected: readonly ExpectedEntry[], rows: readonly CatalogueScenario[], findings: Findings): void {
  const actual = entries.flatMap((entry, index) => (entry.kind === 'discovery' ? [] : [{ entry, index }]));
  const length = Math.max(actual.length, expected.length);
  for (let i = 0; i < length; i++) {
    const want = expected[i];
    const got = actual[i];
    if (want !== undefined && got !== undefined && jsonEqual(want.entry, got.entry)) continue;
    const position = `delivery entry ${i + 1} of ${expected.length} expected`;
    if (want === undefined) {
      const owner = rows.find((row) => row.expected.sent.some((message) => jsonEqual(message, got!.entry.message)));
      const message = `${position}: the receiver recorded an extra entries[${got!.index}] (${describeEntry(got!.entry)}) after every expected one`;
      findings.rowOrRun(owner?.id, CATALOGUE_LABEL.evidenceMismatch, 'client or server', owner === undefined ? message : `${message}; it carries a message of this row`);
    } else if (got === undefined) {
      findings.row(want.rowId, CATALOGUE_LABEL.evidenceMismatch, 'client or server', `${position}: the receiver recorded nothing for sent[${want.sentIndex}] of this row (expected ${describeEntry(want.entry)})`);
    } else {
      findings.row(
        want.rowId,
        CATALOGUE_LABEL.evidenceMismatch,
        'client or server',
        `${position}: entries[${got.index}] is not the expected ${describeEntry(want.entry)} for sent[${want.sentIndex}] of this row: ${jsonDiff(want.entry, got.entry).join('; ')}`,
      );
    }
    return;
  }
}

function describeEntry(entry: JsonObject): string {
  const kind = typeof entry.kind === 'string' ? entry.kind : 'entry';
  const suffix = entry.kind === 'rejected' ? ` (${String(entry.errorKind)})` : '';
  return `${kind}${suffix} of event ${JSON.stringify(entry.eventId ?? null)}`;
}
