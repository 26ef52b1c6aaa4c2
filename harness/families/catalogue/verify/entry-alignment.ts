// Where two lists of entries part ways (CATALOGUE-RULES §6 (13)): a longest common subsequence of the
// expected and the actual list is matched, and what it leaves over comes back as the gaps between
// matched entries, in order. A lie that drops, adds, moves or alters entries then touches exactly the
// entries it changed, however far the lists drift apart after it — a positional comparison would stop
// at the first difference and say nothing of the entries after it.

/** The unmatched entries between two matched ones (or an end): indexes into each list, ascending. */
export interface AlignmentGap {
  expected: number[];
  actual: number[];
}

/**
 * Above this many table cells the middle of the lists (what differs after the common prefix and
 * suffix are set aside) is left as one gap, paired by position: a bound on time and memory for
 * lists far larger than any catalogue file.
 */
const MAX_CELLS = 4_000_000;

export function alignmentGaps<T>(expected: readonly T[], actual: readonly T[], equal: (a: T, b: T) => boolean): AlignmentGap[] {
  let start = 0;
  while (start < expected.length && start < actual.length && equal(expected[start]!, actual[start]!)) start++;
  let endE = expected.length;
  let endA = actual.length;
  while (endE > start && endA > start && equal(expected[endE - 1]!, actual[endA - 1]!)) {
    endE--;
    endA--;
  }
  const n = endE - start;
  const m = endA - start;
  if (n === 0 && m === 0) return [];
  const range = (from: number, count: number): number[] => Array.from({ length: count }, (_, k) => from + k);
  if (n === 0 || m === 0 || (n + 1) * (m + 1) > MAX_CELLS) return [{ expected: range(start, n), actual: range(start, m) }];

  // lcs[i * (m + 1) + j]: length of a longest common subsequence of expected[start+i..] and actual[start+j..].
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  const same = (i: number, j: number): boolean => equal(expected[start + i]!, actual[start + j]!);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] = same(i, j) ? lcs[(i + 1) * width + j + 1]! + 1 : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    }
  }

  const gaps: AlignmentGap[] = [];
  let gap: AlignmentGap = { expected: [], actual: [] };
  const close = (): void => {
    if (gap.expected.length + gap.actual.length > 0) gaps.push(gap);
    gap = { expected: [], actual: [] };
  };
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && lcs[i * width + j] === lcs[(i + 1) * width + j + 1]! + 1 && same(i, j)) {
      close();
      i++;
      j++;
    } else if (j >= m || (i < n && lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!)) {
      gap.expected.push(start + i++);
    } else {
      gap.actual.push(start + j++);
    }
  }
  close();
  return gaps;
}
