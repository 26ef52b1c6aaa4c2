// Runs one observation-chain row (LIFECYCLE-RULES §7.8 "Chain client"): the row's subscriptions are
// an SDK's subscription chain for one boundary, called serially in declaration order, every call
// with the fixture request id.
//
// - Each intercept call carries the current effective input, the subscription's content view
//   (`body` as is, `metadata` without bodies or text, `omit` no items) and the current permission.
// - A reply the evaluator refuses (schema, correlation, capability) is a failure of that
//   subscription: `fail-open` continues with input and permission unchanged; `fail-closed` ends the
//   chain with the original input.
// - An accepted reply applies: its settled input carries on; permission follows the chain rule
//   (deny → deny; ask → ask unless deny; allow → allow only from none); a deny or a flow stop
//   short-circuits.
// - After a short-circuit or fail-closed ending, the remaining uncalled intercept subscriptions are
//   downgraded to observers; a called interceptor never gets a second copy; explicit observers
//   always observe. Observations carry only the settled event view, after the chain settled
//   (`chain-settled` is marked once, after the last reply).
// - `interrupt`: the first call is sent unreleased; once the receiver holds it the chain is
//   cancelled and settled at once (marks `cancelled`, `chain-settled`), then the call is released
//   and its late reply drained and discarded. Nothing is observed.
// `holdObservers` (a superseded receiver gate) is refused as a row failure rather than faked.

import type { ChainExpected, ChainScenario, ChainSubscription } from '../../../harness/lifecycle-adapters/scenario-types.ts';
import { evaluate } from '../../../harness/oracle/evaluate.ts';
import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from '../../../harness/protocol/json.ts';
import type { InterceptRequest, PermissionState } from '../../../harness/protocol/messages.ts';
import { RowFailure } from './row-failure.ts';
import { observeSettled, type RowOutcome, type RowServices } from './row-services.ts';

export async function runChainRow(row: ChainScenario, services: RowServices): Promise<RowOutcome<ChainExpected>> {
  const base = Object.values(row.requests)[0];
  const original = cloneJson(base?.params.event.tool?.input ?? {});
  const actual: ChainExpected = { called: [], failures: [], observations: [], input: cloneJson(original) };
  try {
    if (base === undefined) throw new RowFailure('the chain row has no request');
    if (row.chain.holdObservers) throw new RowFailure('holdObservers chains are not supported by this adapter');
    await runChain(row, base, services, actual);
    return { actual };
  } catch (error) {
    if (!(error instanceof RowFailure)) throw error;
    return { actual, error: `chain: ${error.message}` };
  }
}

async function runChain(row: ChainScenario, base: InterceptRequest, services: RowServices, actual: ChainExpected): Promise<void> {
  const { control, events } = services;
  const id = base.id;
  const mark = (kind: 'cancelled' | 'chain-settled'): Promise<void> => control.mark(row.id, kind, id);
  let permission: PermissionState = base.params.state?.permission ?? 'none';
  let settled = false;
  const observers: ChainSubscription[] = [];
  let attempts = 0;

  if (!row.chain.interrupt) await control.release(id);
  for (const subscription of row.chain.subscriptions) {
    if (subscription.mode === 'observe' || settled) {
      observers.push(subscription);
      continue;
    }
    const request = chainCall(base, actual.input, permission, subscription);
    const reply = events.send(request as unknown as JsonObject);
    attempts++;
    actual.called.push(subscription.id);

    if (row.chain.interrupt) {
      await control.wait(id, attempts);
      await mark('cancelled');
      await mark('chain-settled');
      await control.release(id);
      const drained = await reply;
      if (!drained.ok) throw new RowFailure(`draining the interrupted call of ${subscription.id}: ${drained.error}`);
      return;
    }

    const received = await reply;
    if (!received.ok) throw new RowFailure(`call of ${subscription.id}: ${received.error}`);
    const verdict = evaluate(request, received.message, services.validators, { hostTaskRule: false });
    if (!verdict.accepted) {
      actual.failures.push(subscription.id);
      if (subscription.failurePolicy === 'fail-closed') {
        actual.input = cloneJson(base.params.event.tool?.input ?? {});
        settled = true;
      }
      continue;
    }
    actual.input = verdict.result.input ?? actual.input;
    permission = nextPermission(permission, (received.message as { result: { effects: Array<{ type: string }> } }).result.effects);
    if (verdict.result.decision === 'deny' || verdict.result.flow === 'stop') settled = true;
  }

  await mark('chain-settled');
  for (const observer of observers) {
    const items = contentView(base.params.event.items as JsonValue | undefined, observer.content);
    await observeSettled(services, base.params.event, actual.input, items, `observation of ${observer.id}`);
    actual.observations.push(observer.id);
  }
}

/** The intercept request of one chain call: the fixture request with the chain's current view and state. */
function chainCall(base: InterceptRequest, input: JsonObject, permission: PermissionState, subscription: ChainSubscription): InterceptRequest {
  const request = cloneJson(base);
  const event = request.params.event;
  if (event.tool !== undefined) event.tool.input = cloneJson(input);
  const items = contentView(event.items as JsonValue | undefined, subscription.content);
  if (items !== undefined) event.items = items;
  request.params.state = { ...(request.params.state ?? { candidate: null }), permission };
  return request;
}

/** The chain's permission rule: deny → deny; ask → ask unless deny; allow → allow only from none. */
export function nextPermission(current: PermissionState, effects: ReadonlyArray<{ type: string }>): PermissionState {
  let permission = current;
  for (const effect of effects) {
    if (effect.type === 'deny') permission = 'deny';
    else if (effect.type === 'ask' && permission !== 'deny') permission = 'ask';
    else if (effect.type === 'allow' && permission === 'none') permission = 'allow';
  }
  return permission;
}

/** A subscription's view of the event's items; undefined when the event has none. */
export function contentView(items: JsonValue | undefined, content: ChainSubscription['content']): JsonObject[] | undefined {
  if (!Array.isArray(items)) return undefined;
  if (content === 'omit') return [];
  const copy = cloneJson(items).filter(isJsonObject);
  if (content === 'body') return copy;
  // Metadata selection: the item is described, its body or text is not disclosed.
  return copy.map((item) => {
    if (!('body' in item) && !('text' in item)) return item;
    const { body: _body, text: _text, ...metadata } = item;
    return { ...metadata, selection: 'metadata' };
  });
}
