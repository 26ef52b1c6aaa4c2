// A pure model of an observation chain (LIFECYCLE-RULES §7.8, spec base/composition.md and
// observation-disposition.md): intercept subscriptions are called serially in declaration order with
// the fixture request id, each with the accepted effective input so far, its own content view of the
// event's items and the running permission; call k answers `responseSequences.a[k]`. A rejected reply
// is an operational failure: skipped under fail-open, ending the chain under fail-closed. An accepted
// deny or flow stop ends decision-making. After settlement every uncalled intercept subscription is
// downgraded to one observation and every explicit observer gets one; called interceptors get none.
// An interruption ends the chain while its first call is pending and starts no observation work.
//
// The model refuses (LifecycleSimulationError) what it would have to guess: accepted replies whose
// effects would carry over in state it does not model (return, inject, flow continue), content views
// of items with bodies or gaps, and a call where the oracle's decision and §7.8's permission disagree.

import { evaluate } from '../../oracle/evaluate.ts';
import { cloneJson, isJsonObject, jsonEqual, type JsonObject } from '../../protocol/json.ts';
import { PROTOCOL_VERSION, type InterceptRequest, type ObserveNotification, type PermissionState } from '../../protocol/messages.ts';
import type { ProtocolValidators } from '../../protocol/validator-types.ts';
import type { ChainExpected, ChainProof, ChainScenario, ChainSubscription } from '../../lifecycle-adapters/scenario-types.ts';
import { LifecycleSimulationError } from '../../lifecycle-adapters/simulation-error.ts';

/** How decision-making ended. */
export type ChainSettlement = 'completed' | 'deny' | 'stop' | 'deny-and-stop' | 'fail-closed' | 'interrupted';

export type ChainTraceEvent =
  | {
      kind: 'called';
      subscription: ChainSubscription;
      request: InterceptRequest;
      response: JsonObject;
      outcome: 'accepted' | 'failed' | 'interrupted';
      /** Why a failed reply was rejected. */
      reason?: string;
    }
  | { kind: 'observed'; subscription: ChainSubscription; why: 'explicit' | 'downgraded'; notification: ObserveNotification };

export interface ChainSimulation {
  expected: ChainExpected;
  proof: ChainProof;
  trace: ChainTraceEvent[];
  settlement: ChainSettlement;
}

type Validators = Pick<ProtocolValidators, 'interceptResponse'>;

/**
 * §7.8's permission after one accepted reply: deny → `deny`; ask → `ask` unless already `deny`;
 * allow → `allow` only from `none`. Effects apply in response order.
 */
export function chainPermissionAfter(permission: PermissionState, effects: readonly unknown[]): PermissionState {
  let current = permission;
  for (const effect of effects) {
    const type = isJsonObject(effect) ? effect.type : undefined;
    if (type === 'deny') current = 'deny';
    else if (type === 'ask' && current !== 'deny') current = 'ask';
    else if (type === 'allow' && current === 'none') current = 'allow';
  }
  return current;
}

/** The scripted reply to call k: `responseSequences.a[k]`, else `responses.a`. */
export function replyForCall(row: ChainScenario, k: number): JsonObject | undefined {
  return row.responseSequences?.a?.[k] ?? row.responses.a;
}

/** A reply's effects, in order ([] when it has none). */
export function effectsOf(response: JsonObject): unknown[] {
  const result = response.result;
  return isJsonObject(result) && Array.isArray(result.effects) ? result.effects : [];
}

/**
 * The `params.state.permission` each of `calls` intercept requests carries, recomputed exactly as the
 * §7.8 verifier does: from `requests.a`'s value, applying reply k's effects after call k unless that
 * call's subscription failed.
 */
export function recomputeChainPermissions(row: ChainScenario, calledSubscriptions: readonly string[], failures: readonly string[]): PermissionState[] {
  let permission: PermissionState = row.requests.a?.params.state?.permission ?? 'none';
  return calledSubscriptions.map((subscription, k) => {
    const carried = permission;
    const reply = replyForCall(row, k);
    if (!failures.includes(subscription) && reply !== undefined) permission = chainPermissionAfter(permission, effectsOf(reply));
    return carried;
  });
}

export function simulateChain(row: ChainScenario, validators: Validators): ChainSimulation {
  const fail = (where: string, problem: string): never => {
    throw new LifecycleSimulationError(row.id, where, problem);
  };
  const base = row.requests.a ?? fail('requests.a', 'a chain row needs its request under key "a"');
  const event = base.params.event;
  const items = event.items;
  if (!Array.isArray(items)) return fail('requests.a.params.event.items', 'chain content views need the event to carry items');
  for (const item of items) {
    if (isJsonObject(item) && (item.body !== undefined || item.gap !== undefined)) {
      fail('requests.a.params.event.items', 'content views of items with bodies or gaps are not modelled (chain rows have no uploads)');
    }
  }
  const originalInput = event.tool?.input ?? fail('requests.a.params.event.tool.input', 'a chain boundary needs a tool input');

  const view = (subscription: ChainSubscription): JsonObject[] => (subscription.content === 'omit' ? [] : cloneJson(items as JsonObject[]));
  const withView = (subscription: ChainSubscription, input: JsonObject): InterceptRequest['params']['event'] => {
    const copy = cloneJson(event);
    if (copy.tool !== undefined) copy.tool = { ...copy.tool, input: cloneJson(input) };
    copy.items = view(subscription);
    return copy;
  };

  const expected: ChainExpected = { called: [], failures: [], observations: [], input: cloneJson(originalInput) };
  const proof: ChainProof = { requests: [], observations: [] };
  const trace: ChainTraceEvent[] = [];
  let settlement: ChainSettlement | undefined;
  let input: JsonObject = originalInput;
  let permission: PermissionState = base.params.state?.permission ?? 'none';
  let allowOutlivedChange: number | undefined;

  row.chain.subscriptions.forEach((subscription, index) => {
    if (subscription.mode !== 'intercept' || settlement !== undefined) return;
    const where = `chain.subscriptions[${index}]`;
    if (allowOutlivedChange !== undefined) {
      fail(where, `follows a call (chain.subscriptions[${allowOutlivedChange}]) that changed the input under an allow: the spec would drop the allow, §7.8 keeps it`);
    }
    const k = expected.called.length;
    const request = cloneJson(base);
    request.params.event = withView(subscription, input);
    request.params.state = { ...(base.params.state ?? { candidate: null }), permission };
    const response = replyForCall(row, k) ?? fail(where, `call ${k} has no scripted reply`);
    expected.called.push(subscription.id);
    proof.requests.push(request);

    if (row.chain.interrupt) {
      trace.push({ kind: 'called', subscription, request, response, outcome: 'interrupted' });
      settlement = 'interrupted';
      return;
    }
    const verdict = evaluate(request, response, validators, { hostTaskRule: false });
    if (!verdict.accepted) {
      trace.push({ kind: 'called', subscription, request, response, outcome: 'failed', reason: `${verdict.layer}: ${verdict.reason}` });
      expected.failures.push(subscription.id);
      if (subscription.failurePolicy === 'fail-closed') settlement = 'fail-closed';
      return;
    }
    const effects = effectsOf(response);
    const types = effects.map((e) => (isJsonObject(e) ? e : {})).map((e) => (e.type === 'flow' ? `flow:${String(e.operation)}` : String(e.type)));
    const carried = types.filter((t) => t === 'return' || t === 'inject' || t === 'flow:continue');
    if (carried.length > 0) fail(where, `an accepted ${carried.join(', ')} would carry over in request state, which the model does not do`);
    permission = chainPermissionAfter(permission, effects);
    const decision = permission === 'deny' ? 'deny' : permission === 'ask' ? 'ask' : 'allow';
    if (decision !== verdict.result.decision) {
      fail(where, `§7.8's permission ${permission} and the oracle's decision ${verdict.result.decision} disagree for call ${k}; choose replies where they agree`);
    }
    // The spec lets a changed input invalidate an earlier allow; §7.8's recomputation keeps it. Only a
    // later call would carry the difference, so such a chain is refused rather than decided.
    const changed = verdict.result.input !== undefined && !jsonEqual(verdict.result.input, input);
    if (changed && request.params.state.permission === 'allow') allowOutlivedChange = index;
    input = verdict.result.input ?? input;
    trace.push({ kind: 'called', subscription, request, response, outcome: 'accepted' });
    const denies = types.includes('deny');
    const stops = types.includes('flow:stop');
    if (denies || stops) settlement = denies && stops ? 'deny-and-stop' : denies ? 'deny' : 'stop';
  });

  expected.input = cloneJson(input);
  if (settlement !== 'interrupted') {
    row.chain.subscriptions.forEach((subscription) => {
      const why = subscription.mode === 'observe' ? 'explicit' : expected.called.includes(subscription.id) ? undefined : 'downgraded';
      if (why === undefined) return;
      const notification: ObserveNotification = {
        jsonrpc: '2.0',
        method: 'hooks/observe',
        params: { protocolVersion: PROTOCOL_VERSION, event: withView(subscription, input) },
      };
      expected.observations.push(subscription.id);
      proof.observations.push(notification);
      trace.push({ kind: 'observed', subscription, why, notification });
    });
  }
  return { expected, proof, trace, settlement: settlement ?? 'completed' };
}
