// The alignment behind the catalogue verifier's evidence check (§6 (13)): what a longest common
// subsequence of the expected and the actual entries leaves over, as gaps in order — so a lie is
// charged to exactly the entries it changed, however far the lists drift apart after it.

import { describe, expect, test } from 'vitest';

import { alignmentGaps } from '../../harness/families/catalogue/verify/entry-alignment.ts';

const gaps = (expected: string, actual: string) => alignmentGaps([...expected], [...actual], (a, b) => a === b);

describe('alignmentGaps', () => {
  test('equal lists leave no gap', () => {
    expect(gaps('abcde', 'abcde')).toEqual([]);
    expect(gaps('', '')).toEqual([]);
  });

  test('dropped entries are gaps of the expected list alone, wherever they are', () => {
    expect(gaps('abcdef', 'acdf')).toEqual([
      { expected: [1], actual: [] },
      { expected: [4], actual: [] },
    ]);
    expect(gaps('abc', '')).toEqual([{ expected: [0, 1, 2], actual: [] }]);
  });

  test('added entries are gaps of the actual list alone', () => {
    expect(gaps('abc', 'abxc')).toEqual([{ expected: [], actual: [2] }]);
    expect(gaps('abc', 'abcv')).toEqual([{ expected: [], actual: [3] }]);
  });

  test('an altered entry is one gap holding it on both sides; the rest still matches', () => {
    expect(gaps('abcdef', 'abXdef')).toEqual([{ expected: [2], actual: [2] }]);
    expect(gaps('abcdef', 'Xbcdef')).toEqual([{ expected: [0], actual: [0] }]);
  });

  test('a moved entry is missing in one place and extra in another', () => {
    expect(gaps('abcde', 'acdbe')).toEqual([
      { expected: [1], actual: [] },
      { expected: [], actual: [3] },
    ]);
  });

  test('lists too large to tabulate are left as one gap past the common prefix and suffix, paired by position', () => {
    const expected = ['p', ...Array.from({ length: 2100 }, (_, k) => `e${k}`), 's'];
    const actual = ['p', ...Array.from({ length: 2100 }, (_, k) => `a${k}`), 's'];
    const [gap, ...rest] = alignmentGaps(expected, actual, (a, b) => a === b);
    expect(rest).toEqual([]);
    expect(gap!.expected).toEqual(Array.from({ length: 2100 }, (_, k) => k + 1));
    expect(gap!.actual).toEqual(gap!.expected);
  });
});
