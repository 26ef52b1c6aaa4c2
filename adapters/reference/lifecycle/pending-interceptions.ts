// The SDK-side pending state of intercepted boundaries (LIFECYCLE-RULES §4; LIFECYCLE.md "Runtime
// duties"): what a real SDK keeps between sending a hooks/intercept request and publishing its
// outcome. One interception per request id:
//
//   open ──deliver(valid)──▶ staged ──accept──▶ published
//     │                        │
//     └──deliver(invalid)──▶ failed ◀──accept(rejected by the evaluator)
//
// - Staging: the first schema-valid response delivered to an open interception is retained,
//   privately and unevaluated; any later response for the id (a duplicate attempt, a stale or
//   replayed reply) is ignored and can never replace it.
// - Acceptance is by request id: only that id's staged response is evaluated — atomically, at
//   acceptance — and published when the evaluator accepts it.
// - Cancellation dominates: once cancelled, nothing is staged or published for the id any more and a
//   retained response is discarded; a cancel after publication takes effect too but keeps the
//   published state.
// - Fail-open: an interception that is open or failed (no usable response) settles as the host's
//   fail-open fallback — allowed, executed, original input — unless cancelled; it may create the
//   interception without any attempt.

import { evaluate } from '../../../harness/oracle/evaluate.ts';
import type { PublishedState, RequestId } from '../../../harness/lifecycle-adapters/scenario-types.ts';
import { cloneJson, type JsonObject } from '../../../harness/protocol/json.ts';
import type { InterceptRequest } from '../../../harness/protocol/messages.ts';
import type { ProtocolValidators } from '../../../harness/protocol/validator-types.ts';
import { idKey } from './request-id.ts';

type Phase = 'open' | 'staged' | 'published' | 'failed';

interface Interception {
  request: InterceptRequest;
  phase: Phase;
  cancelled: boolean;
  staged: JsonObject | undefined;
}

/** What happened to a delivered response. */
export type DeliveryOutcome = 'staged' | 'ignored' | 'failed';

export class PendingInterceptions {
  private readonly byId = new Map<string, Interception>();

  constructor(private readonly validators: Pick<ProtocolValidators, 'interceptResponse'>) {}

  /** Opens the interception for `request` (once per id; opening it again changes nothing). */
  open(request: InterceptRequest): void {
    const key = idKey(request.id);
    if (!this.byId.has(key)) this.byId.set(key, { request, phase: 'open', cancelled: false, staged: undefined });
  }

  /** Hands a response for `id` to the SDK: staged when the interception is still open, else ignored. */
  deliver(id: RequestId, response: unknown): DeliveryOutcome {
    const interception = this.byId.get(idKey(id));
    if (interception === undefined || interception.cancelled || interception.phase !== 'open') return 'ignored';
    if (!this.validators.interceptResponse(response).valid) {
      interception.phase = 'failed';
      return 'failed';
    }
    interception.phase = 'staged';
    interception.staged = cloneJson(response as JsonObject);
    return 'staged';
  }

  /** Logical interruption; true when it took effect (the interception exists and was not cancelled yet). */
  cancel(id: RequestId): boolean {
    const interception = this.byId.get(idKey(id));
    if (interception === undefined || interception.cancelled) return false;
    interception.cancelled = true;
    interception.staged = undefined;
    return true;
  }

  /** Evaluates and publishes the staged response of `id`; the published state, or undefined when nothing was published. */
  accept(id: RequestId): PublishedState | undefined {
    const interception = this.byId.get(idKey(id));
    if (interception === undefined || interception.cancelled || interception.phase !== 'staged') return undefined;
    // The lifecycle host has no task-input contract: its tool input is any object.
    const verdict = evaluate(interception.request, interception.staged, this.validators, { hostTaskRule: false });
    interception.staged = undefined;
    if (!verdict.accepted) {
      interception.phase = 'failed';
      return undefined;
    }
    interception.phase = 'published';
    const { decision, executed, messages, flow } = verdict.result;
    const state: PublishedState = { decision, executed, input: verdict.result.input ?? originalInput(interception.request), messages };
    if (flow === 'stop') state.flow = 'stop';
    return state;
  }

  /** The fail-open fallback for `request`'s id; the published state, or undefined when it does not apply. */
  failOpen(request: InterceptRequest): PublishedState | undefined {
    this.open(request);
    const interception = this.byId.get(idKey(request.id))!;
    if (interception.cancelled || (interception.phase !== 'open' && interception.phase !== 'failed')) return undefined;
    interception.phase = 'published';
    return { decision: 'allow', executed: true, input: originalInput(interception.request), messages: [] };
  }
}

function originalInput(request: InterceptRequest): JsonObject {
  return cloneJson(request.params.event.tool?.input ?? {});
}
