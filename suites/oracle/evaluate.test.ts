import { describe, expect, test } from 'vitest';
import { evaluate, hostRejectedResult } from '../../harness/oracle/evaluate.ts';
import { taskInputProblem } from '../../harness/oracle/fixture-host.ts';
import type { JsonObject } from '../../harness/protocol/json.ts';
import type { InterceptCapabilities, InterceptRequest, InterceptState } from '../../harness/protocol/messages.ts';
import type { ProtocolValidators } from '../../harness/protocol/validator-types.ts';

// Hand-derived expectations for each deterministic application rule. The values here are worked
// out from the seed text, not produced by the oracle, so these tests can disagree with it.

const schemaAlwaysValid: Pick<ProtocolValidators, 'interceptResponse'> = {
  interceptResponse: () => ({ valid: true, errors: [] }),
};

const TOOL_CAPS: InterceptCapabilities = {
  effects: ['deny', 'allow', 'ask', 'modify', 'message', 'return', 'flow', 'inject'],
  modify: { input: { replace: true, merge: true } },
  flow: { operations: ['stop'] },
  inject: { context: { append: true, deliverAt: ['now', 'next_turn'] } },
};

function toolRequest(input: JsonObject, state?: InterceptState, capabilities: InterceptCapabilities = TOOL_CAPS): InterceptRequest {
  return {
    jsonrpc: '2.0',
    id: 'row',
    method: 'hooks/intercept',
    params: {
      protocolVersion: 'draft',
      event: { id: 'row', type: 'tool.before', tool: { name: 'task', input, origin: 'native' } },
      capabilities,
      ...(state ? { state } : {}),
    },
  };
}

function finishRequest(remaining: number, state?: InterceptState): InterceptRequest {
  return {
    jsonrpc: '2.0',
    id: 'row',
    method: 'hooks/intercept',
    params: {
      protocolVersion: 'draft',
      event: { id: 'row', type: 'turn.finish.before' },
      capabilities: {
        effects: ['modify', 'flow', 'message'],
        modify: { response: { replace: true, merge: true } },
        flow: { operations: ['stop', 'continue'], remainingContinuations: remaining, continuationCount: 0 },
      },
      ...(state ? { state } : {}),
    },
  };
}

function respond(effects: unknown[], overrides: Record<string, unknown> = {}): unknown {
  return { jsonrpc: '2.0', id: 'row', result: { protocolVersion: 'draft', effects }, ...overrides };
}

function accepted(request: InterceptRequest, effects: unknown[]) {
  const verdict = evaluate(request, respond(effects), schemaAlwaysValid);
  if (!verdict.accepted) throw new Error(`expected acceptance, got ${verdict.layer}: ${verdict.reason}`);
  return verdict.result;
}

function rejected(request: InterceptRequest, response: unknown) {
  const verdict = evaluate(request, response, schemaAlwaysValid);
  if (verdict.accepted) throw new Error(`expected rejection, got ${JSON.stringify(verdict.result)}`);
  return verdict;
}

const stop = { type: 'flow', operation: 'stop', reason: 'halt' };
const cont = (instruction?: string) => ({ type: 'flow', operation: 'continue', ...(instruction ? { instruction } : {}) });

describe('rule 1–2: starting state and the fixture host policy', () => {
  test('omitted state resolves to allow and executes the original tool', () => {
    expect(accepted(toolRequest({ task: 1 }), [])).toStrictEqual({ decision: 'allow', executed: true, input: { task: 1 }, messages: [] });
  });
  test('incoming deny is sticky against a later allow', () => {
    const result = accepted(toolRequest({ task: 1 }, { permission: 'deny', candidate: null }), [{ type: 'allow' }]);
    expect(result).toStrictEqual({ decision: 'deny', executed: false, input: { task: 1 }, messages: [] });
  });
  test('incoming ask stays pending despite allow', () => {
    const result = accepted(toolRequest({ task: 1 }, { permission: 'ask', candidate: null }), [{ type: 'allow' }]);
    expect(result.decision).toBe('ask');
    expect(result.executed).toBe(false);
  });
  test('a null candidate value is a candidate, unlike a null candidate', () => {
    expect(accepted(toolRequest({ task: 1 }, { permission: 'none', candidate: { value: null } }), [])).toStrictEqual({
      decision: 'allow',
      executed: false,
      input: { task: 1 },
      messages: [],
      result: null,
    });
    expect(accepted(toolRequest({ task: 1 }, { permission: 'none', candidate: null }), [])).not.toHaveProperty('result');
  });
});

describe('rule 3: whole-response validation before anything is committed', () => {
  test('a wrong protocol version is a schema-layer rejection even if the schema set would let it through', () => {
    const response = { jsonrpc: '2.0', id: 'row', result: { protocolVersion: '2024-01', effects: [] } };
    expect(rejected(toolRequest({ task: 1 }), response).layer).toBe('schema');
  });
  test('an unknown effect type after valid effects rejects the whole response', () => {
    const verdict = rejected(toolRequest({ task: 1 }), respond([{ type: 'deny', reason: 'no' }, { type: 'teleport' }]));
    expect(verdict.layer).toBe('schema');
  });
  test('a mismatched response id is a correlation rejection', () => {
    expect(rejected(toolRequest({ task: 1 }), respond([], { id: 'other' })).layer).toBe('correlation');
    expect(rejected(toolRequest({ task: 1 }), respond([], { id: null })).layer).toBe('correlation');
  });
  test('unadvertised effect, target operation and deliverAt are capability rejections', () => {
    const caps: InterceptCapabilities = {
      effects: ['modify', 'inject'],
      modify: { input: { replace: true, merge: false } },
      inject: { context: { append: true, deliverAt: ['now'] } },
    };
    const request = toolRequest({ task: 1 }, undefined, caps);
    expect(rejected(request, respond([{ type: 'deny', reason: 'no' }])).layer).toBe('capability');
    expect(rejected(request, respond([{ type: 'modify', target: 'input', operation: 'merge', value: { task: 2 } }])).layer).toBe('capability');
    const later = { type: 'inject', target: 'context', operation: 'append', deliverAt: 'next_turn', value: [] };
    expect(rejected(request, respond([later])).layer).toBe('capability');
  });
  test('the schema verdict comes first and is reported as such', () => {
    const failing: Pick<ProtocolValidators, 'interceptResponse'> = { interceptResponse: () => ({ valid: false, errors: ['/result: must have effects'] }) };
    const verdict = evaluate(toolRequest({ task: 1 }), respond([]), failing);
    expect(verdict).toMatchObject({ accepted: false, layer: 'schema' });
  });
  test('unknown extra envelope and result fields are not errors', () => {
    const response = { jsonrpc: '2.0', id: 'row', trace: 'x', result: { protocolVersion: 'draft', effects: [], vendor: 1 } };
    expect(evaluate(toolRequest({ task: 1 }), response, schemaAlwaysValid).accepted).toBe(true);
  });
});

describe('rule 4: staging modifications', () => {
  test('merge is shallow, nested objects replace whole, null is a literal', () => {
    const result = accepted(toolRequest({ task: 1, opts: { a: 1, b: 2 }, keep: true }), [
      { type: 'modify', target: 'input', operation: 'merge', value: { opts: { a: 9 }, keep: null } },
    ]);
    expect(result.input).toStrictEqual({ task: 1, opts: { a: 9 }, keep: null });
  });
  test('replace removes omitted keys and modifications apply in order', () => {
    const result = accepted(toolRequest({ task: 1, extra: 'x' }), [
      { type: 'modify', target: 'input', operation: 'replace', value: { task: 2 } },
      { type: 'modify', target: 'input', operation: 'merge', value: { task: 3, note: 'n' } },
    ]);
    expect(result.input).toStrictEqual({ task: 3, note: 'n' });
  });
  test('a return placed before a modify binds to the final input', () => {
    const result = accepted(toolRequest({ task: 1 }), [
      { type: 'return', value: 'cached' },
      { type: 'modify', target: 'input', operation: 'merge', value: { task: 2 } },
    ]);
    expect(result).toStrictEqual({ decision: 'allow', executed: false, input: { task: 2 }, messages: [], result: 'cached' });
  });
  test.each([
    ['missing', {}],
    ['zero', { task: 0 }],
    ['negative', { task: -3 }],
    ['boolean', { task: true }],
    ['string', { task: '1' }],
    ['fraction', { task: 1.5 }],
  ])('task %s is refused by the fixture host at the application layer', (_name, value) => {
    const verdict = rejected(
      toolRequest({ task: 1 }),
      respond([{ type: 'message', text: 'm' }, { type: 'modify', target: 'input', operation: 'replace', value }]),
    );
    expect(verdict).toMatchObject({ layer: 'application', hostRule: true });
  });
  test('the SDK-level view of a host-refused response keeps input and messages, with execution refused', () => {
    const request = toolRequest({ task: 1 });
    const response = respond([{ type: 'message', text: 'm' }, { type: 'modify', target: 'input', operation: 'merge', value: { task: 0 } }]);
    expect(hostRejectedResult(request, response, schemaAlwaysValid)).toStrictEqual({
      decision: 'allow',
      executed: false,
      input: { task: 0 },
      messages: ['m'],
    });
  });
  test('a host-valid response has no host-rejected view', () => {
    expect(hostRejectedResult(toolRequest({ task: 1 }), respond([]), schemaAlwaysValid)).toBeUndefined();
  });
  test('a "__proto__" key is plain data in merges and copies', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "task": 2}') as JsonObject;
    const result = accepted(toolRequest({ task: 1 }), [{ type: 'modify', target: 'input', operation: 'merge', value }]);
    expect(Object.keys(result.input ?? {})).toEqual(['task', '__proto__']);
    expect(JSON.stringify(result.input)).toBe('{"task":2,"__proto__":{"polluted":true}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  test('booleans are not integers', () => {
    expect(taskInputProblem({ task: true })).toBeDefined();
    expect(taskInputProblem({ task: 7 })).toBeUndefined();
  });
});

describe('rule 5: candidates, invalidation and permission precedence', () => {
  const withCandidate: InterceptState = { permission: 'allow', candidate: { value: 'prior', provenance: { requestId: 'earlier' } } };
  test('a deeply equal input with reordered keys preserves the incoming candidate', () => {
    const result = accepted(toolRequest({ task: 1, b: { y: 2, x: 1 } }, withCandidate), [
      { type: 'modify', target: 'input', operation: 'replace', value: { b: { x: 1, y: 2 }, task: 1 } },
    ]);
    expect(result).toMatchObject({ decision: 'allow', executed: false, result: 'prior' });
  });
  test('a changed input invalidates the incoming candidate and the original tool runs', () => {
    const result = accepted(toolRequest({ task: 1 }, withCandidate), [{ type: 'modify', target: 'input', operation: 'merge', value: { task: 2 } }]);
    expect(result).toStrictEqual({ decision: 'allow', executed: true, input: { task: 2 }, messages: [] });
  });
  test.each([
    [['deny', 'ask', 'allow'], 'deny'],
    [['allow', 'ask', 'deny'], 'deny'],
    [['allow', 'ask'], 'ask'],
    [['ask', 'allow'], 'ask'],
    [['allow'], 'allow'],
  ])('permission effects %j resolve to %s', (types, decision) => {
    const effects = types.map((type) => (type === 'deny' ? { type, reason: 'r' } : { type }));
    expect(accepted(toolRequest({ task: 1 }), effects).decision).toBe(decision);
  });
  test('return cannot bypass ask, and deny discards the candidate', () => {
    const asked = accepted(toolRequest({ task: 1 }), [{ type: 'return', value: 1 }, { type: 'ask' }]);
    expect(asked).toStrictEqual({ decision: 'ask', executed: false, input: { task: 1 }, messages: [] });
    const denied = accepted(toolRequest({ task: 1 }, withCandidate), [{ type: 'deny', reason: 'no' }]);
    expect(denied).not.toHaveProperty('result');
  });
  test('return alone is not permission but selects the candidate under the allowing host', () => {
    expect(accepted(toolRequest({ task: 1 }), [{ type: 'return', value: false }])).toMatchObject({ decision: 'allow', executed: false, result: false });
  });
});

describe('rules 6–9: messages, flow, injections, execution', () => {
  test('messages accumulate in order; deny and flow reasons are not messages', () => {
    const result = accepted(toolRequest({ task: 1 }), [
      { type: 'message', text: 'one' },
      { type: 'deny', reason: 'not a message' },
      stop,
      { type: 'message', text: 'two' },
    ]);
    expect(result).toStrictEqual({
      decision: 'deny',
      executed: false,
      input: { task: 1 },
      messages: ['one', 'two'],
      flow: 'stop',
    });
  });
  test('stop at tool.before keeps the allow decision and prevents execution and candidates; no continuation keys', () => {
    const result = accepted(toolRequest({ task: 1 }, { permission: 'none', candidate: { value: 3 } }), [stop]);
    expect(result).toStrictEqual({ decision: 'allow', executed: false, input: { task: 1 }, messages: [], flow: 'stop' });
  });
  test('several continues consume exactly one unit and keep instruction order', () => {
    expect(accepted(finishRequest(2), [cont('a'), cont(), cont('b')])).toStrictEqual({
      decision: 'allow',
      executed: false,
      messages: [],
      flow: 'continue',
      continuationInstructions: ['a', 'b'],
      continuationRemaining: 1,
    });
  });
  test.each([
    ['stop first', [stop, cont('a')]],
    ['stop last', [cont('a'), stop]],
  ])('stop wins over continue (%s), retains instructions, consumes nothing', (_name, effects) => {
    expect(accepted(finishRequest(1), effects)).toStrictEqual({
      decision: 'allow',
      executed: false,
      messages: [],
      flow: 'stop',
      continuationInstructions: ['a'],
      continuationRemaining: 1,
    });
  });
  test('an exhausted allowance rejects the continue even when stop would win', () => {
    expect(rejected(finishRequest(0), respond([stop, cont('a')])).layer).toBe('capability');
  });
  test("an earlier interceptor's stop and instructions are carried", () => {
    const result = accepted(finishRequest(3, { permission: 'none', candidate: null, flow: 'stop', instructions: ['earlier'] }), [cont('later')]);
    expect(result).toMatchObject({ flow: 'stop', continuationInstructions: ['earlier', 'later'], continuationRemaining: 3 });
  });
  test('empty carried lists and a carried flow "none" carry nothing: the result is as if they were absent', () => {
    const carriedNothing = accepted(toolRequest({ task: 1 }, { permission: 'none', candidate: null, flow: 'none', instructions: [], injections: [] }), []);
    expect(carriedNothing).toStrictEqual(accepted(toolRequest({ task: 1 }, { permission: 'none', candidate: null }), []));
    expect(carriedNothing).not.toHaveProperty('injections');
  });

  test('injections accumulate after carried ones, as full effect objects', () => {
    const now = { type: 'inject', target: 'context', operation: 'append', deliverAt: 'now', value: [] };
    const result = accepted(toolRequest({ task: 1 }, { permission: 'none', candidate: null, injections: [{ carried: true }] }), [now]);
    expect(result.injections).toStrictEqual([{ carried: true }, now]);
    expect(result.executed).toBe(true);
  });
  test('a rejected response yields nothing and leaves the request untouched', () => {
    const request = toolRequest({ task: 1 }, { permission: 'allow', candidate: { value: 'keep' } });
    const before = JSON.stringify(request);
    const verdict = evaluate(request, respond([{ type: 'message', text: 'leak?' }, { type: 'modify', target: 'input', operation: 'replace', value: { task: 0 } }]), schemaAlwaysValid);
    expect(verdict).not.toHaveProperty('result');
    expect(JSON.stringify(request)).toBe(before);
  });
  test('accepted results never alias the request', () => {
    const request = toolRequest({ task: 1, nested: { a: 1 } });
    const result = accepted(request, []);
    (result.input as { nested: { a: number } }).nested.a = 99;
    expect(request.params.event.tool?.input).toStrictEqual({ task: 1, nested: { a: 1 } });
  });
});
