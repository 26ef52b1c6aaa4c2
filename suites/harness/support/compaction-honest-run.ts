// A synthetic honest compaction run, built from the case file's own expectations: what a correct
// host prints and a correct receiver records. The verifier self-tests start from it and break one
// thing at a time, so each check is shown to pass the honest run and to catch its lie.

import type { CompactionCase, CompactionCaseFile, ReceiverAction } from '../../../harness/families/compaction/case-types.ts';
import { canonicalRequest } from '../../../harness/families/compaction/canonical-request.ts';
import { receiverEffects } from '../../../harness/families/compaction/simulate.ts';
import { subscriptionConfig } from '../../../harness/families/compaction/subscriptions.ts';
import { textParts } from '../../../harness/families/compaction/text-parts.ts';
import type { HostEvidence } from '../../../harness/families/compaction/verify/verify-host.ts';
import type { StdioWireRecord } from '../../../harness/families/compaction/verify/wire-record.ts';
import type { JsonObject } from '../../../harness/protocol/json.ts';

export interface HonestRun extends HostEvidence {
  outputs: JsonObject[];
  receipts: JsonObject[];
  wire: StdioWireRecord[];
}

export function honestRun(file: CompactionCaseFile, ids?: readonly string[]): HonestRun {
  const cases = ids ? file.cases.filter((c) => ids.includes(c.id)) : file.cases;
  const subscriptions: Record<string, ReceiverAction> = subscriptionConfig(cases);
  const receipts: JsonObject[] = [];
  const wire: StdioWireRecord[] = [];
  const outputs = cases.map((c) => {
    const trace = c.expected.exchanges.map((exchange) => {
      const request = canonicalRequest({ caseId: c.id, boundary: exchange.boundary, text: exchange.text, generated: c.expected.generated });
      const response = { jsonrpc: '2.0', id: request.id!, result: { protocolVersion: 'draft', effects: receiverEffects(subscriptions[exchange.subscription]!, exchange.text) } } as JsonObject;
      receipts.push(structuredClone({ subscription: exchange.subscription, request, response }));
      wire.push({ instance: wire.length + 1, scope: exchange.subscription, probe: false, requests: [structuredClone(request)], replies: [structuredClone(response)] });
      return { subscription: exchange.subscription, request, response };
    });
    return outputOf(c, trace);
  });
  return { cases, outputs, receipts, subscriptions, wire };
}

function outputOf(c: CompactionCase, trace: JsonObject[]): JsonObject {
  const e = c.expected;
  return {
    name: c.id,
    result: {
      instructions: textParts(e.instructions, `${c.id}:instructions`),
      summary: e.summary === null ? null : textParts(e.summary, `${c.id}:summary`),
      generated: e.generated,
      applied: e.applied,
      failures: Array.from({ length: e.failures }, (_, i) => ({ hook: i, message: 'rejected' })),
      messages: [],
    },
    trace,
    downstream: e.downstream,
  } as unknown as JsonObject;
}
