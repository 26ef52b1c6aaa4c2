// The reference lifecycle client's SDK-side state, in process: the pending-interception state
// machine (staging, first-response retention, acceptance by id, cancel dominance, fail-open) and the
// chain helpers (permission rule, content views), including the paths no canonical row exercises.

import path from 'node:path';

import { describe, expect, test } from 'vitest';

import { contentView, nextPermission } from '../../adapters/reference/lifecycle/chain-runner.ts';
import { PendingInterceptions } from '../../adapters/reference/lifecycle/pending-interceptions.ts';
import { PROJECT_ROOT, loadValidators } from '../../harness/protocol/load-validators.ts';
import type { JsonObject } from '../../harness/protocol/json.ts';
import { allowResponse, toolBeforeRequest } from './support/lifecycle-rows.ts';

const validators = loadValidators(path.join(PROJECT_ROOT, 'schemas'));
const request = toolBeforeRequest('pending:a');
const settled = { decision: 'allow', executed: true, input: { value: 'settled' }, messages: [] };
const fallback = { decision: 'allow', executed: true, input: { value: 'original' }, messages: [] };
const invalid: JsonObject = { jsonrpc: '2.0', id: 'pending:a', result: { protocolVersion: 'draft', effects: [{ type: 'explode' }] } };
/** Schema-valid, but `ask` is not among the request's advertised effects. */
const unadvertised: JsonObject = { jsonrpc: '2.0', id: 'pending:a', result: { protocolVersion: 'draft', effects: [{ type: 'ask' }] } };

function opened(): PendingInterceptions {
  const sdk = new PendingInterceptions(validators);
  sdk.open(request);
  return sdk;
}

describe('pending interceptions', () => {
  test('the first valid response is staged; later ones are ignored and never replace it', () => {
    const sdk = opened();
    expect(sdk.deliver('pending:a', allowResponse('pending:a'))).toBe('staged');
    expect(sdk.deliver('pending:a', allowResponse('pending:a', 'MUST-NOT-REPLACE'))).toBe('ignored');
    expect(sdk.accept('pending:a')).toEqual(settled);
    expect(sdk.deliver('pending:a', allowResponse('pending:a'))).toBe('ignored');
    expect(sdk.accept('pending:a')).toBeUndefined();
  });

  test('acceptance is by id: nothing staged for that id, nothing published', () => {
    const sdk = opened();
    sdk.open(toolBeforeRequest('pending:b'));
    expect(sdk.deliver('pending:a', allowResponse('pending:a'))).toBe('staged');
    expect(sdk.accept('pending:b')).toBeUndefined();
    expect(sdk.accept('unknown')).toBeUndefined();
    expect(sdk.accept('pending:a')).toEqual(settled);
  });

  test('a response for an id never opened is ignored (a raw replay outside the SDK)', () => {
    expect(new PendingInterceptions(validators).deliver('pending:a', allowResponse('pending:a'))).toBe('ignored');
  });

  test('cancel dominates: before a reply, after staging, and after publication (keeping the state)', () => {
    const before = opened();
    expect(before.cancel('pending:a')).toBe(true);
    expect(before.deliver('pending:a', allowResponse('pending:a'))).toBe('ignored');
    expect(before.failOpen(request)).toBeUndefined();

    const staged = opened();
    staged.deliver('pending:a', allowResponse('pending:a'));
    expect(staged.cancel('pending:a')).toBe(true);
    expect(staged.accept('pending:a')).toBeUndefined();

    const published = opened();
    published.deliver('pending:a', allowResponse('pending:a'));
    expect(published.accept('pending:a')).toEqual(settled);
    expect(published.cancel('pending:a')).toBe(true);
    expect(published.cancel('pending:a')).toBe(false);
    expect(new PendingInterceptions(validators).cancel('pending:a')).toBe(false);
  });

  test('a schema-invalid reply fails the interception; fail-open then publishes the fallback with the original input', () => {
    const sdk = opened();
    expect(sdk.deliver('pending:a', invalid)).toBe('failed');
    expect(sdk.accept('pending:a')).toBeUndefined();
    expect(sdk.failOpen(request)).toEqual(fallback);
    expect(sdk.failOpen(request)).toBeUndefined();
  });

  test('a staged reply the evaluator refuses at acceptance publishes nothing', () => {
    const sdk = opened();
    expect(sdk.deliver('pending:a', unadvertised)).toBe('staged');
    expect(sdk.accept('pending:a')).toBeUndefined();
    expect(sdk.failOpen(request)).toEqual(fallback);
  });

  test('fail-open may create the interception, and never applies while a valid reply is staged', () => {
    expect(new PendingInterceptions(validators).failOpen(request)).toEqual(fallback);
    const sdk = opened();
    sdk.deliver('pending:a', allowResponse('pending:a'));
    expect(sdk.failOpen(request)).toBeUndefined();
  });
});

describe('chain helpers', () => {
  test('permission: deny sticks, ask yields only to deny, allow only lifts none', () => {
    expect(nextPermission('none', [{ type: 'allow' }])).toBe('allow');
    expect(nextPermission('allow', [])).toBe('allow');
    expect(nextPermission('ask', [{ type: 'allow' }])).toBe('ask');
    expect(nextPermission('allow', [{ type: 'ask' }])).toBe('ask');
    expect(nextPermission('deny', [{ type: 'ask' }, { type: 'allow' }])).toBe('deny');
    expect(nextPermission('none', [{ type: 'deny' }, { type: 'ask' }])).toBe('deny');
  });

  test('content views: body as is, metadata without bodies or text, omit empty, absent stays absent', () => {
    const items: JsonObject[] = [
      { id: 'a', kind: 'attachment', mediaType: 'image/png', selection: 'body', body: { ref: 'r' } },
      { id: 't', kind: 'text', mediaType: 'text/plain', selection: 'body', text: 'secret' },
      { id: 'm', kind: 'text', mediaType: 'text/plain', selection: 'metadata' },
    ];
    expect(contentView(items, 'body')).toEqual(items);
    expect(contentView(items, 'metadata')).toEqual([
      { id: 'a', kind: 'attachment', mediaType: 'image/png', selection: 'metadata' },
      { id: 't', kind: 'text', mediaType: 'text/plain', selection: 'metadata' },
      items[2],
    ]);
    expect(contentView(items, 'omit')).toEqual([]);
    expect(contentView(undefined, 'omit')).toBeUndefined();
    expect(items[0]!.body).toEqual({ ref: 'r' });
  });
});
