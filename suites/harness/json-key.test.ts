// jsonKey is an index key standing in for jsonEqual (verify-run finds messages among scenarios by it):
// two values must share a key exactly when jsonEqual holds, whatever the key order of their objects.

import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';

import { indexByJson, jsonEqual, jsonKey } from '../../harness/protocol/json.ts';

/** A copy of `value` with every object's keys in reverse order: jsonEqual to it, differently serialised. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([key, item]) => [key, reordered(item)]));
}

// Small alphabets so that equal and nearly equal pairs come up often.
const json = fc.jsonValue({ maxDepth: 3 }).map((value) => value as unknown);
const small = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.constantFrom(0, 1, '1', true, null, -0, 'a'), fc.array(tie('value'), { maxLength: 2 }), fc.dictionary(fc.constantFrom('a', 'b'), tie('value'), { maxKeys: 2 })),
})).value;

describe('jsonKey', () => {
  test.prop([json])('a value and its key-reordered copy share a key', (value) => {
    expect(jsonKey(reordered(value))).toBe(jsonKey(value));
  });

  test.prop([small, small], { numRuns: 2000 })('keys are equal exactly when jsonEqual holds', (a, b) => {
    expect(jsonKey(a) === jsonKey(b)).toBe(jsonEqual(a, b));
  });

  test('types stay strict and the non-JSON values are spelled apart', () => {
    expect(jsonKey(1)).not.toBe(jsonKey('1'));
    expect(jsonKey(true)).not.toBe(jsonKey(1));
    expect(jsonKey(null)).not.toBe(jsonKey(undefined));
    expect(jsonKey({ a: undefined })).not.toBe(jsonKey({}));
    expect(jsonKey(Number.NaN)).toBe(jsonKey(Number.NaN));
    expect(jsonKey(Number.POSITIVE_INFINITY)).not.toBe(jsonKey(null));
    expect(jsonKey({ 'a,b': 1 })).not.toBe(jsonKey({ a: 1, b: 1 }));
  });
});

describe('indexByJson', () => {
  test('the first item per key wins, as a linear find would pick it; undefined keys are left out', () => {
    const items = [{ n: 1, key: { x: 1, y: 2 } }, { n: 2, key: { y: 2, x: 1 } }, { n: 3, key: undefined }, { n: 4, key: [1] }];
    const index = indexByJson(items, (item) => item.key);
    expect([...index.values()].map((item) => item.n)).toEqual([1, 4]);
    expect(index.get(jsonKey({ y: 2, x: 1 }))?.n).toBe(1);
  });
});
