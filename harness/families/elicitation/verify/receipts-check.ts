// The exact receipts (rules §9 items 10-11), case by case: each entry's receipts, in order, must Equal
// the envelopes it actually delivered, the selected bodies' bytes and the summaries with the run's
// principal. An entry that already failed is not judged again here; a receipt for no delivered event,
// or receipts of passing entries in the wrong order, fail the pair. What arrived also tells who is at
// fault for a raw step that was accepted when it should have been refused.

import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../../protocol/json.ts';
import { jsonDiff } from '../../../protocol/json-diff.ts';
import { parseJsonText } from '../../../protocol/json-text.ts';
import type { CheckFailure, Party, ProcessOutcome } from '../case-types.ts';
import type { StepRecord } from '../pair-ledger.ts';
import type { WireEntry } from '../plan-steps.ts';
import { withPrincipal } from '../receipt-summary.ts';
import { LABELS, statusLabel } from './labels.ts';
import { readSenderResult } from './sender-result.ts';

export interface ReceiptsVerdict {
  /** Entry id → its receipt failures. */
  entries: Map<string, CheckFailure[]>;
  pairFaults: CheckFailure[];
}

interface Expected {
  eventId: string;
  receipt: JsonObject;
}

function eventIdOf(receipt: JsonValue): string | undefined {
  if (!isJsonObject(receipt) || !isJsonObject(receipt.message)) return undefined;
  const params = receipt.message.params;
  const id = isJsonObject(params) && isJsonObject(params.event) ? params.event.id : undefined;
  return typeof id === 'string' ? id : undefined;
}

/** The receipts each passing entry must have left, from its records, in transmission order. */
function expectedReceipts(entry: WireEntry, records: readonly StepRecord[], principal: string): Expected[] {
  const expected: Expected[] = [];
  let k = 0;
  for (const record of records) {
    if (record.step.kind !== 'intercept' || record.step.expectStatus !== 200) continue;
    const planned = entry.receipts[k++];
    if (planned === undefined || record.delivered === undefined) continue;
    expected.push({ eventId: planned.eventId, receipt: { message: record.delivered, bytes: planned.bytes, summary: withPrincipal(planned.summary, principal) } });
  }
  return expected;
}

function receiptDifference(expected: JsonObject, actual: JsonValue): { party: Party; lines: string[] } {
  const got = isJsonObject(actual) ? actual : {};
  if (!jsonEqual(expected.message, got.message)) {
    // The sender may have altered the envelope, or the receiver may have recorded another one.
    return { party: 'either', lines: jsonDiff(expected.message, got.message).map((line) => `message: ${line}`) };
  }
  return { party: 'receiver', lines: jsonDiff(expected, actual) };
}

export function checkReceipts(
  entries: readonly WireEntry[],
  records: readonly StepRecord[],
  failedIds: ReadonlySet<string>,
  outcome: ProcessOutcome | undefined,
  principal: string,
  command: string,
): ReceiptsVerdict {
  const verdict: ReceiptsVerdict = { entries: new Map(), pairFaults: [] };
  const add = (id: string, failure: CheckFailure) => verdict.entries.set(id, [...(verdict.entries.get(id) ?? []), failure]);
  const recordsOf = (id: string) => records.filter((record) => record.origin.caseId === id);
  const judged = entries.filter((entry) => recordsOf(entry.id).length > 0);

  const unavailable = (label: string, party: Party, evidence: string): ReceiptsVerdict => {
    verdict.pairFaults.push({ caseId: null, label, party, evidence: `/receipts: ${evidence}` });
    for (const entry of judged) {
      if (!failedIds.has(entry.id) && entry.receipts.length > 0) add(entry.id, { caseId: entry.id, label: LABELS.receiptsDiffer, party, evidence: `the receipts could not be read (${label}: ${evidence})` });
    }
    return verdict;
  };
  if (outcome === undefined) return unavailable(LABELS.receiptsDiffer, 'either', 'the receipts were never read');
  const read = readSenderResult(outcome, command);
  if (!read.ok) return unavailable(read.label, read.party, read.evidence);
  if (read.status !== 200) return unavailable(statusLabel('/receipts', 200, read.status), 'receiver', read.body.slice(0, 300));
  const parsed = parseJsonText(read.body);
  if (!parsed.ok || !Array.isArray(parsed.value)) return unavailable(LABELS.receiptsDiffer, 'receiver', `the body is not a JSON array: ${read.body.slice(0, 200)}`);
  const actual = parsed.value as JsonValue[];

  const owner = new Map<string, string>();
  for (const record of records) if (record.step.kind === 'intercept') owner.set(record.step.eventId, record.origin.caseId);
  const actualBy = new Map<string, JsonValue[]>();
  actual.forEach((receipt, i) => {
    const id = eventIdOf(receipt);
    const entryId = id === undefined ? undefined : owner.get(id);
    if (entryId === undefined) {
      verdict.pairFaults.push({ caseId: null, label: LABELS.receiptsDiffer, party: 'receiver', evidence: `receipt ${i} is for no event this pair sent (event id ${JSON.stringify(id)})` });
      return;
    }
    actualBy.set(entryId, [...(actualBy.get(entryId) ?? []), receipt]);
  });

  refineRawStepParties(records, actual);

  const order: { wanted: string[]; got: string[] } = { wanted: [], got: [] };
  const passing = new Set<string>();
  for (const entry of judged) {
    if (failedIds.has(entry.id)) continue;
    const expected = expectedReceipts(entry, recordsOf(entry.id), principal);
    const got = actualBy.get(entry.id) ?? [];
    const fail = (party: Party, evidence: string) => add(entry.id, { caseId: entry.id, label: LABELS.receiptsDiffer, party, evidence });
    if (got.length !== expected.length) {
      fail('receiver', `expected ${expected.length} receipt(s) [${expected.map((e) => e.eventId).join(', ')}], got ${got.length} [${got.map((r) => String(eventIdOf(r))).join(', ')}]`);
      continue;
    }
    let same = true;
    expected.forEach((wanted, k) => {
      if (jsonEqual(wanted.receipt, got[k])) return;
      same = false;
      const { party, lines } = receiptDifference(wanted.receipt, got[k] as JsonValue);
      fail(party, `receipt ${k} (${wanted.eventId}): ${lines.join('; ')}`);
    });
    if (same) passing.add(entry.id);
  }
  for (const record of records) {
    if (passing.has(record.origin.caseId) && record.step.kind === 'intercept' && record.step.expectStatus === 200) order.wanted.push(record.step.eventId);
  }
  for (const receipt of actual) {
    const id = eventIdOf(receipt);
    if (id !== undefined && passing.has(owner.get(id) ?? '')) order.got.push(id);
  }
  if (!jsonEqual(order.wanted, order.got)) {
    verdict.pairFaults.push({ caseId: null, label: LABELS.receiptsDiffer, party: 'receiver', evidence: `receipts are not in append order: expected [${order.wanted.join(', ')}], got [${order.got.join(', ')}]` });
  }
  return verdict;
}

/**
 * A raw step (expected ≠ 200) that was accepted: if the receiver recorded exactly the planned envelope
 * it accepted what it should have refused; if it recorded another one, the sender changed the bytes.
 */
function refineRawStepParties(records: readonly StepRecord[], actual: readonly JsonValue[]): void {
  for (const record of records) {
    if (record.step.kind !== 'intercept' || record.step.expectStatus === 200 || record.status !== 200) continue;
    const eventId = record.step.eventId;
    const arrived = actual.filter((receipt) => eventIdOf(receipt) === eventId).map((receipt) => (isJsonObject(receipt) ? receipt.message : undefined));
    if (arrived.length === 0) continue;
    const party: Party = arrived.some((message) => jsonEqual(message, record.planned)) ? 'receiver' : 'sender';
    for (const failure of record.failures) {
      failure.party = party;
      failure.evidence += party === 'receiver' ? '; the receiver recorded exactly the planned envelope' : '; the receiver recorded an envelope other than the planned one';
    }
  }
}
