// One compaction receiver request, the same over HTTP and stdio: validate canonically (the
// intercept-request schema, JSON-RPC id = event id, the spec's per-message MUSTs), answer from the
// scope's configured action only, record the exact request and reply, then reply. An invalid request
// gets JSON-RPC Invalid params (-32602) and leaves no receipt. A configured effect list is returned
// verbatim even when it breaks the request's capabilities: judging it is the sender's duty, and a
// receiver that repaired it would leave the sender untested.

import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from '../../../harness/protocol/json.ts';
import type { Validate } from '../../../harness/protocol/validator-types.ts';
import { errorEnvelope, INTERNAL_ERROR, INVALID_PARAMS, PARSE_ERROR, replyId } from '../lib/jsonrpc.ts';
import { semanticRefusal } from '../lib/strict-wire.ts';
import type { CompactionReceipt } from './receipt-file.ts';
import type { SubscriptionAction } from './subscriptions.ts';
import { inlineText, textParts } from './text-parts.ts';

export interface ReceiverSteps {
  /** The effects a scope's action answers `event` with. */
  effectsFor(action: SubscriptionAction, event: JsonObject, capabilities: JsonValue): JsonValue[];
  /** Whether a request leaves a receipt (only accepted ones do). */
  keepsReceipt(accepted: boolean): boolean;
}

export const REFERENCE_RECEIVER_STEPS: ReceiverSteps = {
  effectsFor: (action, event) => {
    if (action.kind === 'effects') return cloneJson(action.effects);
    return [{ type: 'modify', target: action.target, operation: 'replace', value: textParts(inlineText(event[action.target]) + action.suffix) }];
  },
  keepsReceipt: (accepted) => accepted,
};

export interface ReceiverDeps {
  interceptRequest: Validate;
  subscriptions: ReadonlyMap<string, SubscriptionAction>;
  record: (receipt: CompactionReceipt) => void;
  steps?: ReceiverSteps;
}

export class CompactionReceiver {
  private readonly steps: ReceiverSteps;

  constructor(private readonly deps: ReceiverDeps) {
    this.steps = deps.steps ?? REFERENCE_RECEIVER_STEPS;
  }

  /** Whether `scope` has an action here (a scope without one is not served at all). */
  serves(scope: string): boolean {
    return this.deps.subscriptions.has(scope);
  }

  /** The compact JSON reply line (no newline) to one message's text for `scope`. */
  answerText(text: string, scope: string): string {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return errorEnvelope(null, PARSE_ERROR, 'Parse error: the request is not valid JSON');
    }
    return this.answer(message, scope);
  }

  answer(message: unknown, scope: string): string {
    const refusal = this.refusal(message);
    if (refusal !== undefined) {
      if (this.steps.keepsReceipt(false)) this.deps.record({ subscription: scope, request: message as JsonValue, response: JSON.parse(refusal) as JsonValue });
      return refusal;
    }
    const request = message as JsonObject;
    const params = request.params as JsonObject;
    const action = this.deps.subscriptions.get(scope);
    if (action === undefined) return errorEnvelope(replyId(request), INVALID_PARAMS, `Invalid params: this receiver has no subscription ${JSON.stringify(scope)}`);
    let effects: JsonValue[];
    try {
      effects = this.steps.effectsFor(action, params.event as JsonObject, params.capabilities ?? null);
    } catch (error) {
      return errorEnvelope(replyId(request), INTERNAL_ERROR, `Internal error: cannot answer from the configured action (${error instanceof Error ? error.message : String(error)})`);
    }
    const response: JsonObject = { jsonrpc: '2.0', id: request.id as JsonValue, result: { protocolVersion: 'draft', effects } };
    if (this.steps.keepsReceipt(true)) this.deps.record({ subscription: scope, request, response });
    return JSON.stringify(response);
  }

  /** The −32602 error line for a request this receiver refuses, or undefined when it is valid. */
  private refusal(message: unknown): string | undefined {
    const id = replyId(message);
    const schema = this.deps.interceptRequest(message);
    if (!schema.valid) return errorEnvelope(id, INVALID_PARAMS, `Invalid params: the request fails the intercept-request schema: ${schema.errors.slice(0, 3).join('; ')}`);
    const request = message as JsonObject;
    const event = (request.params as JsonObject).event;
    if (!isJsonObject(event) || request.id !== event.id) return errorEnvelope(id, INVALID_PARAMS, 'Invalid params: the JSON-RPC id must equal params.event.id');
    const broken = semanticRefusal(message, 'intercept');
    if (broken !== undefined) return errorEnvelope(id, INVALID_PARAMS, `Invalid params: ${broken}`);
    return undefined;
  }
}
