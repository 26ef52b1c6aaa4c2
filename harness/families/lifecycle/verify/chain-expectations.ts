// What an observation chain row obliges on the wire (LIFECYCLE-RULES §7.8), beyond its chainProof:
// the `params.state.permission` each serial intercept call must carry, recomputed from the replies
// that came before it, and the explicit omit form a subscriber (interceptor or observer) may receive
// instead of an empty view.

import { cloneJson, isJsonObject, jsonEqual, type JsonObject } from '../../../protocol/json.ts';
import type { PermissionState } from '../../../protocol/messages.ts';
import type { ChainScenario } from '../../../lifecycle-adapters/scenario-types.ts';
import { chainPermissionAfter, effectsOf, replyForCall } from '../simulate-chain.ts';
import { eventOf } from '../../../lifecycle-adapters/receipt-log.ts';

/** The request key chain rows script (the runner reads `requests.a` and `responseSequences.a`). */
const CHAIN_KEY = 'a';

/**
 * chainProof.requests with `params.state.permission` recomputed: it starts at `requests.a`'s value,
 * and after call k — unless that call's subscription (`expected.called[k]`) failed — the effects of
 * the reply to attempt k (`responseSequences.a[k]`, else `responses.a`, as the receiver answers)
 * apply as the simulator applies them (simulate-chain.ts chainPermissionAfter).
 */
export function expectedChainRequests(row: ChainScenario): JsonObject[] {
  const request = row.requests[CHAIN_KEY];
  let permission: unknown = request?.params.state?.permission;
  const failures = new Set(row.expected.failures);
  return row.chainProof.requests.map((proof, k) => {
    const expected = cloneJson(proof) as unknown as JsonObject;
    const params = expected.params;
    if (isJsonObject(params) && isJsonObject(params.state)) params.state.permission = permission as PermissionState;
    const subscription = row.expected.called[k];
    if (subscription === undefined || !failures.has(subscription)) {
      const reply = replyForCall(row, k);
      permission = chainPermissionAfter(permission as PermissionState, reply === undefined ? [] : effectsOf(reply));
    }
    return expected;
  });
}

/**
 * Whether a chain message on the wire (an intercept call or an observation) is the expected one.
 * §7.8 accepts two wire forms wherever the expected view has `items: []`: the empty list, and the
 * explicit omit form — every item of the original request event, in order, with its id and metadata
 * unchanged, `selection: "omit"` and neither `body` nor `gap`. Nothing else is accepted: the
 * explicit form is built from the fixture and compared whole, so a changed id, an added body or an
 * extra key still fails.
 */
export function matchesChainWireForm(actual: unknown, expected: JsonObject, row: ChainScenario): boolean {
  if (jsonEqual(actual, expected)) return true;
  const explicit = explicitOmitForm(expected, row);
  return explicit !== undefined && jsonEqual(actual, explicit);
}

/** `expected` with its empty view replaced by the explicit omit form; undefined when its view is not empty. */
export function explicitOmitForm(expected: JsonObject, row: ChainScenario): JsonObject | undefined {
  const event = eventOf(expected);
  if (event === undefined || !Array.isArray(event.items) || event.items.length > 0) return undefined;
  const original = row.requests[CHAIN_KEY]?.params.event.items;
  if (!Array.isArray(original) || original.length === 0) return undefined;
  const explicit = cloneJson(expected);
  (eventOf(explicit) as JsonObject).items = original.map((item) => {
    const { body: _body, gap: _gap, ...rest } = item as JsonObject;
    return { ...rest, selection: 'omit' };
  });
  return explicit;
}
