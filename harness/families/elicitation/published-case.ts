// A published atomic row (rules §5): what the sender's helper actually staged is uploaded and
// delivered to the receiver as the wire row `published:<request event id>`, body selection, both
// intercepts expected 200. Built at run time from the helper's `summary`, so its bytes are the SDK's,
// never ours; its receipts follow the same summary table as every other case.

import type { JsonObject } from '../../protocol/json.ts';
import type { AtomicRow, ElicitationBinding, InterceptStep, WireCase, WireStep } from './case-types.ts';
import { bodyAlias, buildEnvelopes, eventId } from './envelopes.ts';
import { bodyOctets, toBase64 } from './payloads.ts';
import { requestSummary, resultSummary } from './receipt-summary.ts';

export interface PublishedCase {
  /** The atomic row it publishes; its steps' evidence is filed under this id. */
  atomicId: string;
  wire: WireCase;
}

export function publishedCase(row: AtomicRow, summary: { request: JsonObject; result: JsonObject }, binding: ElicitationBinding): PublishedCase {
  const name = `published:${String(row.input.request.id)}`;
  const envelopes = buildEnvelopes({ name, binding, selection: 'body', request: summary.request, result: summary.result, mutations: [] });
  const requestBytes = bodyOctets(summary.request);
  const resultBytes = bodyOctets(summary.result);
  const intercept = (stage: 'request' | 'result'): InterceptStep => ({ kind: 'intercept', eventId: eventId(name, stage), stage, message: envelopes[stage], expectStatus: 200 });
  const steps: WireStep[] = [
    ...(binding === 'upload'
      ? [
          { kind: 'upload' as const, alias: bodyAlias(name, 'request'), bytes: toBase64(requestBytes), expectStatus: 201 as const },
          { kind: 'upload' as const, alias: bodyAlias(name, 'result'), bytes: toBase64(resultBytes), expectStatus: 201 as const },
        ]
      : []),
    intercept('request'),
    intercept('result'),
  ];
  return {
    atomicId: row.id,
    wire: {
      id: name,
      proves: `the helper's staged output for ${row.id} survives the wire`,
      selection: 'body',
      rejectedBy: null,
      tags: ['published'],
      steps,
      receipts: [
        { eventId: eventId(name, 'request'), bytes: toBase64(requestBytes), summary: requestSummary('body', summary.request) },
        { eventId: eventId(name, 'result'), bytes: toBase64(resultBytes), summary: resultSummary({ request: 'body', result: 'body' }, summary) },
      ],
    },
  };
}
