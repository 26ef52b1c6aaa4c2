import { describe, expect, test } from 'vitest';

import { FIXTURE_HOST_TOOL, taskInputProblem, taskRuleScope } from '../../harness/oracle/fixture-host.ts';
import { confinedToUndefined, undefinedAspects, type OutcomePart } from '../../harness/oracle/undefined-inputs.ts';
import type { InterceptRequest, InterceptState } from '../../harness/protocol/messages.ts';

// The model of what the protocol leaves undefined, and the fixture host it rests on. The cases are
// worked out from the seed's rules (rule 1 carries permission and candidate only; serially dispatched
// subscriptions are "Not represented"; rule 4 is local to the fixture host, whose tool is `task`).

function request(type: 'tool.before' | 'turn.finish.before', state?: InterceptState, tool = 'task'): InterceptRequest {
  const event =
    type === 'tool.before'
      ? { id: 'row', type, tool: { name: tool, input: { task: 1 }, origin: 'native' }, path: 'native' }
      : { id: 'row', type, items: [] };
  return {
    jsonrpc: '2.0',
    id: 'row',
    method: 'hooks/intercept',
    params: { protocolVersion: 'draft', event, capabilities: { effects: [] }, ...(state ? { state } : {}) },
  };
}

const base: InterceptState = { permission: 'none', candidate: null };
const ids = (r: InterceptRequest, taskRuleDecides = false) => undefinedAspects(r, { taskRuleDecides }).map((a) => a.id);

describe('the fixture host', () => {
  test("its one tool is the protocol's `task`; the task rule's scope follows the tool name", () => {
    expect(FIXTURE_HOST_TOOL).toEqual({ name: 'task', kind: 'task', origin: 'native' });
    expect(taskRuleScope(request('tool.before').params.event)).toBe('fixture-tool');
    expect(taskRuleScope(request('tool.before', undefined, 'task.run').params.event)).toBe('other-tool');
    expect(taskRuleScope(request('turn.finish.before').params.event)).toBe('no-tool');
  });

  test.each([
    [{ task: 1 }, undefined],
    [{ task: 9007199254740991, mode: 'x' }, undefined],
    [{ task: 0 }, /positive integer/],
    [{ task: -1 }, /positive integer/],
    [{ task: 1.5 }, /positive integer/],
    [{ task: true }, /positive integer/],
    [{ task: '1' }, /positive integer/],
    [{ mode: 'fast' }, /input\.task null/],
    [[{ task: 1 }], /not an object/],
  ])('task input %j', (input, problem) => {
    const found = taskInputProblem(input);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });
});

describe('undefined by the protocol', () => {
  test('defined: no state, or permission and candidate only, or carried members that carry nothing', () => {
    expect(ids(request('tool.before'))).toEqual([]);
    expect(ids(request('tool.before', { permission: 'allow', candidate: { value: 1 } }))).toEqual([]);
    expect(ids(request('turn.finish.before', { ...base, flow: 'none', instructions: [], injections: [] }))).toEqual([]);
    expect(ids(request('tool.before', { ...base, flow: 'none', instructions: [], injections: [] }))).toEqual([]);
  });

  test.each(['stop', 'continue'] as const)('a carried state.flow "%s" is undefined at either boundary, and can move the verdict and the flow keys', (flow) => {
    for (const type of ['tool.before', 'turn.finish.before'] as const) {
      const [aspect, ...rest] = undefinedAspects(request(type, { ...base, flow }));
      expect(rest).toEqual([]);
      expect(aspect).toMatchObject({ id: 'carried-flow', path: 'params.state.flow' });
      expect(aspect!.reason).toContain(`"${flow}" at ${type}`);
      expect(aspect!.source).toMatch(/Not represented: multiple subscriptions dispatched serially/);
      expect(aspect!.affects).toEqual(expect.arrayContaining(['verdict', 'flow', 'continuationRemaining', 'executed']));
    }
    expect(undefinedAspects(request('turn.finish.before', { ...base, flow: 'continue' }))[0]!.reason).toMatch(/counts against the continuation allowance/);
  });

  test('carried instructions and injections are undefined, each moving only its own key', () => {
    const both = undefinedAspects(request('turn.finish.before', { ...base, instructions: ['earlier'], injections: [{ carried: true }] }));
    expect(both.map((a) => [a.id, a.path, a.affects])).toEqual([
      ['carried-instructions', 'params.state.instructions', ['continuationInstructions']],
      ['carried-injections', 'params.state.injections', ['injections']],
    ]);
  });

  test("the task rule is undefined only when it decides the response and the tool is not the fixture host's", () => {
    expect(ids(request('tool.before', undefined, 'read_file'), false)).toEqual([]);
    expect(ids(request('tool.before', undefined, 'task'), true)).toEqual([]);
    const [aspect] = undefinedAspects(request('tool.before', undefined, 'read_file'), { taskRuleDecides: true });
    expect(aspect).toMatchObject({ id: 'task-rule-other-tool', path: 'params.event.tool.name', affects: ['verdict', 'executed'] });
    expect(aspect!.reason).toContain('"read_file", not the fixture host\'s "task"');
  });

  test('a difference is confined to undefined aspects only when every differing part is one they decide', () => {
    const aspects = undefinedAspects(request('turn.finish.before', { ...base, instructions: ['earlier'] }));
    const confined = (parts: OutcomePart[]) => confinedToUndefined(parts, aspects);
    expect(confined(['continuationInstructions'])).toBe(true);
    expect(confined(['continuationInstructions', 'messages'])).toBe(false);
    expect(confined(['verdict'])).toBe(false);
    expect(confined([])).toBe(false);
    expect(confinedToUndefined(['continuationInstructions'], [])).toBe(false);
  });
});
