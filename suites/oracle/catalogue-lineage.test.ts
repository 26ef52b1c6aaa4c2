// The catalogue receiver's lineage tracker (CATALOGUE-RULES §4 rules 1–7), rule by rule, with late
// parents, cycles, no-op updates and source locality; and its reproduction of the canonical
// catalogue file's `deliveries`, row by row, with one tracker for the whole file.

import path from 'node:path';

import { describe, expect, test } from 'vitest';

import { LineageTracker, type LineageVerdict } from '../../harness/families/catalogue/lineage-tracker.ts';
import type { JsonObject } from '../../harness/protocol/json.ts';
import { PROJECT_ROOT, loadValidators } from '../../harness/protocol/load-validators.ts';
import { CANONICAL_CATALOGUE, SCHEMA_SETS, canonicalCatalogueTitle } from './support/catalogue-sources.ts';

const ours = loadValidators(path.join(PROJECT_ROOT, 'schemas'));
const S = 'urn:lineage-test:host';
const T = 'urn:lineage-test:other-host';

const observe = (event: JsonObject): JsonObject => ({ jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft', event } });
const envelope = (id: string, type: string, extra: JsonObject, source = S): JsonObject => ({ id, source, type, time: '2026-05-01T08:00:00Z', ...extra });
const withParent = (extra: JsonObject, parent?: string): JsonObject => (parent === undefined ? extra : { ...extra, parentEventId: parent });
const taskEvent = (type: 'task.change.before' | 'task.change.after', id: string, task: JsonObject, parent?: string, source = S): JsonObject =>
  observe(envelope(id, type, withParent({ task }, parent), source));
const before = (id: string, taskId: string, operation: string, parent?: string, source = S): JsonObject =>
  taskEvent('task.change.before', id, { id: taskId, operation, change: { status: 'proposed' } }, parent, source);
const after = (id: string, taskId: string, operation: string, parent?: string, source = S, extra: JsonObject = {}): JsonObject =>
  taskEvent('task.change.after', id, { id: taskId, operation, change: { status: 'applied' }, ...extra }, parent, source);
const workspace = (type: 'workspace.change.before' | 'workspace.change.after', id: string, ws: JsonObject, parent?: string): JsonObject =>
  observe(envelope(id, type, withParent({ workspace: ws }, parent)));
const fileChanged = (id: string, changes: JsonObject[]): JsonObject => observe(envelope(id, 'file.changed', { changes }));
const text = (id: string, body: string): JsonObject => ({ id, kind: 'text', mediaType: 'text/plain', selection: 'body', text: body });

const tracker = (): LineageTracker => new LineageTracker(ours);
const ACCEPTED: LineageVerdict = { accepted: true };
/** Feeds the messages in order and returns each verdict as `ok`, `schema` or the lineage rule. */
function run(messages: unknown[], t = tracker()): string[] {
  return messages.map((m) => {
    const v = t.accept(m);
    return v.accepted ? 'ok' : v.errorKind === 'schema' ? 'schema' : v.rule;
  });
}

describe('schema first', () => {
  test('a valid notification is accepted with nothing else said', () => {
    expect(tracker().accept(before('b1', 'task-1', 'create'))).toEqual(ACCEPTED);
  });

  test('an invalid notification is a schema rejection with the validator errors, before any lineage rule', () => {
    const selfParentAndInvalid = observe(envelope('x', 'task.change.before', { task: { id: 't', operation: 'rename', change: {} }, parentEventId: 'x' }));
    const verdict = tracker().accept(selfParentAndInvalid);
    expect(verdict).toMatchObject({ accepted: false, errorKind: 'schema' });
    expect(verdict.accepted === false && verdict.reason).toMatch(/operation/);
  });

  test.each([
    ['not an object', 'hooks/observe'],
    ['an intercept request carrying a task.change.after (after events are observation only)', { jsonrpc: '2.0', id: 'a1', method: 'hooks/intercept', params: { protocolVersion: 'draft', event: envelope('a1', 'task.change.after', { task: { id: 't', operation: 'create', change: {} } }), capabilities: { effects: [] } } }],
    ['a notification without an event', { jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft' } }],
  ])('%s is a schema rejection', (_name, message) => {
    expect(run([message])).toEqual(['schema']);
  });

  test('a schema rejection leaves no trace either', () => {
    const t = tracker();
    expect(run([observe(envelope('s1', 'task.change.before', { task: { id: 't', operation: 'rename', change: {} } })), before('s1', 'task-1', 'update')], t)).toEqual(['schema', 'ok']);
  });
});

describe('rule 1: identity and parentage are per source', () => {
  test('the same id in two sources is two events (types may differ)', () => {
    expect(run([before('e1', 'task-1', 'create'), observe(envelope('e1', 'turn.end', { turn: { id: 'u' }, outcome: 'completed', continuationCount: 0, items: [] }, T))])).toEqual(['ok', 'ok']);
  });

  test('a parent id known only in another source is an unknown parent: no pair check', () => {
    expect(run([before('p1', 'task-a', 'update', undefined, S), after('c1', 'task-b', 'create', 'p1', T)])).toEqual(['ok', 'ok']);
  });

  test('the same ids in one source are checked', () => {
    expect(run([before('p1', 'task-a', 'update'), after('c1', 'task-b', 'create', 'p1')])).toEqual(['ok', 'parent']);
  });

  test('parent links that would cycle only across sources are no cycle', () => {
    expect(run([before('x', 'task-1', 'create', 'y', S), before('y', 'task-2', 'create', 'x', T)])).toEqual(['ok', 'ok']);
  });

  test('a late parent in another source is not matched with the child', () => {
    expect(run([after('c1', 'task-1', 'create', 'p1', S), before('p1', 'task-2', 'update', undefined, T)])).toEqual(['ok', 'ok']);
  });
});

describe('rule 2: applied changes change something', () => {
  test.each([
    ['a task update with an empty change', [after('a', 't', 'update', undefined, S, { change: {} })], ['change']],
    ['a task update equal to its prior', [after('a', 't', 'update', undefined, S, { change: { status: 'x' }, prior: { status: 'x', owner: 'o' } })], ['change']],
    ['a task update equal to its prior in every nested value', [after('a', 't', 'update', undefined, S, { change: { tags: ['a', { b: 1 }] }, prior: { tags: ['a', { b: 1 }] } })], ['change']],
    ['a task update that keeps one prior value and changes another', [after('a', 't', 'update', undefined, S, { change: { status: 'x', owner: 'p' }, prior: { status: 'x', owner: 'o' } })], ['ok']],
    ['a task update naming a field the prior lacks', [after('a', 't', 'update', undefined, S, { change: { owner: 'p' }, prior: { status: 'x' } })], ['ok']],
    ['a task update without a prior', [after('a', 't', 'update')], ['ok']],
    ['a task removal with an empty change', [after('a', 't', 'remove', undefined, S, { change: {} })], ['ok']],
    ['a task creation equal to a prior', [after('a', 't', 'create', undefined, S, { change: { status: 'x' }, prior: { status: 'x' } })], ['ok']],
    ['a task proposal equal to its prior (only applied changes are judged)', [taskEvent('task.change.before', 'b', { id: 't', operation: 'update', change: { status: 'x' }, prior: { status: 'x' } })], ['ok']],
    ['an applied workspace change equal to its prior', [workspace('workspace.change.after', 'w', { kind: 'cwd', change: { cwd: '/a' }, prior: { cwd: '/a' } })], ['change']],
    ['an applied workspace change that differs from its prior', [workspace('workspace.change.after', 'w', { kind: 'roots', change: { workspaceRoots: [] }, prior: { workspaceRoots: ['/a'] } })], ['ok']],
    ['a workspace proposal equal to its prior', [workspace('workspace.change.before', 'w', { kind: 'cwd', change: { cwd: '/a' }, prior: { cwd: '/a' } })], ['ok']],
    ['a file update with equal snapshots', [fileChanged('f', [{ path: '/a', operation: 'update', agentCaused: true, before: text('s', 'x'), after: text('s', 'x') }])], ['change']],
    ['a file update with different snapshots', [fileChanged('f', [{ path: '/a', operation: 'update', agentCaused: true, before: text('s1', 'x'), after: text('s2', 'y') }])], ['ok']],
    ['a file update with only an after snapshot', [fileChanged('f', [{ path: '/a', operation: 'update', agentCaused: true, after: text('s', 'x') }])], ['ok']],
    ['a file creation with equal snapshots (only updates are judged)', [fileChanged('f', [{ path: '/a', operation: 'create', agentCaused: true, before: text('s', 'x'), after: text('s', 'x') }])], ['ok']],
    ['a second file change that is a no-op update', [fileChanged('f', [{ path: '/a', operation: 'remove', agentCaused: true }, { path: '/b', operation: 'update', agentCaused: false, before: text('s', 'x'), after: text('s', 'x') }])], ['change']],
  ])('%s', (_name, messages, verdicts) => {
    expect(run(messages)).toEqual(verdicts);
  });
});

describe('rule 3: an identity seen again keeps type, parent and task', () => {
  test('a retry of the same event is accepted again', () => {
    const event = after('a', 't', 'update', 'p');
    expect(run([event, event, event])).toEqual(['ok', 'ok', 'ok']);
  });

  test.each([
    ['another type', after('a', 't', 'update', 'p'), before('a', 't', 'update', 'p')],
    ['another parent', after('a', 't', 'update', 'p'), after('a', 't', 'update', 'q')],
    ['a parent added', after('a', 't', 'update'), after('a', 't', 'update', 'p')],
    ['a parent dropped', after('a', 't', 'update', 'p'), after('a', 't', 'update')],
    ['another task', after('a', 't', 'update', 'p'), after('a', 'u', 'update', 'p')],
  ])('seen again with %s is refused', (_name, first, again) => {
    expect(run([first, again])).toEqual(['ok', 'identity']);
  });

  test('other payload members may differ (different subscription views are not retries to compare)', () => {
    expect(run([after('a', 't', 'update', 'p'), after('a', 't', 'update', 'p', S, { change: { status: 'other' }, description: 'seen again' })])).toEqual(['ok', 'ok']);
  });

  test('the first sighting is the record: a late parent is checked against it, not against a later view', () => {
    // Seen again with another operation (rule 3 keeps only type, parent and task id), then the late parent arrives.
    expect(run([after('a', 't', 'update', 'p'), after('a', 't', 'create', 'p'), before('p', 't', 'update')])).toEqual(['ok', 'ok', 'ok']);
    expect(run([after('a', 't', 'create', 'p'), after('a', 't', 'update', 'p'), before('p', 't', 'update')])).toEqual(['ok', 'ok', 'late-parent']);
  });

  test('a non-task event seen again keeps its type', () => {
    const end = (type: string): JsonObject => observe(envelope('n', type, { turn: { id: 'u' }, outcome: 'completed', continuationCount: 0, items: [] }));
    expect(run([end('turn.end'), end('turn.finish.before')])).toEqual(['ok', 'identity']);
  });
});

describe('rule 4: no cycles; unknown parents are legal', () => {
  test('a self-parent is a cycle', () => {
    const t = tracker();
    const verdict = t.accept(before('self', 't', 'create', 'self'));
    expect(verdict).toMatchObject({ accepted: false, errorKind: 'lineage', rule: 'cycle' });
    expect(verdict.accepted === false && verdict.reason).toContain('"self" → "self"');
  });

  test('a late parent naming its recorded child closes a cycle', () => {
    expect(run([after('a', 't', 'create', 'b'), before('b', 't', 'create', 'a')])).toEqual(['ok', 'cycle']);
  });

  test('a cycle through three events', () => {
    expect(run([before('p1', 't1', 'create', 'p3'), before('p2', 't2', 'create', 'p1'), before('p3', 't3', 'create', 'p2')])).toEqual(['ok', 'ok', 'cycle']);
  });

  test('a chain without a cycle, in any arrival order', () => {
    expect(run([before('c', 't3', 'create', 'b'), before('a', 't1', 'create'), before('b', 't2', 'create', 'a')])).toEqual(['ok', 'ok', 'ok']);
  });

  test('an unknown parent is legal and stays unknown', () => {
    expect(run([after('a', 't', 'create', 'never-delivered'), after('b', 't', 'create', 'never-delivered')])).toEqual(['ok', 'ok']);
  });

  test('a refused cycle leaves no trace: the chain can still be completed', () => {
    expect(run([after('a', 't', 'create', 'b'), before('b', 't', 'create', 'a'), before('b', 't', 'create')])).toEqual(['ok', 'cycle', 'ok']);
  });
});

describe('rule 5: a known proposal and its applied change', () => {
  test('same task and operation, other values: accepted (proposed and applied values are never compared)', () => {
    expect(run([before('p', 't', 'update'), after('a', 't', 'update', 'p', S, { change: { status: 'blocked' } })])).toEqual(['ok', 'ok']);
  });

  test.each([
    ['another task', after('a', 'u', 'update', 'p')],
    ['another operation', after('a', 't', 'remove', 'p')],
  ])('an applied change with %s is refused', (_name, child) => {
    expect(run([before('p', 't', 'update'), child])).toEqual(['ok', 'parent']);
  });

  test('a workspace change applied elsewhere than proposed, same kind: accepted', () => {
    expect(run([workspace('workspace.change.before', 'p', { kind: 'cwd', change: { cwd: '/a' } }), workspace('workspace.change.after', 'a', { kind: 'cwd', change: { cwd: '/b' } }, 'p')])).toEqual(['ok', 'ok']);
  });

  test('a workspace change of another kind than its proposal is refused', () => {
    expect(run([workspace('workspace.change.before', 'p', { kind: 'cwd', change: { cwd: '/a' } }), workspace('workspace.change.after', 'a', { kind: 'switch', change: { cwd: '/a' } }, 'p')])).toEqual(['ok', 'parent']);
  });

  test.each([
    ['a task.change.after parented to a tool call (after-only support)', observe(envelope('p', 'tool.before', { call: { id: 'c' }, tool: { name: 'x', input: {}, origin: 'native' }, path: 'native' })), after('a', 't', 'create', 'p')],
    ['a task.change.after parented to another applied change', after('p', 'u', 'remove'), after('a', 't', 'create', 'p')],
    ['a task.change.before parented to an applied change of another task', after('p', 'u', 'remove'), before('a', 't', 'create', 'p')],
    ['a file change parented to a task proposal', before('p', 'u', 'remove'), fileChanged('a', [{ path: '/x', operation: 'remove', agentCaused: true }])],
    ['a task.change.after parented to a workspace proposal', workspace('workspace.change.before', 'p', { kind: 'cwd', change: { cwd: '/a' } }), after('a', 't', 'create', 'p')],
  ])('no pair rule: %s', (_name, parent, child) => {
    expect(run([parent, child])).toEqual(['ok', 'ok']);
  });

  test('the tracker lives across rows: a parent recorded long before is still known', () => {
    const t = tracker();
    run([before('p', 't', 'update'), ...Array.from({ length: 20 }, (_, i) => before(`filler-${i}`, `f${i}`, 'create'))], t);
    expect(run([after('a', 'other', 'update', 'p')], t)).toEqual(['parent']);
  });
});

describe('rule 6: late parents', () => {
  test('a late proposal matching its recorded child is accepted (no false cycle)', () => {
    expect(run([after('a', 't', 'create', 'p'), before('p', 't', 'create')])).toEqual(['ok', 'ok']);
  });

  test('a late proposal that does not match its recorded child is refused', () => {
    const t = tracker();
    run([after('a', 't', 'create', 'p')], t);
    const verdict = t.accept(before('p', 't', 'update'));
    expect(verdict).toMatchObject({ accepted: false, errorKind: 'lineage', rule: 'late-parent' });
    expect(verdict.accepted === false && verdict.reason).toMatch(/operation "create" ≠ "update"/);
  });

  test('every recorded child is checked: one mismatch of several refuses the parent', () => {
    expect(run([after('a1', 't', 'create', 'p'), after('a2', 'u', 'create', 'p'), before('p', 't', 'create')])).toEqual(['ok', 'ok', 'late-parent']);
  });

  test('a late workspace proposal of another kind is refused', () => {
    expect(run([workspace('workspace.change.after', 'a', { kind: 'roots', change: { workspaceRoots: [] } }, 'p'), workspace('workspace.change.before', 'p', { kind: 'cwd', change: { cwd: '/a' } })])).toEqual(['ok', 'late-parent']);
  });
});

describe('rule 7: rejections leave no trace', () => {
  test('a child naming a refused event sees an unknown parent', () => {
    expect(run([after('a', 't', 'create', 'p'), before('p', 't', 'update'), after('b', 't', 'create', 'p')])).toEqual(['ok', 'late-parent', 'ok']);
  });

  test('the id of a refused event is free for another type', () => {
    expect(run([after('a', 't', 'create', 'p'), before('p', 't', 'update'), workspace('workspace.change.before', 'p', { kind: 'cwd', change: { cwd: '/a' } })])).toEqual(['ok', 'late-parent', 'ok']);
  });

  test('a refused child is not a recorded child of a later parent', () => {
    expect(run([before('x', 'x', 'create', 'x'), after('a', 'u', 'update', 'p', S, { change: {} }), before('p', 't', 'update')])).toEqual(['cycle', 'change', 'ok']);
  });

  test('a refused identity change keeps the first record', () => {
    expect(run([after('a', 't', 'update', 'p'), before('a', 't', 'update', 'p'), after('a', 't', 'update', 'p')])).toEqual(['ok', 'identity', 'ok']);
  });

  test('two trackers (two server processes) share nothing', () => {
    const first = tracker();
    run([before('p', 't', 'update')], first);
    expect(run([after('a', 'u', 'update', 'p')], tracker())).toEqual(['ok']);
  });
});

// ---------------------------------------------------------------------------------------------------

describe.skipIf(CANONICAL_CATALOGUE === undefined)(canonicalCatalogueTitle("the canonical catalogue file's deliveries"), () => {
  const rows = CANONICAL_CATALOGUE?.scenarios ?? [];
  for (const [name, dir] of SCHEMA_SETS) {
    test.skipIf(dir === undefined)(`one tracker over the whole file reproduces every row's deliveries with ${name}`, () => {
      const t = new LineageTracker(loadValidators(dir as string));
      const got = rows.map((row) => ({
        id: row.id,
        deliveries: row.steps.flatMap((step) => {
          if (step.op === 'register') return [];
          const v = t.accept(step.message);
          return [v.accepted ? { accepted: true, errorKind: null } : { accepted: false, errorKind: v.errorKind }];
        }),
      }));
      expect(got).toEqual(rows.map((row) => ({ id: row.id, deliveries: row.expected.deliveries })));
      expect(rows.flatMap((row) => row.expected.deliveries).filter((d) => !d.accepted)).toHaveLength(5);
    });
  }

  test('wrong-known-task-parent needs the tracker of the earlier rows: alone it is accepted', () => {
    const row = rows.find((r) => r.id === 'wrong-known-task-parent')!;
    const step = row.steps[0]!;
    expect(step.op).toBe('rawNotify');
    expect(tracker().accept(step.op === 'register' ? null : step.message)).toEqual(ACCEPTED);
  });
});
