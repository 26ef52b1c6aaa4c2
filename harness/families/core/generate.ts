// Builds the core scenario file (fixtures/scenarios.json) from small declarative row specs.
//
// Deterministic by construction: no randomness, no clock, no file paths. Every `expected` (and every
// `hostExpected`) is computed by the oracle, never written by hand; a row only declares its intent
// (positive, or which layer must reject it), and the builder refuses to emit a row whose declared
// intent the oracle does not confirm.

import { evaluate, hostRejectedResult } from '../../oracle/evaluate.ts';
import { FIXTURE_HOST_SOURCE, FIXTURE_HOST_TOOL, FIXTURE_HOST_TOOL_PATH } from '../../oracle/fixture-host.ts';
import { describeUndefined, undefinedAspects } from '../../oracle/undefined-inputs.ts';
import { RESULT_KEYS, type ApplicationResult } from '../../oracle/types.ts';
import type { JsonObject, JsonValue } from '../../protocol/json.ts';
import type {
  DeliverAt,
  InterceptCapabilities,
  InterceptEvent,
  InterceptRequest,
  InterceptState,
  ModifyAdvertisement,
} from '../../protocol/messages.ts';
import type { ProtocolValidators } from '../../protocol/validator-types.ts';
import type { NegativeTag, Scenario, ScenarioFile } from '../../scenarios/types.ts';
import { allow, ask, cont, contextMessages, deny, inject, merge, message, replace, respond, ret, stop } from '../../generate/effect-builders.ts';

// ----- constants of the synthetic fixture host (its tool and source: ../oracle/fixture-host.ts) ------

export const FIXTURE_TIME = '2026-01-01T00:00:00Z';
const ALL_TOOL_EFFECTS = ['deny', 'allow', 'ask', 'modify', 'message', 'return', 'flow', 'inject'] as const;
type ToolEffect = (typeof ALL_TOOL_EFFECTS)[number];


/** A row's declared intent before the oracle fills in its expectation. */
interface RowSpec {
  id: string;
  description: string;
  /** Area tags (permission, modify, ...); the builder adds `positive` or the negative tag. */
  areas: string[];
  request: InterceptRequest;
  response: JsonObject;
  /** Which layer must reject the response; absent for accepted rows. */
  negative?: NegativeTag;
  /** Task-input negatives: also record the SDK-accepted, host-rejected view. */
  hostExpected?: true;
}

/** A declared intent the oracle does not confirm: the generator's own inputs are wrong. */
export class ScenarioBuildError extends Error {
  override readonly name = 'ScenarioBuildError';
  constructor(readonly problems: string[]) {
    super(`core scenario build failed:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

// ----- request and response helpers -------------------------------------------------------------

interface ToolCapabilityOptions {
  effects?: readonly string[];
  modify?: ModifyAdvertisement;
  deliverAt?: DeliverAt[];
}

/** tool.before capabilities: every advertised effect gets the detail object the schema requires. */
function toolCaps(options: ToolCapabilityOptions = {}): InterceptCapabilities {
  const effects = [...(options.effects ?? ALL_TOOL_EFFECTS)];
  const caps: InterceptCapabilities = { effects };
  if (effects.includes('modify')) caps.modify = { input: options.modify ?? { replace: true, merge: true } };
  if (effects.includes('flow')) caps.flow = { operations: ['stop'] };
  if (effects.includes('inject')) caps.inject = { context: { append: true, deliverAt: options.deliverAt ?? ['now', 'next_turn'] } };
  return caps;
}

function capsWithout(effect: ToolEffect): InterceptCapabilities {
  return toolCaps({ effects: ALL_TOOL_EFFECTS.filter((e) => e !== effect) });
}

interface ToolRequestOptions {
  input?: JsonObject;
  /** A tool other than the fixture host's `task` (the row's description must say which rules still apply). */
  toolName?: string;
  capabilities?: InterceptCapabilities;
  state?: InterceptState;
}

/** The hooks/intercept envelope every row's request shares; `state` is added only when given. */
function interceptRequest(id: string, event: InterceptEvent, capabilities: InterceptCapabilities, state?: InterceptState): InterceptRequest {
  const request: InterceptRequest = {
    jsonrpc: '2.0',
    id,
    method: 'hooks/intercept',
    params: { protocolVersion: 'draft', event, capabilities },
  };
  if (state) request.params.state = state;
  return request;
}

/** A tool.before request of the fixture host (its tool `task`, input `{task: 1}` by default). */
export function toolRequest(id: string, options: ToolRequestOptions = {}): InterceptRequest {
  const tool =
    options.toolName === undefined
      ? { ...FIXTURE_HOST_TOOL, input: options.input ?? { task: 1 } }
      : { name: options.toolName, origin: FIXTURE_HOST_TOOL.origin, input: options.input ?? { task: 1 } };
  const event: InterceptEvent = {
    id,
    source: FIXTURE_HOST_SOURCE,
    type: 'tool.before',
    time: FIXTURE_TIME,
    call: { id: `call-${id}` },
    tool,
    path: FIXTURE_HOST_TOOL_PATH,
  };
  return interceptRequest(id, event, options.capabilities ?? toolCaps(), options.state);
}

interface FinishRequestOptions {
  /** capabilities.flow.remainingContinuations (default 2). */
  remaining?: number;
  /** Continuations already taken this turn (event.continuationCount, default 0). */
  count?: number;
  operations?: Array<'stop' | 'continue'>;
  effects?: string[];
  state?: InterceptState;
}

function finishRequest(id: string, options: FinishRequestOptions = {}): InterceptRequest {
  const remaining = options.remaining ?? 2;
  const count = options.count ?? 0;
  const event: InterceptEvent = {
    id,
    source: FIXTURE_HOST_SOURCE,
    type: 'turn.finish.before',
    time: FIXTURE_TIME,
    turn: { id: `turn-${id}` },
    outcome: 'completed',
    continuationCount: count,
    items: [],
  };
  const capabilities: InterceptCapabilities = {
    effects: options.effects ?? ['flow', 'message'],
    flow: {
      operations: options.operations ?? ['stop', 'continue'],
      remainingContinuations: remaining,
      continuationCount: count,
      maxContinuations: remaining + count,
    },
  };
  return interceptRequest(id, event, capabilities, options.state);
}

function state(permission: InterceptState['permission'], candidate: JsonValue | undefined = undefined, extra: Partial<InterceptState> = {}): InterceptState {
  return {
    permission,
    candidate: candidate === undefined ? null : { value: candidate, provenance: { requestId: 'earlier-request' } },
    ...extra,
  };
}

// ----- the rows ------------------------------------------------------------------------------------

/** A tool.before row whose request is the default one except for the given options. */
function toolRow(
  id: string,
  description: string,
  areas: string[],
  effects: JsonValue[],
  options: ToolRequestOptions & { negative?: NegativeTag; hostExpected?: true } = {},
): RowSpec {
  const { negative, hostExpected, ...requestOptions } = options;
  return withIntent({ id, description, areas, request: toolRequest(id, requestOptions), response: respond(id, effects) }, negative, hostExpected);
}

function finishRow(
  id: string,
  description: string,
  areas: string[],
  effects: JsonValue[],
  options: FinishRequestOptions & { negative?: NegativeTag } = {},
): RowSpec {
  const { negative, ...requestOptions } = options;
  return withIntent({ id, description, areas, request: finishRequest(id, requestOptions), response: respond(id, effects) }, negative);
}

/** A tool.before row with a hand-shaped response envelope (envelope and correlation cases). */
function envelopeRow(
  id: string,
  description: string,
  response: (id: string) => JsonObject,
  negative?: NegativeTag,
  areas: string[] = ['envelope'],
): RowSpec {
  return withIntent({ id, description, areas, request: toolRequest(id), response: response(id) }, negative);
}

function withIntent(row: RowSpec, negative?: NegativeTag, hostExpected?: true): RowSpec {
  if (negative) row.negative = negative;
  if (hostExpected) row.hostExpected = hostExpected;
  return row;
}

const PERMISSION_ORDERS: Array<[string, JsonObject[]]> = [
  ['deny-ask', [deny(), ask()]],
  ['ask-deny', [ask(), deny()]],
  ['ask-allow', [ask(), allow()]],
  ['allow-ask', [allow(), ask()]],
  ['deny-allow', [deny(), allow()]],
  ['allow-deny', [allow(), deny()]],
  ['deny-ask-allow', [deny(), ask(), allow()]],
  ['deny-allow-ask', [deny(), allow(), ask()]],
  ['ask-deny-allow', [ask(), deny(), allow()]],
  ['ask-allow-deny', [ask(), allow(), deny()]],
  ['allow-deny-ask', [allow(), deny(), ask()]],
  ['allow-ask-deny', [allow(), ask(), deny()]],
];

function permissionRows(): RowSpec[] {
  const P = ['permission'];
  const rows: RowSpec[] = [
    toolRow('permission.no-effects-allows', 'No effects: permission none resolves to allow under the fixture policy and the tool executes', P, []),
    toolRow('permission.allow', 'An explicit allow resolves to allow and the tool executes', P, [allow()]),
    toolRow('permission.deny', 'A deny resolves to deny and the tool does not execute', P, [deny()]),
    toolRow('permission.ask-stays-pending', 'An ask stays pending: no approval is fabricated and the tool does not execute', P, [ask()]),
    toolRow('permission.deny-with-code', 'A deny with a dotted code is accepted like any deny', P, [{ type: 'deny', reason: 'blocked', code: 'fixture.policy-block' }]),
  ];
  for (const [order, effects] of PERMISSION_ORDERS) {
    const names = order.split('-');
    const winner = names.includes('deny') ? 'deny' : 'ask';
    rows.push(
      toolRow(
        `permission.precedence.${order}`,
        `Permission effects in the order ${names.join(', ')}: ${winner} wins regardless of order`,
        P,
        effects,
      ),
    );
  }
  rows.push(
    toolRow('permission.ask-beats-return', 'A return after an ask cannot bypass the pending ask: no execution, no result', [...P, 'return'], [ask(), ret({ cached: true })]),
    toolRow('permission.return-before-ask', 'A return before an ask still cannot bypass the pending ask', [...P, 'return'], [ret({ cached: true }), ask()]),
    toolRow('permission.return-alone-allowed-not-executed', 'Return alone is not permission: allow resolves from the fixture policy, the candidate is selected and the tool is not executed', [...P, 'return'], [ret({ cached: true })]),
    toolRow('permission.allow-with-return', 'Allow plus return selects the candidate instead of executing', [...P, 'return'], [allow(), ret('cached output')]),
    toolRow('permission.deny-discards-candidate', 'A deny after a return discards the candidate', [...P, 'return'], [ret({ cached: true }), deny()]),
  );
  return rows;
}

function returnRows(): RowSpec[] {
  const R = ['return'];
  const values: Array<[string, string, JsonValue]> = [
    ['null', 'JSON null', null],
    ['false', 'false', false],
    ['zero', 'the number 0', 0],
    ['empty-string', 'the empty string', ''],
    ['empty-array', 'an empty array', []],
    ['empty-object', 'an empty object', {}],
  ];
  const rows = values.map(([slug, label, value]) =>
    toolRow(`return.${slug}`, `A returned ${label} is a real candidate value: selected as the result, the tool does not execute`, R, [ret(value)]),
  );
  rows.push(
    toolRow('return.structured-value', 'A structured return value is selected verbatim', R, [ret({ status: 'ok', lines: ['a', 'b'], nested: { n: 1 } })]),
    toolRow('return.later-return-replaces-earlier', 'A later return in the same response replaces the earlier candidate', R, [ret('first'), ret('second')]),
    toolRow('return.with-message', 'A return with a message: the message is kept and the candidate selected', [...R, 'message'], [message('served from cache'), ret({ cached: true })]),
  );
  return rows;
}

function modifyRows(): RowSpec[] {
  const M = ['modify'];
  return [
    toolRow('modify.merge-adds-key', 'Merge adds a new key to the input and keeps the others', M, [merge({ mode: 'fast' })]),
    toolRow('modify.merge-overrides-key', 'Merge overrides an existing key', M, [merge({ task: 2 })], { input: { task: 1, mode: 'slow' } }),
    toolRow('modify.merge-nested-replaced-whole', 'Merge is shallow: a nested object replaces the whole nested object', M, [merge({ options: { c: 3 } })], {
      input: { task: 1, options: { a: 1, b: 2 } },
    }),
    toolRow('modify.merge-null-literal', 'Merging null stores a literal null; it does not delete the key', M, [merge({ note: null })], { input: { task: 1, note: 'keep me?' } }),
    toolRow('modify.merge-empty-object', 'Merging an empty object leaves the input unchanged', M, [merge({})], { input: { task: 1, mode: 'slow' } }),
    toolRow('modify.replace', 'Replace substitutes the whole input', M, [replace({ task: 2, mode: 'fast' })]),
    toolRow('modify.replace-removes-omitted-keys', 'Replace removes every key the replacement omits', M, [replace({ task: 3 })], {
      input: { task: 1, mode: 'slow', extra: true },
    }),
    toolRow('modify.several-in-order', 'Several modifications apply in response order: merge, replace, merge', M, [
      merge({ task: 2, stale: true }),
      replace({ task: 5, a: 1 }),
      merge({ b: 2 }),
    ]),
    toolRow('modify.merge-twice-last-wins', 'Two merges of the same key: the later value wins', M, [merge({ task: 2 }), merge({ task: 7 })]),
    toolRow('modify.return-before-modify-binds-final-input', 'A return placed before a modify still binds to the final modified input', [...M, 'return'], [
      ret({ cached: 'for task 2' }),
      merge({ task: 2 }),
    ]),
    toolRow('modify.return-after-modify', 'A return after a modify binds to the modified input', [...M, 'return'], [merge({ task: 2 }), ret({ cached: 'for task 2' })]),
    toolRow('modify.with-deny', 'A modify accepted together with a deny: the input changes, the tool does not execute', [...M, 'permission'], [merge({ task: 2 }), deny()]),
    toolRow('modify.with-ask', 'A modify accepted together with an ask: the input changes, the ask stays pending', [...M, 'permission'], [merge({ task: 2 }), ask()]),
    toolRow('modify.replace-only-advertised', 'Replace is accepted when only replace is advertised', M, [replace({ task: 2 })], {
      capabilities: toolCaps({ modify: { replace: true, merge: false } }),
    }),
    toolRow('modify.merge-only-advertised', 'Merge is accepted when only merge is advertised', M, [merge({ task: 2 })], {
      capabilities: toolCaps({ modify: { replace: false, merge: true } }),
    }),
    // The fixture host's positive-integer task rule (application-invalid, with the SDK-level view).
    toolRow('modify.task-missing-after-replace', 'A replace that drops task fails the host task rule; the message must not leak', M, [message('replacing input'), replace({ mode: 'fast' })], {
      negative: 'application-invalid',
      hostExpected: true,
    }),
    toolRow('modify.task-zero', 'Merging task 0 fails the host positive-integer task rule', M, [message('setting task'), merge({ task: 0 })], {
      negative: 'application-invalid',
      hostExpected: true,
    }),
    toolRow('modify.task-negative', 'Merging a negative task fails the host positive-integer task rule', M, [merge({ task: -3 }), message('after the bad merge')], {
      negative: 'application-invalid',
      hostExpected: true,
    }),
    toolRow('modify.task-boolean', 'Merging task true fails the host rule: booleans are not integers', M, [message('setting task'), merge({ task: true })], {
      negative: 'application-invalid',
      hostExpected: true,
    }),
    toolRow('modify.task-string', 'Merging the string "1" as task fails the host rule: strings are not integers', M, [message('setting task'), merge({ task: '1' })], {
      negative: 'application-invalid',
      hostExpected: true,
    }),
  ];
}

function messageRows(): RowSpec[] {
  const G = ['message'];
  return [
    toolRow('message.single', 'One message is reported after acceptance', G, [message('hello from the hook')]),
    toolRow('message.in-order', 'Several messages accumulate in response order', G, [message('first'), message('second'), message('third')]),
    toolRow('message.empty-text', 'An empty message text is still a message', G, [message('')]),
    toolRow('message.deny-reason-not-appended', 'A deny reason is not added to the explicit message list', [...G, 'permission'], [message('explaining'), deny('secret reason')]),
    toolRow('message.flow-reason-not-appended', 'A flow stop reason is not added to the explicit message list', [...G, 'flow'], [stop('stop reason'), message('explaining')]),
  ];
}

function flowRows(): RowSpec[] {
  const F = ['flow'];
  return [
    // tool.before
    toolRow('flow.tool.stop-keeps-allow', 'Stop at tool.before prevents execution but keeps the allow decision', F, [stop()]),
    toolRow('flow.tool.stop-with-deny', 'Stop plus deny: decision deny, flow stop', [...F, 'permission'], [stop(), deny()]),
    toolRow('flow.tool.stop-with-ask', 'Stop plus ask: the ask stays pending, flow stop', [...F, 'permission'], [ask(), stop()]),
    toolRow('flow.tool.stop-blocks-candidate', 'Stop prevents a returned candidate from being selected', [...F, 'return'], [ret({ cached: true }), stop()]),
    toolRow('flow.tool.continue-not-advertised', 'Continue at tool.before is not advertised (only stop is): the response is rejected', F, [message('must not leak'), cont('go on')], {
      negative: 'capability-invalid',
    }),
    // turn.finish.before
    finishRow('flow.finish.no-effects', 'No effects at turn.finish.before: nothing executes, no flow is resolved', F, []),
    finishRow('flow.finish.continue-with-instruction', 'Continue with an instruction consumes one unit of the allowance', F, [cont('summarise the result')]),
    finishRow('flow.finish.continue-without-instruction', 'Continue without an instruction still consumes one unit', F, [cont()]),
    finishRow('flow.finish.several-continues-consume-one', 'Several continues resolve to one continuation and consume exactly one unit', F, [cont('first'), cont(), cont('third')], {
      remaining: 3,
    }),
    finishRow('flow.finish.continue-last-unit', 'Continue with one remaining continuation leaves zero', F, [cont('last one')], { remaining: 1, count: 2 }),
    finishRow('flow.finish.stop-alone', 'Stop alone: flow stop, an empty instruction list, the allowance unchanged', F, [stop()]),
    finishRow('flow.finish.stop-wins-after-continue', 'Continue then stop: stop wins, the instruction is retained, nothing is consumed', F, [cont('keep going'), stop()]),
    finishRow('flow.finish.stop-wins-before-continue', 'Stop then continue: stop wins, the instruction is retained, nothing is consumed', F, [stop(), cont('keep going')]),
    finishRow('flow.finish.stop-with-exhausted-allowance', 'Stop is accepted when no continuation remains', F, [stop()], { remaining: 0, count: 3 }),
    finishRow('flow.finish.continue-with-messages', 'Continue with messages around it: messages in order, one unit consumed', [...F, 'message'], [message('before'), cont('next'), message('after')]),
    finishRow('flow.finish.continue-exhausted', 'Continue with remainingContinuations 0 is rejected', F, [message('must not leak'), cont('one more')], {
      remaining: 0,
      count: 3,
      negative: 'capability-invalid',
    }),
    finishRow('flow.finish.continue-exhausted-with-stop', 'Stop does not salvage an exhausted continuation request', F, [stop(), cont('one more')], {
      remaining: 0,
      count: 3,
      negative: 'capability-invalid',
    }),
    finishRow('flow.finish.stop-not-advertised', 'Stop is rejected when only continue is advertised', F, [cont('fine'), stop()], {
      operations: ['continue'],
      negative: 'capability-invalid',
    }),
  ];
}

function injectRows(): RowSpec[] {
  const I = ['inject'];
  return [
    toolRow('inject.now', 'An inject delivered now is accepted and recorded in full', I, [inject('now', 'Context for this step')]),
    toolRow('inject.next-turn', 'An inject scheduled for the next turn is accepted and recorded in full', I, [inject('next_turn', 'Context for the next turn')]),
    toolRow('inject.multiple-in-order', 'Several injects accumulate in array order', I, [
      inject('now', 'First context'),
      inject('next_turn', 'Second context'),
      inject('now', 'Third context'),
    ]),
    toolRow('inject.not-a-message', 'An inject is not a user message: the message list holds only explicit messages', [...I, 'message'], [inject('now', 'Model context'), message('user-facing')]),
    toolRow('inject.only-now-advertised', 'An inject now is accepted when only now is advertised', I, [inject('now', 'Context now')], {
      capabilities: toolCaps({ deliverAt: ['now'] }),
    }),
    toolRow('inject.next-turn-not-advertised', 'An inject for next_turn is rejected when only now is advertised', I, [message('must not leak'), inject('next_turn', 'Later context')], {
      capabilities: toolCaps({ deliverAt: ['now'] }),
      negative: 'capability-invalid',
    }),
    toolRow('inject.now-not-advertised', 'An inject for now is rejected when only next_turn is advertised', I, [inject('next_turn', 'Fine'), inject('now', 'Not advertised')], {
      capabilities: toolCaps({ deliverAt: ['next_turn'] }),
      negative: 'capability-invalid',
    }),
    toolRow('inject.deliver-at-unknown', 'An inject with deliverAt "later" fails the schema', I, [{ ...inject('now', 'Context'), deliverAt: 'later' }], {
      negative: 'schema-invalid',
    }),
  ];
}

function stateRows(): RowSpec[] {
  const S = ['state'];
  const candidate = { cached: 'earlier result' };
  return [
    toolRow('state.omitted', 'Omitted state initialises permission none and no candidate: allowed and executed', S, [message('no state')]),
    toolRow('state.explicit-none', 'Explicit state with permission none and a null candidate behaves like omitted state', S, [], { state: state('none') }),
    toolRow('state.incoming-allow', 'Incoming allow with no effects: allowed and executed', S, [], { state: state('allow') }),
    toolRow('state.incoming-ask', 'Incoming ask with no effects stays pending', S, [], { state: state('ask') }),
    toolRow('state.incoming-deny', 'Incoming deny with no effects stays denied', S, [], { state: state('deny') }),
    toolRow('state.incoming-deny-sticky-over-allow', 'Incoming deny is sticky: a new allow does not lift it', [...S, 'permission'], [allow()], { state: state('deny') }),
    toolRow('state.incoming-ask-with-allow', 'Incoming ask persists despite a new allow', [...S, 'permission'], [allow()], { state: state('ask') }),
    toolRow('state.incoming-allow-invalidated-by-change', 'A changed input invalidates the incoming allow (which the fixture policy re-grants)', [...S, 'modify'], [merge({ task: 2 })], {
      state: state('allow'),
    }),
    toolRow('state.candidate-preserved-no-modify', 'An incoming candidate is preserved when nothing modifies the input', S, [], { state: state('none', candidate) }),
    toolRow('state.candidate-preserved-equal-merge', 'A merge that yields a deeply equal input preserves the candidate', [...S, 'modify'], [merge({ task: 1 })], {
      state: state('none', candidate),
    }),
    toolRow('state.candidate-preserved-reordered-keys', 'A replace with the same keys in another order preserves the candidate', [...S, 'modify'], [replace({ mode: 'slow', task: 1 })], {
      input: { task: 1, mode: 'slow' },
      state: state('none', candidate),
    }),
    toolRow('state.candidate-invalidated-by-change', 'A changed input invalidates the incoming candidate, so the tool executes', [...S, 'modify'], [merge({ task: 2 })], {
      state: state('none', candidate),
    }),
    toolRow('state.candidate-value-null', 'An incoming candidate whose value is JSON null is still a candidate', S, [], { state: state('none', null) }),
    toolRow('state.null-candidate', 'A null candidate means no candidate: the tool executes', S, [], { state: { permission: 'none', candidate: null } }),
    toolRow('state.candidate-with-incoming-allow', 'Incoming allow plus candidate: the candidate is selected', S, [], { state: state('allow', candidate) }),
    toolRow('state.candidate-with-incoming-ask', 'Incoming ask keeps the candidate from being selected', S, [], { state: state('ask', candidate) }),
    toolRow('state.candidate-replaced-by-new-return', 'A new return replaces the incoming candidate', [...S, 'return'], [ret('fresh')], { state: state('none', candidate) }),
    toolRow('state.candidate-discarded-by-deny', 'A new deny discards the incoming candidate', [...S, 'permission'], [deny()], { state: state('none', candidate) }),
    toolRow('state.candidate-kept-on-rejected-rewrite', 'A rejected rewrite leaves the incoming candidate and allow untouched (atomic failure)', [...S, 'modify'], [merge({ task: 2 }), { type: 'rewrite' }], {
      state: state('allow', candidate),
      negative: 'schema-invalid',
    }),
    // Incoming state members other than permission and candidate (flow, instructions, injections)
    // carry an earlier interceptor's outcome, which the protocol leaves undefined
    // (../oracle/undefined-inputs.ts); only their empty forms, which carry nothing, are asserted.
    toolRow('state.flow-none-at-tool', 'An incoming state.flow "none" carries nothing: this response\'s stop alone decides', [...S, 'flow'], [stop()], {
      state: state('none', undefined, { flow: 'none' }),
    }),
    finishRow('state.flow-none-at-finish', 'An incoming state.flow "none" at turn.finish.before carries nothing: this response\'s continue consumes one unit', [...S, 'flow'], [cont('mine')], {
      state: state('none', undefined, { flow: 'none' }),
    }),
    finishRow('state.empty-instructions-at-finish', 'An empty incoming state.instructions carries nothing: only this response\'s instruction is reported', [...S, 'flow'], [cont('mine')], {
      state: state('none', undefined, { instructions: [] }),
    }),
    toolRow('state.empty-injections', 'An empty incoming state.injections carries nothing: only this response\'s inject is reported', [...S, 'inject'], [inject('now', 'Mine')], {
      state: state('none', undefined, { injections: [] }),
    }),
  ];
}

/**
 * Calls to a tool the fixture host does not have. Whether a host applies the task rule to such a tool
 * is undefined (../oracle/fixture-host.ts), so these rows stage only inputs that keep a positive
 * integer `task`: the rule, applied or not, decides nothing, and every other rule still holds.
 */
function otherToolRows(): RowSpec[] {
  const H = ['host'];
  const other = 'read_file';
  return [
    toolRow('host.other-tool-no-effects', `A call to the tool "${other}", not the fixture host's task: nothing is staged, so the task rule has nothing to check, and rule 2's policy still allows it and it executes`, [...H, 'permission'], [], {
      toolName: other,
    }),
    toolRow('host.other-tool-merge-keeps-task', `A merge into the input of the tool "${other}" that keeps task a positive integer: rules 4 and 5 apply as for task, and the task rule, applied or not, cannot refuse it`, [...H, 'modify'], [merge({ mode: 'fast' })], {
      toolName: other,
    }),
  ];
}

function envelopeRows(): RowSpec[] {
  const base = (id: JsonValue) => respond(id, [allow(), message('must not leak')]);
  const resultOf = (envelope: JsonObject): JsonObject => envelope.result as JsonObject;
  return [
    envelopeRow('envelope.extra-top-level-field', 'An unknown extra top-level envelope field is tolerated', (id) => ({ ...respond(id, [message('ok')]), trace: 'fixture' })),
    envelopeRow('envelope.extra-result-field', 'An unknown extra result field is tolerated', (id) => {
      const envelope = respond(id, [message('ok')]);
      return { ...envelope, result: { ...resultOf(envelope), note: 'ignored' } };
    }),
    envelopeRow('envelope.protocol-version-wrong', 'A result protocolVersion other than "draft" is rejected', (id) => {
      const envelope = base(id);
      return { ...envelope, result: { ...resultOf(envelope), protocolVersion: '2024-11-05' } };
    }, 'schema-invalid'),
    envelopeRow('envelope.protocol-version-missing', 'A result without protocolVersion is rejected', (id) => ({ jsonrpc: '2.0', id, result: { effects: [allow()] } }), 'schema-invalid'),
    envelopeRow('envelope.jsonrpc-missing', 'A response without jsonrpc is rejected', (id) => {
      const { jsonrpc: _dropped, ...rest } = base(id);
      return rest;
    }, 'schema-invalid'),
    envelopeRow('envelope.jsonrpc-1.0', 'A response with jsonrpc "1.0" is rejected', (id) => ({ ...base(id), jsonrpc: '1.0' }), 'schema-invalid'),
    envelopeRow('envelope.result-missing', 'A response without result is rejected', (id) => ({ jsonrpc: '2.0', id }), 'schema-invalid'),
    envelopeRow('envelope.result-not-object', 'A response whose result is an array is rejected', (id) => ({ jsonrpc: '2.0', id, result: [allow()] }), 'schema-invalid'),
    envelopeRow('envelope.effects-missing', 'A result without effects is rejected', (id) => ({ jsonrpc: '2.0', id, result: { protocolVersion: 'draft' } }), 'schema-invalid'),
    envelopeRow('envelope.effects-not-array', 'A result whose effects is an object is rejected', (id) => ({ jsonrpc: '2.0', id, result: { protocolVersion: 'draft', effects: allow() } }), 'schema-invalid'),
    envelopeRow('envelope.error-instead-of-result', 'A JSON-RPC error response is not an intercept result', (id) => ({ jsonrpc: '2.0', id, error: { code: -32603, message: 'internal error' } }), 'schema-invalid'),
    envelopeRow('envelope.result-and-error', 'A response carrying both result and error is rejected', (id) => ({ ...base(id), error: { code: -32603, message: 'internal error' } }), 'schema-invalid'),
    envelopeRow('envelope.result-carries-manifest', 'An intercept result carrying a discovery manifest is rejected', (id) => {
      const envelope = base(id);
      return { ...envelope, result: { ...resultOf(envelope), manifest: { name: 'fixture' } } };
    }, 'schema-invalid'),
    envelopeRow('envelope.response-id-mismatch', 'A response whose id names another request is rejected', () => base('another-request'), 'correlation-invalid'),
    envelopeRow('envelope.response-id-null', 'A response with a null id is rejected', () => base(null), 'correlation-invalid'),
    envelopeRow('envelope.response-id-number', 'A numeric response id never matches a string request id', () => base(1), 'correlation-invalid'),
  ];
}

/** Response-wide malformed-effect rejection: one bad effect fails the whole response. */
function malformedEffectRows(): RowSpec[] {
  const bad = (id: string, description: string, areas: string[], effects: JsonValue[], options: ToolRequestOptions = {}) =>
    toolRow(id, description, areas, effects, { ...options, negative: 'schema-invalid' });
  return [
    bad('effect.valid-deny-then-malformed', 'A valid deny followed by a malformed message: nothing applies', ['permission', 'message'], [deny(), { type: 'message', text: 7 }]),
    bad('effect.unknown-type-after-valid', 'An unknown effect type after valid effects fails the whole response', ['permission', 'message'], [
      allow(),
      message('must not leak'),
      { type: 'rewrite', value: { task: 2 } },
    ]),
    bad('effect.not-an-object', 'An effect that is a bare string fails the response', ['permission'], [allow(), 'deny']),
    bad('effect.deny-missing-reason', 'A deny without reason fails the schema', ['permission'], [{ type: 'deny' }]),
    bad('effect.deny-empty-reason', 'A deny with an empty reason fails the schema', ['permission'], [deny('')]),
    bad('effect.deny-malformed-code', 'A deny whose code is not a dotted name fails the schema', ['permission'], [{ ...deny(), code: 'not a code' }]),
    bad('effect.allow-extra-field', 'An allow with an extra field fails the closed effect shape', ['permission'], [{ type: 'allow', reason: 'because' }]),
    bad('effect.message-missing-text', 'A message without text fails the schema', ['message'], [{ type: 'message' }]),
    bad('effect.message-text-not-string', 'A message whose text is a number fails the schema', ['message'], [message('ok'), { type: 'message', text: 42 }]),
    bad('effect.modify-missing-value', 'A modify without value fails the schema', ['modify'], [{ type: 'modify', target: 'input', operation: 'merge' }]),
    bad('effect.modify-operation-unknown', 'A modify with operation "patch" fails the schema', ['modify'], [{ ...merge({ task: 2 }), operation: 'patch' }]),
    bad('effect.modify-target-unknown', 'A modify with an unknown target fails the schema', ['modify'], [{ ...merge({ task: 2 }), target: 'everything' }]),
    bad('effect.modify-input-not-object', 'A modify of input whose value is an array fails the schema', ['modify'], [replace([{ task: 2 }])]),
    bad('effect.return-missing-value', 'A return without value fails the schema', ['return'], [{ type: 'return' }]),
    bad('effect.flow-stop-missing-reason', 'A flow stop without reason fails the schema', ['flow'], [{ type: 'flow', operation: 'stop' }]),
    bad('effect.flow-operation-unknown', 'A flow with operation "pause" fails the schema', ['flow'], [{ type: 'flow', operation: 'pause', reason: 'wait' }]),
    finishRow('effect.flow-continue-empty-instruction', 'A continue with an empty instruction fails the schema', ['flow'], [cont('')], { negative: 'schema-invalid' }),
    finishRow('effect.flow-continue-extra-field', 'A continue with a reason field fails the closed effect shape', ['flow'], [{ ...cont('go'), reason: 'why' }], { negative: 'schema-invalid' }),
    bad('effect.inject-missing-deliver-at', 'An inject without deliverAt fails the schema', ['inject'], [
      { type: 'inject', target: 'context', operation: 'append', value: contextMessages('Context') },
    ]),
    bad('effect.inject-value-not-messages', 'An inject whose value is a plain string fails the schema', ['inject'], [{ ...inject('now', 'Context'), value: 'plain text' }]),
    bad('effect.inject-target-unknown', 'An inject with a target other than context fails the schema', ['inject'], [{ ...inject('now', 'Context'), target: 'prompt' }]),
  ];
}

/** Effects, operations and targets the request did not advertise. */
function capabilityRows(): RowSpec[] {
  const areaOf: Record<ToolEffect, string[]> = {
    deny: ['permission'],
    allow: ['permission'],
    ask: ['permission'],
    modify: ['modify'],
    message: ['message'],
    return: ['return'],
    flow: ['flow'],
    inject: ['inject'],
  };
  const effectOf: Record<ToolEffect, JsonObject> = {
    deny: deny(),
    allow: allow(),
    ask: ask(),
    modify: merge({ task: 2 }),
    message: message('unadvertised message'),
    return: ret({ cached: true }),
    flow: stop(),
    inject: inject('now', 'Unadvertised context'),
  };
  const rows = ALL_TOOL_EFFECTS.map((effect) => {
    const leading = effect === 'message' ? allow() : message('must not leak');
    return toolRow(
      `capability.${effect}-not-advertised`,
      `A ${effect} effect is rejected when capabilities.effects does not list it`,
      areaOf[effect],
      [leading, effectOf[effect]],
      { capabilities: capsWithout(effect), negative: 'capability-invalid' },
    );
  });
  rows.push(
    toolRow('capability.modify-merge-not-advertised', 'Merge is rejected when only replace is advertised for input', ['modify'], [merge({ mode: 'fast' })], {
      capabilities: toolCaps({ modify: { replace: true, merge: false } }),
      negative: 'capability-invalid',
    }),
    toolRow('capability.modify-replace-not-advertised', 'Replace is rejected when only merge is advertised for input', ['modify'], [replace({ task: 2 })], {
      capabilities: toolCaps({ modify: { replace: false, merge: true } }),
      negative: 'capability-invalid',
    }),
    toolRow('capability.modify-target-not-advertised', 'A modify of the output target at tool.before is rejected: only input is advertised', ['modify'], [
      { type: 'modify', target: 'output', operation: 'replace', value: contextMessages('Replaced output') },
    ], { negative: 'capability-invalid' }),
    toolRow('capability.unadvertised-after-valid-effects', 'An unadvertised effect after valid deny, message and return fails the whole response', ['permission', 'message', 'return'], [
      deny(),
      message('must not leak'),
      ret({ cached: true }),
      stop(),
    ], { capabilities: capsWithout('flow'), negative: 'capability-invalid' }),
  );
  return rows;
}

function allRows(): RowSpec[] {
  return [
    ...permissionRows(),
    ...returnRows(),
    ...modifyRows(),
    ...messageRows(),
    ...flowRows(),
    ...injectRows(),
    ...stateRows(),
    ...otherToolRows(),
    ...envelopeRows(),
    ...malformedEffectRows(),
    ...capabilityRows(),
  ];
}

// ----- assembly ------------------------------------------------------------------------------------

/** The application result as a JSON object with keys in the seed's table order. */
export function orderedResult(result: ApplicationResult): JsonObject {
  const source = result as unknown as Record<string, JsonValue | undefined>;
  const ordered: JsonObject = {};
  for (const key of RESULT_KEYS) {
    const value = source[key];
    if (value !== undefined) ordered[key] = value;
  }
  for (const [key, value] of Object.entries(source)) {
    if (!(key in ordered) && value !== undefined) ordered[key] = value;
  }
  return ordered;
}

/**
 * The core scenario file. `validators` must at least provide the intercept response validator the
 * oracle uses; the same build is reproduced byte for byte by `--check`.
 */
export function buildCoreScenarios(validators: Pick<ProtocolValidators, 'interceptResponse'>): ScenarioFile {
  const problems: string[] = [];
  const scenarios: Scenario[] = [];
  for (const row of allRows()) {
    const verdict = evaluate(row.request, row.response, validators);
    const open = undefinedAspects(row.request, { taskRuleDecides: hostRejectedResult(row.request, row.response, validators) !== undefined });
    if (open.length > 0) {
      problems.push(`${row.id}: would assert an outcome the protocol leaves undefined: ${describeUndefined(open)}`);
      continue;
    }
    const tags = [...row.areas, row.negative ?? 'positive'];
    const scenario: Scenario = { id: row.id, description: row.description, request: row.request, response: row.response };
    if (row.negative === undefined) {
      if (!verdict.accepted) {
        problems.push(`${row.id}: declared positive, but the oracle rejects it at the ${verdict.layer} layer: ${verdict.reason}`);
        continue;
      }
      scenario.expected = orderedResult(verdict.result);
    } else {
      if (verdict.accepted) {
        problems.push(`${row.id}: declared ${row.negative}, but the oracle accepts it`);
        continue;
      }
      if (`${verdict.layer}-invalid` !== row.negative) {
        problems.push(`${row.id}: declared ${row.negative}, but the oracle rejects it at the ${verdict.layer} layer: ${verdict.reason}`);
        continue;
      }
      scenario.expectError = true;
      if (row.hostExpected) {
        const sdkView = hostRejectedResult(row.request, row.response, validators);
        if (!sdkView) {
          problems.push(`${row.id}: declares hostExpected, but the rejection is not by the host task rule alone (${verdict.reason})`);
          continue;
        }
        scenario.hostExpected = orderedResult(sdkView);
      }
    }
    scenario.tags = tags;
    scenarios.push(scenario);
  }
  if (problems.length > 0) throw new ScenarioBuildError(problems);
  return { version: 1, scenarios };
}
