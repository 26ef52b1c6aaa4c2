// The `hooks/observe` notification an observe step sends (LIFECYCLE-RULES §7.6): the client adapter
// sends exactly this, the verifier expects exactly this in the receiver's `observed` receipt, and the
// loader checks a row's `expected.observations` against it. One builder so the three never drift.

import { cloneJson, isJsonObject, type JsonObject } from '../../protocol/json.ts';
import { PROTOCOL_VERSION, type InterceptEvent, type ObserveNotification } from '../../protocol/messages.ts';
import type { ObserveStep, StepScenario } from '../../lifecycle-adapters/scenario-types.ts';

/** Fixture alias → receiver-assigned ref (from 201 upload receipts). */
export type RefBindings = ReadonlyMap<string, string>;

/**
 * A copy of `event` whose `items[].body.ref` aliases are replaced by their bound receiver refs.
 * Unbound aliases stay as written (a receiver then rejects them as unknown), as do items without a
 * body. Only the event's own `items` carry body references in lifecycle fixtures.
 */
export function withBoundRefs<E extends JsonObject | InterceptEvent>(event: E, bindings: RefBindings): E {
  const copy = cloneJson(event);
  const items = (copy as JsonObject).items;
  if (Array.isArray(items)) {
    for (const item of items) {
      if (!isJsonObject(item) || !isJsonObject(item.body) || typeof item.body.ref !== 'string') continue;
      const bound = bindings.get(item.body.ref);
      if (bound !== undefined) item.body.ref = bound;
    }
  }
  return copy;
}

/**
 * The notification for `step` of `row`: the event of `requests[step.key]` with `tool.input` replaced
 * by `expected.states[<request id>].input` when the row publishes a state for it, and `items`
 * replaced by the step's `items` when it has them (never added otherwise); then aliases rewritten
 * with `bindings`. No JSON-RPC id and nothing about the decision.
 */
export function observeNotificationFor(row: StepScenario, step: ObserveStep, bindings: RefBindings = new Map()): ObserveNotification {
  const request = Object.hasOwn(row.requests, step.key) ? row.requests[step.key] : undefined;
  if (request === undefined) throw new Error(`observe step names request key ${JSON.stringify(step.key)}, which scenario ${row.id} does not have`);
  const id = String(request.id);
  const state = Object.hasOwn(row.expected.states, id) ? row.expected.states[id] : undefined;
  return settledObservation(request.params.event, state?.input, step.items, bindings);
}

/**
 * The §7.6 notification of `event` once its boundary settled: `tool.input` replaced by `input` when
 * given, `items` replaced by `items` when given (never added otherwise), aliases rewritten with
 * `bindings`. What a client sends from its own settled state, and what observeNotificationFor
 * expects from the row's.
 */
export function settledObservation(
  event: InterceptEvent,
  input: JsonObject | undefined,
  items: readonly JsonObject[] | undefined,
  bindings: RefBindings = new Map(),
): ObserveNotification {
  const copy = cloneJson(event) as InterceptEvent & JsonObject;
  if (input !== undefined && isJsonObject(copy.tool)) copy.tool = { ...copy.tool, input: cloneJson(input) };
  if (items !== undefined) copy.items = cloneJson(items as JsonObject[]);
  return {
    jsonrpc: '2.0',
    method: 'hooks/observe',
    params: { protocolVersion: PROTOCOL_VERSION, event: withBoundRefs(copy, bindings) },
  };
}
