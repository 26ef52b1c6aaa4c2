// Targeted tests of the lifecycle simulators that compute our fixtures' `expected`: cancel dominance,
// first-response retention, acceptance by request id, the receiver's upload rules and ref model, the
// §7.8 chain permission recomputation, and the scripts the model refuses rather than guesses.

import path from 'node:path';

import { describe, expect, test } from 'vitest';

import { allow, ask, cont, deny, merge, message, replace, respond, ret, stop } from '../../harness/generate/effect-builders.ts';
import {
  CHAIN_TOOL_CAPABILITIES,
  PROPOSED_INPUT,
  attachmentBody,
  publish,
  requestId,
  script,
  sendAndStage,
  textMetadata,
  toolBeforeRequest,
  uploadStep,
} from '../../harness/families/lifecycle/wire.ts';
import { sha256Hex } from '../../harness/protocol/sha256-hex.ts';
import { chainPermissionAfter, recomputeChainPermissions, simulateChain } from '../../harness/families/lifecycle/simulate-chain.ts';
import { LifecycleSimulationError } from '../../harness/lifecycle-adapters/simulation-error.ts';
import { simulateStepScript } from '../../harness/lifecycle-adapters/simulate-step-script.ts';
import type { ChainScenario, ChainSubscription, LifecycleStep, StepScenario } from '../../harness/lifecycle-adapters/scenario-types.ts';
import { UploadLedger, receiverUploadOutcome, uploadBytes } from '../../harness/lifecycle-adapters/upload-receiver-model.ts';
import { projectRoot } from '../../harness/config/load-config.ts';
import type { JsonObject } from '../../harness/protocol/json.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';

const validators = loadValidators(path.join(projectRoot(), 'schemas'));
const ROW = 'unit';
const rpc = (key: string) => requestId(ROW, key);
const edit = (text: string): JsonObject[] => [replace({ ...PROPOSED_INPUT, text }), message(text), allow()];

/** A step row over requests `a` (and `b`) whose replies are the given effect lists. */
function stepRow(steps: LifecycleStep[], replies: Record<string, JsonObject[]>, sequences?: Record<string, JsonObject[][]>): StepScenario {
  const row: StepScenario = {
    id: ROW,
    requests: Object.fromEntries(Object.keys(replies).map((key) => [key, toolBeforeRequest(ROW, key)])),
    responses: Object.fromEntries(Object.entries(replies).map(([key, effects]) => [key, respond(rpc(key), effects)])),
    steps,
    expected: { published: [], cancelled: [], ignored: [], states: {}, observations: [], uploadStatuses: [] },
  };
  if (sequences !== undefined) {
    row.responseSequences = Object.fromEntries(Object.entries(sequences).map(([key, list]) => [key, list.map((effects) => respond(rpc(key), effects))]));
  }
  return row;
}

const run = (row: StepScenario) => simulateStepScript(row, validators);

function refusal(row: StepScenario): LifecycleSimulationError {
  try {
    run(row);
  } catch (error) {
    expect(error).toBeInstanceOf(LifecycleSimulationError);
    return error as LifecycleSimulationError;
  }
  throw new Error('expected the simulator to refuse the script');
}

describe('cancel dominance', () => {
  test('a cancel while the reply is held: nothing publishes, the late reply is ignored, accept and failOpen are no-ops', () => {
    const result = run(
      stepRow(
        script('send a', 'cancel a', 'failOpen a', 'release a', 'receive a', 'accept a'),
        { a: edit('late') },
      ),
    );
    expect(result.expected).toEqual({ published: [], cancelled: [rpc('a')], ignored: ['a'], states: {}, observations: [], uploadStatuses: [] });
    expect(result.trace.filter((e) => e.kind === 'no-op').map((e) => e.kind === 'no-op' && `${e.op}:${e.because}`)).toEqual(['failOpen:cancelled', 'accept:cancelled']);
  });

  test('a cancel after staging discards the staged reply: not ignored, not published', () => {
    const result = run(stepRow(script(sendAndStage('a'), 'cancel a', 'accept a'), { a: edit('staged') }));
    expect(result.expected.published).toEqual([]);
    expect(result.expected.ignored).toEqual([]);
    expect(result.trace.find((e) => e.kind === 'cancelled')).toMatchObject({ phase: 'staged', discarded: respond(rpc('a'), edit('staged')) });
  });

  test('a cancel after publication is recorded and keeps the published state', () => {
    const result = run(stepRow(script(publish('a'), 'cancel a', 'accept a', { op: 'observe', key: 'a', subscription: 'metadata' }), { a: edit('kept') }));
    expect(result.expected.published).toEqual([rpc('a')]);
    expect(result.expected.cancelled).toEqual([rpc('a')]);
    expect(result.expected.states[rpc('a')]).toEqual({ decision: 'allow', executed: true, input: { ...PROPOSED_INPUT, text: 'kept' }, messages: ['kept'] });
    expect(result.expected.observations[0]?.input).toEqual({ ...PROPOSED_INPUT, text: 'kept' });
  });

  test('a second cancel is not a second cancellation', () => {
    const result = run(stepRow(script('send a', 'cancel a', 'cancel a'), { a: edit('x') }));
    expect(result.expected.cancelled).toEqual([rpc('a')]);
  });
});

describe('first-response retention and acceptance by request id', () => {
  test('a duplicate reply with other effects while the first is staged is ignored; accept publishes the first', () => {
    const result = run(
      stepRow(
        script(sendAndStage('a'), 'replay a again', 'receive again', 'accept a'),
        { a: edit('first') },
        { a: [edit('first'), [deny('second'), message('second')]] },
      ),
    );
    expect(result.expected.ignored).toEqual(['again']);
    expect(result.expected.states[rpc('a')]).toMatchObject({ decision: 'allow', input: { ...PROPOSED_INPUT, text: 'first' }, messages: ['first'] });
  });

  test('replies arriving in reverse order each publish their own payload, whatever the acceptance order', () => {
    const result = run(
      stepRow(
        script('send a', 'send b', 'release b', 'receive b', 'release a', 'receive a', 'accept a', 'accept b'),
        { a: edit('for a'), b: edit('for b') },
      ),
    );
    expect(result.expected.published).toEqual([rpc('a'), rpc('b')]);
    expect(result.expected.states[rpc('a')]?.input).toEqual({ ...PROPOSED_INPUT, text: 'for a' });
    expect(result.expected.states[rpc('b')]?.input).toEqual({ ...PROPOSED_INPUT, text: 'for b' });
    expect(result.maxOutstanding).toBe(2);
  });

  test('accepting a request whose reply has not arrived is a no-op even when another reply is staged', () => {
    const result = run(
      stepRow(
        script('send a', 'send b', 'release a', 'receive a', 'accept b'),
        { a: edit('for a'), b: edit('for b') },
      ),
    );
    expect(result.expected.published).toEqual([]);
    expect(result.trace.find((e) => e.kind === 'no-op')).toMatchObject({ op: 'accept', id: rpc('b'), because: 'nothing staged', stagedOthers: [rpc('a')] });
  });

  test('published states are the oracle\'s: deny keeps the accepted merge, stop adds flow, ask does not execute', () => {
    const denied = run(stepRow(publish('a'), { a: [merge({ reviewer: 'x' }), deny('no'), message('why')] })).expected.states[rpc('a')];
    expect(denied).toEqual({ decision: 'deny', executed: false, input: { ...PROPOSED_INPUT, reviewer: 'x' }, messages: ['why'] });
    expect(run(stepRow(publish('a'), { a: [stop('halt')] })).expected.states[rpc('a')]).toEqual({ decision: 'allow', executed: false, input: PROPOSED_INPUT, messages: [], flow: 'stop' });
    expect(run(stepRow(publish('a'), { a: [ask()] })).expected.states[rpc('a')]).toEqual({ decision: 'ask', executed: false, input: PROPOSED_INPUT, messages: [] });
  });
});

describe('uploads: the receiver\'s rules and the alias table', () => {
  const bytes = Buffer.from([0x00, 0x10, 0xff]);
  const other = Buffer.from([0x00, 0x10, 0xfe]);

  test('statuses: 201 for true declarations, 400 for a wrong size or digest (before credentials), 401 for the refused token', () => {
    const status = (step: ReturnType<typeof uploadStep>) => receiverUploadOutcome(step, uploadBytes(step)!).status;
    expect(status(uploadStep('ok', bytes))).toBe(201);
    expect(status(uploadStep('size', bytes, { declaredSize: 4 }))).toBe(400);
    expect(status(uploadStep('digest', bytes, { declaredSha256: sha256Hex(other) }))).toBe(400);
    expect(status(uploadStep('refused', bytes, { unauthorized: true }))).toBe(401);
    expect(status(uploadStep('both', bytes, { unauthorized: true, declaredSize: 9 }))).toBe(400);
  });

  test('identical bytes may share one ref; changed bytes never do', () => {
    const ledger = new UploadLedger();
    const first = ledger.confirm('one', uploadBytes(uploadStep('one', bytes))!);
    const again = ledger.confirm('two', uploadBytes(uploadStep('two', bytes))!);
    const changed = ledger.confirm('three', uploadBytes(uploadStep('three', other))!);
    expect(first.sharedRef).toBe(false);
    expect(again.sharedRef).toBe(true);
    expect(again.binding.ref).toBe(first.binding.ref);
    expect(changed.binding.ref).not.toBe(first.binding.ref);
  });

  test('a 401 never rebinds an alias, and a body may reference it only after a 201', () => {
    const steps: LifecycleStep[] = [uploadStep('doc', bytes), uploadStep('doc', other, { unauthorized: true }), ...publish('a'), { op: 'observe', key: 'a', subscription: 'body', items: [attachmentBody('doc', 'doc')] }];
    const result = run(stepRow(steps, { a: edit('x') }));
    expect(result.expected.uploadStatuses).toEqual([201, 401]);
    const refused = result.trace.find((e) => e.kind === 'upload' && e.outcome.status === 401);
    expect(refused).toMatchObject({ binding: { sha256: sha256Hex(bytes) }, previous: { sha256: sha256Hex(bytes) } });

    const early = refusal(stepRow([uploadStep('doc', bytes, { unauthorized: true }), ...publish('a'), { op: 'observe', key: 'a', subscription: 'body', items: [attachmentBody('doc', 'doc')] }], { a: edit('x') }));
    expect(early.problem).toMatch(/body reference\(s\) doc before a confirmed upload/);
  });
});

describe('scripts the simulator refuses instead of guessing', () => {
  test('a receive before the release would wait forever', () => {
    expect(refusal(stepRow(script('send a', 'receive a'), { a: edit('x') })).where).toBe('steps[1]');
  });

  test('an observation before settlement', () => {
    expect(refusal(stepRow(script('send a', { op: 'observe', key: 'a', subscription: 'metadata' }), { a: edit('x') })).problem).toMatch(/before it is settled/);
  });

  test('a fail-open fallback that would publish (LIFECYCLE-RULES §13)', () => {
    expect(refusal(stepRow(script('send a', 'failOpen a'), { a: edit('x') })).problem).toMatch(/§13/);
  });

  test('staging a schema-invalid reply, accepting one the oracle rejects, or one whose result a state cannot express', () => {
    expect(refusal(stepRow(publish('a'), { a: [{ type: 'allow', extra: true }] })).problem).toMatch(/stages a schema-invalid reply/);
    expect(refusal(stepRow(publish('a'), { a: [cont('not at a tool boundary')] })).problem).toMatch(/oracle rejects it at the capability layer/);
    expect(refusal(stepRow(publish('a'), { a: [ret({ cached: true })] })).problem).toMatch(/carries result/);
  });

  test('a stray frame for an id whose reply is still awaited', () => {
    expect(refusal(stepRow(script('send a', { op: 'emit', response: respond(rpc('a'), [allow()]) }), { a: edit('x') })).problem).toMatch(/live request would consume it/);
  });
});

describe('chains: §7.8 permission recomputation', () => {
  test('deny → deny; ask → ask unless deny; allow → allow only from none', () => {
    expect(chainPermissionAfter('none', [allow()])).toBe('allow');
    expect(chainPermissionAfter('ask', [allow()])).toBe('ask');
    expect(chainPermissionAfter('allow', [ask()])).toBe('ask');
    expect(chainPermissionAfter('deny', [ask(), allow()])).toBe('deny');
    expect(chainPermissionAfter('none', [ask(), deny('x')])).toBe('deny');
    expect(chainPermissionAfter('none', [message('only a message')])).toBe('none');
  });

  const sub = (id: string, mode: ChainSubscription['mode'], content: ChainSubscription['content'] = 'metadata', failurePolicy: ChainSubscription['failurePolicy'] = 'fail-open'): ChainSubscription => ({
    id,
    backend: 'one',
    mode,
    failurePolicy,
    content,
  });
  function chainRow(subscriptions: ChainSubscription[], replies: JsonObject[][], interrupt = false): ChainScenario {
    const request = toolBeforeRequest(ROW, 'a', { capabilities: CHAIN_TOOL_CAPABILITIES, items: [textMetadata('note')] });
    const sequence = replies.map((effects) => respond(rpc('a'), effects));
    return {
      id: ROW,
      requests: { a: request },
      responses: { a: sequence[sequence.length - 1]! },
      responseSequences: { a: sequence },
      chain: { subscriptions, interrupt, holdObservers: false },
      steps: [],
      expected: { called: [], failures: [], observations: [], input: {} },
      chainProof: { requests: [], observations: [] },
    };
  }

  test('each call carries the permission and input accepted so far; a failed call changes neither', () => {
    const row = chainRow(
      [sub('x', 'intercept'), sub('y', 'intercept', 'omit'), sub('z', 'intercept'), sub('w', 'intercept'), sub('audit', 'observe')],
      [[allow()], [replace({ leaked: true }), ask(), ret(1)], [ask()], [allow()]],
    );
    const result = simulateChain(row, validators);
    expect(result.expected).toEqual({ called: ['x', 'y', 'z', 'w'], failures: ['y'], observations: ['audit'], input: PROPOSED_INPUT });
    expect(result.proof.requests.map((r) => r.params.state?.permission)).toEqual(['none', 'allow', 'allow', 'ask']);
    expect(recomputeChainPermissions(row, result.expected.called, result.expected.failures)).toEqual(['none', 'allow', 'allow', 'ask']);
    expect(result.proof.requests[1]?.params.event.items).toEqual([]);
    expect(result.proof.requests[2]?.params.event.tool?.input).toEqual(PROPOSED_INPUT);
  });

  test('a deny downgrades the uncalled interceptors; the called one gets no copy; interruption observes nothing', () => {
    const subscriptions = [sub('x', 'intercept'), sub('y', 'intercept', 'omit'), sub('audit', 'observe')];
    const denied = simulateChain(chainRow(subscriptions, [[merge({ seen: true }), deny('no')]]), validators);
    expect(denied.settlement).toBe('deny');
    expect(denied.expected).toEqual({ called: ['x'], failures: [], observations: ['y', 'audit'], input: { ...PROPOSED_INPUT, seen: true } });
    expect(denied.proof.observations.map((n) => n.params.event.items)).toEqual([[], [textMetadata('note')]]);

    const interrupted = simulateChain(chainRow(subscriptions, [[deny('never applied')]], true), validators);
    expect(interrupted.expected).toEqual({ called: ['x'], failures: [], observations: [], input: PROPOSED_INPUT });
  });

  test('a call after an input change under allow is refused: the spec drops the allow there, §7.8 keeps it', () => {
    const row = chainRow([sub('x', 'intercept'), sub('y', 'intercept'), sub('z', 'intercept')], [[allow()], [merge({ changed: true })], []]);
    expect(() => simulateChain(row, validators)).toThrow(/chain\.subscriptions\[2\].*changed the input under an allow/);
  });

  test('fail-closed ends the chain; fail-open skips to the next call', () => {
    const closed = simulateChain(chainRow([sub('x', 'intercept', 'metadata', 'fail-closed'), sub('y', 'intercept')], [[ret(1)]]), validators);
    expect(closed.settlement).toBe('fail-closed');
    expect(closed.expected).toEqual({ called: ['x'], failures: ['x'], observations: ['y'], input: PROPOSED_INPUT });
    const open = simulateChain(chainRow([sub('x', 'intercept'), sub('y', 'intercept')], [[ret(1)], []]), validators);
    expect(open.expected).toEqual({ called: ['x', 'y'], failures: ['x'], observations: [], input: PROPOSED_INPUT });
  });
});
