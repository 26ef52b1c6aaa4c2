// The transport-independent heart of the catalogue receiver (CATALOGUE-RULES §4). The HTTP and stdio
// bindings hand it parsed messages and write what it returns, so both behave identically.
//
// hooks/capabilities: a valid request is answered with its own id and the catalogue manifest
// (harness/families/catalogue/reference-manifest.ts); the answer is checked too, then exactly
// `{kind:"discovery", request, response}` is appended. An invalid request gets a JSON-RPC error and
// is not recorded (it is no discovery).
// hooks/observe: judged by the one lineage tracker of this process (schema first, then source-local
// lineage), then exactly one entry is appended — `observed`, or `rejected` with its errorKind — built
// by the same functions the verifier expects entries from. A rejection never stops the receiver.
// Statuses follow the reference receivers: 204 observed, 400 schema, 409 lineage.

import { rejectedEntry, observedEntry } from '../../../harness/families/catalogue/receipt-entries.ts';
import { catalogueDiscoveryResponse } from '../../../harness/families/catalogue/reference-manifest.ts';
import type { LineageTracker } from '../../../harness/families/catalogue/lineage-tracker.ts';
import type { JsonObject } from '../../../harness/protocol/json.ts';
import type { ProtocolValidators } from '../../../harness/protocol/validator-types.ts';
import { errorEnvelope, INTERNAL_ERROR, INVALID_REQUEST, replyId } from '../lib/jsonrpc.ts';
import type { Log } from '../lib/log.ts';
import type { ReceiptLog } from '../lifecycle/receipt-log.ts';

export interface CatalogueReceiverDeps {
  receipts: ReceiptLog;
  /** One tracker for the whole process: lineage spans every row of the run. */
  lineage: LineageTracker;
  validators: Pick<ProtocolValidators, 'capabilitiesRequest' | 'capabilitiesResponse'>;
  log: Log;
}

/** A reply to write: JSON text plus the HTTP status (stdio ignores it). */
export interface DiscoveryReply {
  status: number;
  body: string;
}

/** How an observation was judged; the HTTP binding answers `status` with an empty body. */
export type ObserveOutcome = { status: 204 } | { status: 400 | 409; reason: string };

export class CatalogueReceiver {
  constructor(private readonly deps: CatalogueReceiverDeps) {}

  discover(request: unknown): DiscoveryReply {
    const { validators, receipts, log } = this.deps;
    const id = replyId(request);
    const check = validators.capabilitiesRequest(request);
    if (!check.valid || id === null) {
      log.info(`refused an invalid hooks/capabilities request (${check.errors[0] ?? 'no usable id'})`);
      return { status: 400, body: errorEnvelope(id, INVALID_REQUEST, 'Invalid Request: not a valid hooks/capabilities request', check.errors.slice(0, 5)) };
    }
    const response = catalogueDiscoveryResponse(id);
    const answer = validators.capabilitiesResponse(response);
    if (!answer.valid) {
      // Only possible with a schema directory our manifest does not satisfy: say so rather than answer invalidly.
      log.error(`the catalogue manifest fails the configured capabilities-response schema: ${answer.errors.slice(0, 3).join('; ')}`);
      return { status: 500, body: errorEnvelope(id, INTERNAL_ERROR, 'Internal error: the receiver cannot produce a valid manifest') };
    }
    receipts.append({ kind: 'discovery', request: request as JsonObject, response });
    return { status: 200, body: JSON.stringify(response) };
  }

  observe(message: unknown): ObserveOutcome {
    const verdict = this.deps.lineage.accept(message);
    if (verdict.accepted) {
      this.deps.receipts.append(observedEntry(message) as unknown as JsonObject);
      return { status: 204 };
    }
    this.deps.receipts.append(rejectedEntry(message, verdict.errorKind) as unknown as JsonObject);
    this.deps.log.info(`rejected a hooks/observe notification (${verdict.errorKind}: ${verdict.reason})`);
    return { status: verdict.errorKind === 'schema' ? 400 : 409, reason: verdict.reason };
  }
}
