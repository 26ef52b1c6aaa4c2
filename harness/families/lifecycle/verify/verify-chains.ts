// Observation chain rows (LIFECYCLE-RULES §7.8), each judged on the entries of its own request and
// event id: the client's result, the serial intercept calls with recomputed permission, the
// downgraded and explicit observations, the receiver's faithful records, and the causal order of
// replies, the interruption, the observers and the client's single `chain-settled` mark.
//
// §13: the older observation-chain-scenarios.json gives the interrupt row `holdObservers: true` and
// three observers; we follow lifecycle-scenarios.json and the current runner (no gate, no observers),
// so that old row could only fail here (`interruption initiated observation work`) — the suite does
// not run it (harness/families/lifecycle/unsatisfiable-rows.ts) rather than blame an adapter for it.

import { isJsonObject, jsonEqual, type JsonObject } from '../../../protocol/json.ts';
import { jsonDiff } from '../../../protocol/json-diff.ts';
import type { ProtocolValidators } from '../../../protocol/validator-types.ts';
import type { ChainScenario } from '../../../lifecycle-adapters/scenario-types.ts';
import { expectedChainRequests, explicitOmitForm, matchesChainWireForm } from './chain-expectations.ts';
import type { Findings } from '../../../lifecycle-adapters/findings.ts';
import { LABEL } from '../../../lifecycle-adapters/labels.ts';
import { CHAIN_RESULT_LABELS, checkResults } from './report-checks.ts';
import type { IndexedResult } from '../../../lifecycle-adapters/report-shape.ts';
import { describeEntries, describeEntry, eventOf, idKey, type LogEntry } from '../../../lifecycle-adapters/receipt-log.ts';

/** §6: an `observed` receipt has exactly these keys. */
const OBSERVED_KEYS = ['event', 'eventId', 'kind', 'message'];

export const CHAIN_RECEIPT_KINDS: readonly string[] = ['received', 'replied', 'cancelled', 'chain-settled', 'observed', 'observer-blocked'];

/** The key §7.0 and §7.8 split entries by: `id`, else `eventId`. */
export function chainEntryKey(e: LogEntry): string | undefined {
  return e.entry.id !== undefined ? idKey(e.entry.id) : idKey(e.entry.eventId);
}

/** The request and event id keys of a chain row. */
export function chainRowKeys(row: ChainScenario): Set<string> {
  const keys = new Set<string>();
  for (const request of Object.values(row.requests)) {
    for (const key of [idKey(request.id), idKey(request.params.event.id)]) if (key !== undefined) keys.add(key);
  }
  return keys;
}

export interface ChainInput {
  rows: readonly ChainScenario[];
  results: readonly IndexedResult[];
  /** The chain part of the receipt log. */
  entries: readonly LogEntry[];
  /** Why the client as a whole failed (non-zero exit, wrong language), if it did. */
  clientFailure: string | undefined;
  validators: Pick<ProtocolValidators, 'interceptRequest' | 'observeNotification'>;
}

export function verifyChains(input: ChainInput, findings: Findings): void {
  if (input.clientFailure !== undefined) findings.run(LABEL.chainClient, 'client', input.clientFailure);
  checkResults(input.rows, input.results, findings, CHAIN_RESULT_LABELS);
  for (const row of input.rows) {
    const keys = chainRowKeys(row);
    const own = input.entries.filter((e) => {
      const key = chainEntryKey(e);
      return key !== undefined && keys.has(key);
    });
    checkChainRow(row, own, input.validators, findings);
  }
}

function checkChainRow(row: ChainScenario, own: readonly LogEntry[], validators: ChainInput['validators'], findings: Findings): void {
  const of = (kind: string): LogEntry[] => own.filter((e) => e.kind === kind);
  const unknown = own.filter((e) => e.kind === undefined || !CHAIN_RECEIPT_KINDS.includes(e.kind));
  if (unknown.length > 0) findings.row(row.id, LABEL.unknownChainReceipt, 'client or server', `${describeEntries(unknown)}: a chain records only ${CHAIN_RECEIPT_KINDS.join(', ')}`);
  const received = of('received');
  const replied = of('replied');
  const cancelled = of('cancelled');
  const settled = of('chain-settled');
  const observed = of('observed');
  const blocked = of('observer-blocked');

  checkIntercepts(row, received, validators, findings);
  checkObservations(row, observed, validators, findings);
  for (const e of [...cancelled, ...settled]) {
    if (e.entry.scenario !== row.id) findings.row(row.id, LABEL.chainMilestoneScenario, 'client', `${describeEntry(e)} names scenario ${JSON.stringify(e.entry.scenario ?? null)}`);
  }

  const causal = (cancelled.at(-1) ?? replied.at(-1))?.index ?? -1;
  if (row.chain.holdObservers) {
    const expected = row.chainProof.observations.length;
    if (blocked.length !== expected || settled.length === 0 || blocked.some((e) => e.index < causal)) {
      findings.row(row.id, LABEL.blockedObserverProof, 'client or server', `expected ${expected} observer-blocked entries after the causal point entries[${causal}] and a chain-settled mark; got blocked ${describeEntries(blocked)}, settled ${describeEntries(settled)}`);
    }
  } else if (blocked.length > 0) {
    findings.row(row.id, LABEL.unexpectedObserverGate, 'client or server', `${describeEntries(blocked)} although the row does not hold observers`);
  }

  if (replied.length !== received.length || received.some((r, k) => (replied[k]?.index ?? Infinity) < r.index)) {
    findings.row(row.id, LABEL.chainResponseOrder, 'server', `each receipt needs one later reply; received ${describeEntries(received)}, replied ${describeEntries(replied)}`);
  }
  const early = observed.filter((e) => e.index < causal);
  if (settled.length !== 1 || early.length > 0) {
    const parts = [
      ...(settled.length !== 1 ? [`${settled.length} chain-settled marks (${describeEntries(settled)}), expected exactly one`] : []),
      ...(early.length > 0 ? [`${describeEntries(early)} precede the causal point entries[${causal}]`] : []),
    ];
    findings.row(row.id, LABEL.observationBeforeChainSettlement, 'client', parts.join('; '));
  }
  received.forEach((_received, k) => {
    const reply = replied[k];
    const next = received[k + 1];
    if (reply !== undefined && next !== undefined && reply.index > next.index) {
      findings.row(row.id, LABEL.notSerial, 'client', `call ${k + 2} (${describeEntry(next)}) was sent before call ${k + 1} was answered (${describeEntry(reply)})`);
    }
  });

  if (row.chain.interrupt) {
    const order = [received[0], cancelled[0], settled[0], replied[0]];
    const inOrder = cancelled.length === 1 && order.every((e, i) => e !== undefined && (i === 0 || (order[i - 1] as LogEntry).index < e.index));
    if (!inOrder) {
      findings.row(row.id, LABEL.interruptionWaited, 'client', `needs one cancel and received < cancelled < chain-settled < replied; got received ${describeEntries(received)}, cancelled ${describeEntries(cancelled)}, settled ${describeEntries(settled)}, replied ${describeEntries(replied)}`);
    }
    if (observed.length > 0 || blocked.length > 0) findings.row(row.id, LABEL.interruptionObserved, 'client', `${describeEntries([...observed, ...blocked])} after an interruption`);
  } else {
    if (cancelled.length > 0) findings.row(row.id, LABEL.unexpectedInterruption, 'client', `${describeEntries(cancelled)} in a chain that is not interrupted`);
    const lastReply = replied.at(-1);
    const marker = settled[0];
    if (lastReply !== undefined && marker !== undefined && lastReply.index > marker.index) {
      findings.row(row.id, LABEL.settledBeforeResponse, 'client', `${describeEntry(marker)} precedes the last reply ${describeEntry(lastReply)}`);
    }
  }
}

/**
 * The intercept calls, one for one and in order, against chainProof.requests with recomputed
 * permission; each in either wire form of an empty view (§7.8, as for observations).
 */
function checkIntercepts(row: ChainScenario, received: readonly LogEntry[], validators: ChainInput['validators'], findings: Findings): void {
  const expected = expectedChainRequests(row);
  if (received.length !== expected.length) {
    findings.row(row.id, LABEL.chainIntercept, 'client or server', `${expected.length} intercept call(s) expected, ${received.length} received (${describeEntries(received)})`);
  }
  received.forEach((e, k) => {
    const want = expected[k];
    if (want !== undefined && !matchesChainWireForm(e.entry.message, want, row)) {
      // The diff is against the empty view; when the proof's view is empty the explicit omit form was tried too.
      const also = explicitOmitForm(want, row) === undefined ? '' : ' (nor is it the explicit omit form of the original items)';
      findings.row(row.id, LABEL.chainIntercept, 'client or server', `${describeEntry(e)} is not call ${k + 1}${also}: ${jsonDiff(want, e.entry.message).join('; ')}`);
    }
    const schema = validators.interceptRequest(e.entry.message);
    if (!schema.valid) findings.row(row.id, LABEL.chainIntercept, 'client or server', `${describeEntry(e)} message fails the intercept request schema: ${schema.errors.join('; ')}`);
  });
}

/** The observations as a multiset against chainProof.observations; each receipt faithful to its message. */
function checkObservations(row: ChainScenario, observed: readonly LogEntry[], validators: ChainInput['validators'], findings: Findings): void {
  const expected = row.chainProof.observations as unknown as JsonObject[];
  const used = new Set<number>();
  const unmatched: LogEntry[] = [];
  for (const e of observed) {
    const k = expected.findIndex((want, i) => !used.has(i) && matchesChainWireForm(e.entry.message, want, row));
    if (k < 0) unmatched.push(e);
    else used.add(k);
  }
  const missing = expected.map((_, i) => i).filter((i) => !used.has(i));
  if (unmatched.length > 0 || missing.length > 0) {
    const parts = [
      ...(unmatched.length > 0 ? [`${describeEntries(unmatched)} match no expected observation`] : []),
      ...(missing.length > 0 ? [`chainProof.observations[${missing.join(', ')}] not observed`] : []),
    ];
    findings.row(row.id, LABEL.chainObservation, 'client or server', parts.join('; '));
  }
  for (const e of observed) {
    const event = eventOf(e.entry.message);
    const keys = Object.keys(e.entry).sort();
    if (event === undefined || e.entry.eventId !== event.id || !jsonEqual(e.entry.event, event) || !jsonEqual(keys, OBSERVED_KEYS)) {
      findings.row(row.id, LABEL.chainReceiptWire, 'server', `${describeEntry(e)}: eventId/event differ from its message's params.event, or its keys ${JSON.stringify(keys)} are not exactly ${JSON.stringify(OBSERVED_KEYS)}`);
    }
    const schema = isJsonObject(e.entry.message) ? validators.observeNotification(e.entry.message) : { valid: false, errors: ['no message object'] };
    if (!schema.valid) findings.row(row.id, LABEL.chainObservation, 'client or server', `${describeEntry(e)} message fails the observe notification schema: ${schema.errors.join('; ')}`);
  }
}
