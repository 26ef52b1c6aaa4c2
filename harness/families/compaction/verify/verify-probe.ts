// The receiver rejection probe's verdicts (COMPACTION-RULES §9), one per probe request: the
// receiver answered it with JSON-RPC −32602 (inside an HTTP 200, or its one stdio line), and
// recorded no receipt for it. The requests travel through the sender's transport adapter, which
// validates nothing, so an accepted invalid request is the receiver's.

import { isJsonObject, jsonEqual } from '../../../protocol/json.ts';
import type { ProbeRequest } from '../case-types.ts';
import { LABEL, type CompactionCheck } from './labels.ts';
import { pyTuple } from './py-repr.ts';

export type ProbeClientOutcome =
  /** The client ran and printed its replies (parsed stdout). */
  | { ok: true; replies: unknown }
  /** The client could not be run, or failed: the whole probe fails with this check. */
  | { ok: false; check: CompactionCheck };

export interface ProbeEvidence {
  probes: readonly ProbeRequest[];
  client: ProbeClientOutcome;
  /** Receipt lines written while the probe ran (after the host run's). */
  receipts: readonly unknown[];
}

export function verifyProbe(evidence: ProbeEvidence): Map<string, CompactionCheck[]> {
  const rows = new Map<string, CompactionCheck[]>(evidence.probes.map((probe) => [probe.id, []]));
  const all = (check: CompactionCheck) => {
    for (const list of rows.values()) list.push(check);
  };
  // §8 step 6: the probe must leave the receipt count unchanged; a receipt is charged to the probe it records.
  const unclaimed: number[] = [];
  evidence.receipts.forEach((receipt, index) => {
    const request = isJsonObject(receipt) ? receipt.request : undefined;
    const probe = evidence.probes.find((p) => jsonEqual(p.request, request));
    if (probe) rows.get(probe.id)!.push({ label: LABEL.rejectedRecorded, party: 'receiver', message: `receipt line ${index + 1} records ${probe.id}, a request the receiver must reject without a receipt` });
    else unclaimed.push(index + 1);
  });
  if (unclaimed.length > 0) all({ label: LABEL.rejectedRecorded, party: 'receiver', message: `${unclaimed.length} receipt line(s) (${unclaimed.join(', ')}) were written while the probe ran` });

  if (!evidence.client.ok) {
    all(evidence.client.check);
    return rows;
  }
  const replies = evidence.client.replies;
  if (!Array.isArray(replies) || replies.length !== evidence.probes.length) {
    all({ label: LABEL.wire, party: 'either', message: `the probe client printed ${Array.isArray(replies) ? `${replies.length} replies` : 'no reply list'} for ${evidence.probes.length} requests` });
    return rows;
  }
  evidence.probes.forEach((probe, i) => {
    const reply = replies[i];
    const error = isJsonObject(reply) && isJsonObject(reply.error) ? reply.error : undefined;
    // typeof guards `true`, which a loose comparison would let pass as a code
    if (!error || typeof error.code !== 'number' || error.code !== probe.expected.errorCode) {
      rows.get(probe.id)!.push({ label: LABEL.acceptedInvalid, party: 'receiver', message: `${pyTuple('receiver accepted invalid request', reply)}: expected a JSON-RPC error with code ${probe.expected.errorCode} (${probe.description})` });
    }
  });
  return rows;
}
