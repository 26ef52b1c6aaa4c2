// JSON text → value: the first syntax error is located precisely (offset, 1-based line and column)
// with a reason, a byte order mark is ignored, and describeValue renders "got …" values.

import { describe, expect, test } from 'vitest';

import { describeValue, parseJsonText } from '../../harness/protocol/json-text.ts';

describe('parseJsonText', () => {
  test('valid text parses, a leading byte order mark is ignored', () => {
    expect(parseJsonText('{"a": [1, true, null, "x"]}')).toEqual({ ok: true, value: { a: [1, true, null, 'x'] } });
    expect(parseJsonText('\uFEFF[1]')).toEqual({ ok: true, value: [1] });
  });

  test.each([
    ['{"a": }', 1, 7, 'expected a JSON value, got "}"'],
    ['{\n  "a": 1,\n}', 3, 1, 'expected a property name in double quotes, got "}"'],
    ['[1, 2', 1, 6, "unexpected end of input; expected ',' or ']' after an array element"],
    ['{"a": tru}', 1, 10, 'expected the literal true, got "}"'],
    ['', 1, 1, 'unexpected end of input; expected a JSON value'],
    ['{"a": "b\u0001"}', 1, 9, 'expected no raw control characters in a string (escape them), got "\\u0001"'],
    ['[01]', 1, 3, "expected ',' or ']' after an array element, got \"1\""],
    ['[1.]', 1, 4, 'expected a digit after the decimal point, got "]"'],
    ['{} x', 1, 4, 'expected the end of the document after the top-level value, got "x"'],
  ])('%j fails at line %i, column %i', (text, line, column, reason) => {
    expect(() => JSON.parse(text)).toThrow();
    const parsed = parseJsonText(text);
    if (parsed.ok) throw new Error('expected a syntax error');
    expect([parsed.line, parsed.column]).toEqual([line, column]);
    expect(parsed.reason).toBe(reason);
    expect(parsed.where).toBe(`at line ${line}, column ${column} (offset ${parsed.offset})`);
  });

  test('offsets count from after a byte order mark', () => {
    const parsed = parseJsonText('\uFEFF{"a": }');
    expect(parsed).toMatchObject({ ok: false, offset: 6, line: 1, column: 7 });
  });
});

describe('describeValue', () => {
  test.each([
    [undefined, 'nothing (missing)'],
    [null, 'null'],
    [[], '[] (an empty array)'],
    [[1], 'an array'],
    [{}, 'an object'],
    ['', '"" (an empty string)'],
    ['abc', '"abc"'],
    ['x'.repeat(70), JSON.stringify(`${'x'.repeat(57)}...`)],
    [3, 'number 3'],
    [false, 'boolean false'],
  ])('%j → %s', (value, shown) => {
    expect(describeValue(value)).toBe(shown);
  });
});
