// SDK-driven uploads (LIFECYCLE-RULES §5, §7.3): an SDK may upload a content source itself while it
// delivers a message; each such upload is confirmed by one top-level `report.contentUploads` entry.
// A confirmation must be well-formed, name exactly one delivery that carries its ref, and be backed
// by its own earlier 201 receiver upload receipt, which it consumes so that §7.4 never pairs it with
// an upload step. Per §13 the confirmations are read from the top level of the report, not from the
// results (where the core TypeScript client puts them).

import { isJsonObject, jsonEqual } from '../../../protocol/json.ts';
import { describeValue } from '../../../protocol/json-text.ts';
import type { ProtocolValidators } from '../../../protocol/validator-types.ts';
import type { EntryOwners } from './entry-owners.ts';
import type { Findings } from '../../../lifecycle-adapters/findings.ts';
import { LABEL } from '../../../lifecycle-adapters/labels.ts';
import { describeEntries, describeEntry, eventOf, type LogEntry } from '../../../lifecycle-adapters/receipt-log.ts';

export type DeliveryMethod = 'hooks/intercept' | 'hooks/observe';

export interface Confirmation {
  /** Position in `report.contentUploads`. */
  index: number;
  method: DeliveryMethod;
  eventId: string;
  descriptor: { ref: string; size: number; sha256: string };
  sourceRef: string;
  /** The scenario whose event it names, when one is selected. */
  rowId: string | undefined;
}

export interface ConfirmationOutcome {
  /** The well-formed confirmations, in report order. */
  confirmations: Confirmation[];
  /** Log positions of the upload receipts the confirmations consumed. */
  consumedUploads: Set<number>;
}

const METHODS: readonly unknown[] = ['hooks/intercept', 'hooks/observe'];
const DESCRIPTOR_KEYS = ['ref', 'sha256', 'size'];

/** `undefined` when (14) fails: the caller stops, since every later check would repeat the damage. */
export function checkConfirmations(
  contentUploads: unknown,
  entries: readonly LogEntry[],
  owners: EntryOwners,
  validators: Pick<ProtocolValidators, 'contentUploadReceipt'>,
  findings: Findings,
): ConfirmationOutcome | undefined {
  const outcome: ConfirmationOutcome = { confirmations: [], consumedUploads: new Set() };
  if (contentUploads === undefined) return outcome;
  if (!Array.isArray(contentUploads)) {
    findings.run(LABEL.malformedConfirmations, 'client', `report.contentUploads is ${describeValue(contentUploads)}, expected an array`);
    return undefined;
  }
  const bad = contentUploads.findIndex((c) => !isJsonObject(c));
  if (bad >= 0) {
    findings.run(LABEL.malformedConfirmations, 'client', `report.contentUploads[${bad}] is ${describeValue(contentUploads[bad])}, expected an object`);
    return undefined;
  }
  contentUploads.forEach((value, index) => {
    const confirmation = readConfirmation(value as Record<string, unknown>, index, owners, validators, findings);
    if (confirmation === undefined) return;
    outcome.confirmations.push(confirmation);
    consumeReceipt(confirmation, entries, outcome.consumedUploads, findings);
  });
  return outcome;
}

/** (15) the confirmation's shape; `undefined` (after reporting) when malformed. */
function readConfirmation(
  value: Record<string, unknown>,
  index: number,
  owners: EntryOwners,
  validators: Pick<ProtocolValidators, 'contentUploadReceipt'>,
  findings: Findings,
): Confirmation | undefined {
  const at = `report.contentUploads[${index}]`;
  const rowId = owners.ofEvent(value.eventId);
  const problems: string[] = [];
  if (!METHODS.includes(value.method)) problems.push(`method is ${describeValue(value.method)}, expected "hooks/intercept" or "hooks/observe"`);
  if (typeof value.eventId !== 'string') problems.push(`eventId is ${describeValue(value.eventId)}, expected a string`);
  if (typeof value.sourceRef !== 'string') problems.push(`sourceRef is ${describeValue(value.sourceRef)}, expected a string`);
  const descriptor = value.descriptor;
  if (!isJsonObject(descriptor)) {
    problems.push(`descriptor is ${describeValue(descriptor)}, expected {ref,size,sha256}`);
  } else {
    const keys = Object.keys(descriptor).sort();
    if (!jsonEqual(keys, DESCRIPTOR_KEYS)) problems.push(`descriptor has keys ${JSON.stringify(keys)}, expected exactly ["ref","sha256","size"]`);
    if (typeof descriptor.ref !== 'string' || descriptor.ref === '') problems.push(`descriptor.ref is ${describeValue(descriptor.ref)}, expected a non-empty string`);
    if (!Number.isInteger(descriptor.size)) problems.push(`descriptor.size is ${describeValue(descriptor.size)}, expected an integer`);
    if (typeof descriptor.sha256 !== 'string') problems.push(`descriptor.sha256 is ${describeValue(descriptor.sha256)}, expected a string`);
    if (problems.length === 0) problems.push(...validators.contentUploadReceipt(descriptor).errors.map((e) => `descriptor schema: ${e}`));
  }
  if (problems.length > 0) {
    findings.rowOrRun(rowId, LABEL.malformedConfirmation, 'client', `${at}: ${problems.join('; ')}`);
    return undefined;
  }
  const d = descriptor as { ref: string; size: number; sha256: string };
  return {
    index,
    method: value.method as DeliveryMethod,
    eventId: value.eventId as string,
    descriptor: { ref: d.ref, size: d.size, sha256: d.sha256 },
    sourceRef: value.sourceRef as string,
    rowId,
  };
}

/**
 * (16) exactly one delivery — a `received` (intercept) or `observed` (observe) entry of that method
 * and event id with an item body equal to `{ref: descriptor.ref}` — and (17) a 201 upload receipt
 * before it with the descriptor's ref, size and digest that no other confirmation consumed (the
 * latest one is consumed). A matching receipt that is not before its delivery (or whose delivery
 * cannot be identified) is consumed all the same after the failure is reported, so that the upload
 * checks do not count it again.
 */
function consumeReceipt(c: Confirmation, entries: readonly LogEntry[], consumed: Set<number>, findings: Findings): void {
  const at = `report.contentUploads[${c.index}]`;
  const kind = c.method === 'hooks/intercept' ? 'received' : 'observed';
  const deliveries = entries.filter((e) => {
    if (e.kind !== kind || !isJsonObject(e.entry.message) || e.entry.message.method !== c.method) return false;
    const event = eventOf(e.entry.message);
    if (event === undefined || event.id !== c.eventId || !Array.isArray(event.items)) return false;
    return event.items.some((item) => isJsonObject(item) && jsonEqual(item.body, { ref: c.descriptor.ref }));
  });
  const delivery = deliveries.length === 1 ? deliveries[0] : undefined;
  if (delivery === undefined) {
    findings.rowOrRun(
      c.rowId,
      LABEL.deliveryIdentity,
      'client',
      `${at} (${c.method}, event ${JSON.stringify(c.eventId)}, ref ${JSON.stringify(c.descriptor.ref)}) matches ${deliveries.length} ${kind} deliveries carrying that body (${describeEntries(deliveries)}), expected exactly one`,
    );
  }
  const matching = entries.filter(
    (e) =>
      e.kind === 'upload' &&
      !consumed.has(e.index) &&
      e.entry.status === 201 &&
      e.entry.ref === c.descriptor.ref &&
      e.entry.size === c.descriptor.size &&
      e.entry.sha256 === c.descriptor.sha256,
  );
  const before = delivery?.index ?? Number.POSITIVE_INFINITY;
  const prior = matching.filter((e) => e.index < before).at(-1);
  if (prior === undefined && delivery !== undefined) {
    findings.rowOrRun(
      c.rowId,
      LABEL.priorConfirmation,
      'client or server',
      `${at}: no unconsumed 201 upload receipt with ref ${JSON.stringify(c.descriptor.ref)}, size ${c.descriptor.size} and sha256 ${c.descriptor.sha256} precedes its delivery ${describeEntry(delivery)}${matching.length > 0 ? ` (${describeEntries(matching)} come${matching.length === 1 ? 's' : ''} after it)` : ''}`,
    );
  }
  // A matching receipt is consumed even when it came too late, so that §7.4 does not count the
  // same upload again and shift every pair after it.
  const receipt = prior ?? matching[0];
  if (receipt !== undefined) consumed.add(receipt.index);
}
