// What an observation chain row obliges on the wire (LIFECYCLE-RULES §7.8), beyond its chainProof:
// the `params.state.permission` each serial intercept call must carry, recomputed from the replies
// that came before it, and the explicit-omit form an observer may receive instead of an empty view.

import { cloneJson, isJsonObject, jsonEqual, type JsonObject } from '../../protocol/json.ts';
import type { PermissionState } from '../../protocol/messages.ts';
import type { ChainScenario } from '../../lifecycle/scenario-types.ts';
import { chainPermissionAfter, effectsOf, replyForCall } from '../../lifecycle/simulate-chain.ts';
import { eventOf } from './receipt-log.ts';

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
 * Whether an observed message is the expected chain observation. Where the expected view has
 * `items: []`, the explicit-omit form is accepted too: every item of the original request event,
 * without `body` or `gap`, with `selection: "omit"`, in order. Our reading of the rules applies it to
 * observations only (they state it there; intercept calls are compared exactly).
 */
export function matchesChainObservation(actual: unknown, expected: JsonObject, row: ChainScenario): boolean {
  if (jsonEqual(actual, expected)) return true;
  const event = eventOf(expected);
  if (event === undefined || !Array.isArray(event.items) || event.items.length > 0) return false;
  const original = row.requests[CHAIN_KEY]?.params.event.items;
  if (!Array.isArray(original)) return false;
  const explicit = cloneJson(expected);
  (eventOf(explicit) as JsonObject).items = original.map((item) => {
    const { body: _body, gap: _gap, ...rest } = item as JsonObject;
    return { ...rest, selection: 'omit' };
  });
  return jsonEqual(actual, explicit);
}
