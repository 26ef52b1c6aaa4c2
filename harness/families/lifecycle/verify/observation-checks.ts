// LIFECYCLE-RULES §7.6: the receiver's `observed` entries are exactly the notifications the observe
// steps send, in step order — `{kind, eventId, event, message}` with the settled input, the step's
// items, refs rewritten, and no JSON-RPC id or decision — and every one is a valid notification.
// Per §13 observers may run in any order under the spec, but here the entries must follow the steps.

import { isJsonObject, jsonEqual, type JsonObject } from '../../../protocol/json.ts';
import { jsonDiff } from '../../../protocol/json-diff.ts';
import type { ProtocolValidators } from '../../../protocol/validator-types.ts';
import type { EntryOwners } from './entry-owners.ts';
import type { ExpectedDelivery } from './expected-deliveries.ts';
import type { Findings } from '../../../lifecycle-adapters/findings.ts';
import { LABEL } from '../../../lifecycle-adapters/labels.ts';
import { describeEntries, describeEntry, eventOf, type LogEntry } from '../../../lifecycle-adapters/receipt-log.ts';
import type { RowPlan } from './row-plan.ts';

/** The receipt an honest receiver records for an expected notification. */
export function observedReceiptFor(message: JsonObject): JsonObject {
  const event = eventOf(message) ?? {};
  return { kind: 'observed', eventId: event.id ?? null, event, message };
}

export function checkObservations(
  plans: readonly RowPlan[],
  deliveries: readonly ExpectedDelivery[],
  entries: readonly LogEntry[],
  owners: EntryOwners,
  validators: Pick<ProtocolValidators, 'observeNotification'>,
  findings: Findings,
): void {
  const observed = entries.filter((e) => e.kind === 'observed');
  const unowned = observed.filter((e) => owners.ownerOf(e) === undefined);
  if (unowned.length > 0) findings.run(LABEL.observationMismatch, 'client or server', `${describeEntries(unowned)} name no event of a selected scenario`);

  for (const plan of plans) {
    const rowId = plan.row.id;
    const expected = deliveries.filter((d) => d.rowId === rowId && d.kind === 'observed');
    const actual = observed.filter((e) => owners.ownerOf(e) === rowId);
    if (actual.length !== expected.length) {
      findings.row(rowId, LABEL.observationMismatch, 'client or server', `${expected.length} observe step(s) but ${actual.length} observed entr${actual.length === 1 ? 'y' : 'ies'} (${describeEntries(actual)})`);
    }
    actual.forEach((e, k) => {
      const want = expected[k];
      if (want === undefined) return;
      const receipt = observedReceiptFor(want.message);
      if (!jsonEqual(e.entry, receipt)) {
        findings.row(rowId, LABEL.observationMismatch, 'client or server', `${describeEntry(e)} is not the notification of steps[${want.stepIndex}]: ${jsonDiff(receipt, e.entry).join('; ')}`);
      }
    });
  }

  for (const e of observed) {
    const owner = owners.ownerOf(e);
    const message = e.entry.message;
    if (!isJsonObject(message) || !isJsonObject(message.params)) {
      findings.rowOrRun(owner, LABEL.observationParamsMissing, 'client or server', `${describeEntry(e)} has no message.params object`);
      continue;
    }
    const schema = validators.observeNotification(message);
    if (!schema.valid) findings.rowOrRun(owner, LABEL.observationMismatch, 'client or server', `${describeEntry(e)} message fails the observe notification schema: ${schema.errors.join('; ')}`);
  }
}
