// The §7.6 observe notification builder and the alias → receiver-ref rewrite that the client adapter,
// the verifier and the loader share.

import { describe, expect, test } from 'vitest';

import { observeNotificationFor, withBoundRefs } from '../../harness/families/lifecycle/observe-message.ts';
import type { ObserveStep, StepScenario } from '../../harness/lifecycle-adapters/scenario-types.ts';
import type { JsonObject } from '../../harness/protocol/json.ts';
import { heldPublishRow, httpOnlyRow, uploadsRow } from './support/lifecycle-rows.ts';

const observeStep = (row: StepScenario): ObserveStep => {
  const step = row.steps.find((s): s is ObserveStep => s.op === 'observe');
  if (step === undefined) throw new Error(`${row.id} has no observe step`);
  return step;
};

describe('observeNotificationFor', () => {
  test('a notification without id or decision, carrying the published input', () => {
    const row = heldPublishRow();
    const notification = observeNotificationFor(row, observeStep(row));
    const { tool: _tool, ...rest } = row.requests.a!.params.event;
    expect(notification).toEqual({
      jsonrpc: '2.0',
      method: 'hooks/observe',
      params: { protocolVersion: 'draft', event: { ...rest, tool: { origin: 'native', name: 'task', kind: 'task', input: { value: 'settled' } } } },
    });
    expect(row.requests.a!.params.event.tool?.input).toEqual({ value: 'original' });
  });

  test('without a published state the original input stays', () => {
    const row = httpOnlyRow();
    const notification = observeNotificationFor(row, { op: 'observe', key: 'a', subscription: 'metadata' });
    expect(notification.params.event.tool?.input).toEqual({ value: 'original' });
  });

  test('step items replace the event items; without them the event keeps its own (none are added)', () => {
    const row = uploadsRow();
    const gap: JsonObject = { id: 'item-1', kind: 'attachment', mediaType: 'application/octet-stream', selection: 'body', gap: { reason: 'content permission denied' } };
    expect(observeNotificationFor(row, { op: 'observe', key: 'a', subscription: 'metadata', items: [gap] }).params.event.items).toEqual([gap]);
    expect(observeNotificationFor(row, { op: 'observe', key: 'a', subscription: 'body' }).params.event.items).toEqual(row.requests.a!.params.event.items);
    const plain = heldPublishRow();
    expect('items' in observeNotificationFor(plain, observeStep(plain)).params.event).toBe(false);
  });

  test('bound aliases become receiver refs; unbound ones stay; the row is not mutated', () => {
    const row = uploadsRow();
    const before = JSON.stringify(row);
    const items: JsonObject[] = [
      { id: 'i1', kind: 'attachment', mediaType: 'image/png', selection: 'body', body: { ref: 'binary-alias' } },
      { id: 'i2', kind: 'attachment', mediaType: 'image/png', selection: 'body', body: { ref: 'never-uploaded' } },
      { id: 'i3', kind: 'text', mediaType: 'text/plain', selection: 'metadata' },
    ];
    const notification = observeNotificationFor(row, { op: 'observe', key: 'a', subscription: 'body', items }, new Map([['binary-alias', 'receiver-7']]));
    expect(notification.params.event.items).toEqual([{ ...items[0], body: { ref: 'receiver-7' } }, items[1], items[2]]);
    expect(JSON.stringify(row)).toBe(before);
    expect(items[0]!.body).toEqual({ ref: 'binary-alias' });
  });

  test('an unknown request key is a programming error', () => {
    expect(() => observeNotificationFor(heldPublishRow(), { op: 'observe', key: 'zz', subscription: 'body' })).toThrow(/request key "zz"/);
    expect(() => observeNotificationFor(heldPublishRow(), { op: 'observe', key: 'toString', subscription: 'body' })).toThrow(/request key "toString"/);
  });
});

describe('withBoundRefs', () => {
  test('rewrites an intercept event’s items on a copy', () => {
    const event = uploadsRow().requests.a!.params.event;
    const bound = withBoundRefs(event, new Map([['binary-alias', 'r-1']]));
    expect((bound.items as JsonObject[])[0]!.body).toEqual({ ref: 'r-1' });
    expect((event.items as JsonObject[])[0]!.body).toEqual({ ref: 'binary-alias' });
  });
});
