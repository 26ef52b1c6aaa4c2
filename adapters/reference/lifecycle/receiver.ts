// The transport-independent heart of the lifecycle receiver (LIFECYCLE-RULES §3). The HTTP and
// stdio bindings hand it parsed messages and write what it returns, so both behave identically.
//
// hooks/intercept: validate the envelope and every `event.items[].body.ref` (stored bytes in the
// authorised content scope) → record `received` with the exact wire request BEFORE holding → hold
// until the id is released (sticky; bounded by a watchdog) → record `replied` → the caller writes
// the scripted response of this attempt, unchanged.
// hooks/observe: validate, check refs, record exactly `{kind:"observed", eventId, event, message}`.
// Every observation of a scenario's event is answered with an unsolicited, intercept-shaped deny
// that clients must ignore (observers never decide; LIFECYCLE.md has HTTP observe "maliciously"
// return it), so every observation row of any fixture file proves the client ignores it. An event no
// row knows (the HTTP receiver probes' `receiver-probe-event`) gets the plain empty 202/204.

import { cloneJson, isJsonObject, type JsonObject } from '../../../harness/protocol/json.ts';
import type { ProtocolValidators } from '../../../harness/protocol/validator-types.ts';
import type { Barriers } from '../lib/barriers.ts';
import { errorEnvelope, INTERNAL_ERROR, INVALID_PARAMS, replyId } from '../lib/jsonrpc.ts';
import { semanticRefusal } from '../lib/strict-wire.ts';
import type { Log } from '../lib/log.ts';
import type { ContentStore } from './content-store.ts';
import type { ReceiptLog } from './receipt-log.ts';
import { idKey } from './request-id.ts';
import type { ScriptedResponses } from './scripted-responses.ts';

/** What an observer must never be able to do: decide. Clients ignore it. */
export const UNSOLICITED_OBSERVER_REPLY = JSON.stringify({
  jsonrpc: '2.0',
  id: 'unsolicited-observer',
  result: { protocolVersion: 'draft', effects: [{ type: 'deny', reason: 'observer must not decide' }] },
});

export interface ReceiverDeps {
  script: ScriptedResponses;
  receipts: ReceiptLog;
  /** Sticky releases keyed by `idKey(request id)`. */
  releases: Barriers;
  content: ContentStore;
  /** The content scope event body refs are resolved in: the configured upload credential's. */
  contentScope: string;
  validators: Pick<ProtocolValidators, 'interceptRequest' | 'interceptResponse' | 'observeNotification'>;
  /** Upper bound on holding one intercept reply. */
  holdWatchdogMs: number;
  log: Log;
}

/** A reply to write: JSON text plus the HTTP status (stdio ignores it). */
export interface InterceptReply {
  status: number;
  body: string;
}

export type ObserveResult =
  | { ok: true; eventId: string; /** Intercept-shaped text the binding sends back, which clients must ignore. */ unsolicited?: string }
  | { ok: false; status: 400 | 409; reason: string };

export class LifecycleReceiver {
  constructor(private readonly deps: ReceiverDeps) {}

  async intercept(message: JsonObject): Promise<InterceptReply> {
    const { script, receipts, releases, validators, log } = this.deps;
    const id = replyId(message);
    const check = validators.interceptRequest(message);
    if (!check.valid || id === null) {
      log.info(`refused an invalid hooks/intercept request (${check.errors.length} schema error(s))`);
      return { status: 400, body: errorEnvelope(id, INVALID_PARAMS, 'Invalid params: request fails the intercept-request schema', check.errors.slice(0, 5)) };
    }
    const refusal = semanticRefusal(message, 'intercept');
    if (refusal !== undefined) {
      log.info(`refused a hooks/intercept request that breaks the spec: ${refusal}`);
      return { status: 400, body: errorEnvelope(id, INVALID_PARAMS, `Invalid params: the request breaks the spec: ${refusal}`) };
    }
    const event = (message.params as JsonObject).event as JsonObject;
    const unknownRef = this.unknownBodyRef(event);
    if (unknownRef !== undefined) {
      log.info('refused a hooks/intercept request naming an unknown content reference');
      return { status: 409, body: errorEnvelope(id, INVALID_PARAMS, `Invalid params: ${unknownRef}`) };
    }
    if (!script.knows(id)) {
      return { status: 400, body: errorEnvelope(id, INVALID_PARAMS, 'Invalid params: request id is not a scripted request id') };
    }

    receipts.append({ kind: 'received', id, message: cloneJson(message) });
    const response = script.nextResponse(id);
    const held = await releases.wait(idKey(id), this.deps.holdWatchdogMs);
    if (!held.released) {
      const why = held.reason === 'timeout' ? `not released within ${this.deps.holdWatchdogMs} ms` : 'receiver is shutting down';
      log.error(`reply to ${idKey(id)} ${why}`);
      return { status: held.reason === 'timeout' ? 504 : 503, body: errorEnvelope(id, INTERNAL_ERROR, `Internal error: reply ${why}`) };
    }
    if (response === undefined) {
      return { status: 500, body: errorEnvelope(id, INTERNAL_ERROR, 'Internal error: the scenario file scripts no response for this request') };
    }
    // Scripted responses go out unchanged; an invalid one is deliberate, so this is only a diagnostic.
    if (!validators.interceptResponse(response).valid) log.info(`replying to ${idKey(id)} with a schema-invalid scripted response, as scripted`);
    receipts.append({ kind: 'replied', id });
    return { status: 200, body: JSON.stringify(response) };
  }

  observe(message: JsonObject): ObserveResult {
    const { receipts, script, validators } = this.deps;
    const check = validators.observeNotification(message);
    if (!check.valid) return { ok: false, status: 400, reason: `notification fails the observe-notification schema (${check.errors[0] ?? 'invalid'})` };
    const refusal = semanticRefusal(message, 'observe');
    if (refusal !== undefined) return { ok: false, status: 400, reason: `notification breaks the spec: ${refusal}` };
    const event = (message.params as JsonObject).event as JsonObject;
    const unknownRef = this.unknownBodyRef(event);
    if (unknownRef !== undefined) return { ok: false, status: 409, reason: unknownRef };
    const eventId = event.id as string;
    receipts.append({ kind: 'observed', eventId, event: cloneJson(event), message: cloneJson(message) });
    return script.rowOfEvent(eventId) !== undefined ? { ok: true, eventId, unsolicited: UNSOLICITED_OBSERVER_REPLY } : { ok: true, eventId };
  }

  /** Why an item body ref cannot be resolved in the content scope, or undefined when all can. */
  private unknownBodyRef(event: JsonObject): string | undefined {
    const items = event.items;
    if (!Array.isArray(items)) return undefined;
    for (const [index, item] of items.entries()) {
      if (!isJsonObject(item) || !isJsonObject(item.body)) continue;
      const ref = item.body.ref;
      if (typeof ref !== 'string' || !this.deps.content.has(this.deps.contentScope, ref)) {
        return `event.items[${index}].body.ref names no stored content in the authorised scope`;
      }
    }
    return undefined;
  }
}
