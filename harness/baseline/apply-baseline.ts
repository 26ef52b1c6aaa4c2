import type {} from 'vitest';

import type { Baseline, BaselineEntry, BaselineRow } from './baseline.ts';
import { updatingBaseline } from './baseline.ts';

/** What the baseline made of one row's outcome; recorded in the test's meta for the reports. */
export interface BaselineState {
  /** `listed-passed`: a wildcard entry lists the row and it passed (stale only if none of its rows fails). */
  state: 'expected-failure' | 'stale' | 'listed-passed';
  reason: string;
  /** The entry that listed the row, and its index (absent for a failure recorded by an update run). */
  entry?: BaselineEntry;
  index?: number;
}

/** What every test a baseline can name records in its meta (`ahpBaseline`) for the reporter. */
export interface BaselineMeta {
  project: string;
  group: string;
  id: string;
  /** Set when the baseline touched the row (or an update run recorded its failure). */
  state?: BaselineState;
}

declare module 'vitest' {
  interface TaskMeta {
    ahpBaseline?: BaselineMeta;
  }
}

/** An entry naming exactly one row (no `*`): staleness is that row's own business. */
export function isExactEntry(entry: BaselineEntry): boolean {
  return entry.id !== '*' && !entry.group.includes('*');
}

export type BaselineVerdict =
  | { action: 'as-is' }
  /** A listed row that failed (or, in an update run, any failing row): reported, does not fail the run. */
  | { action: 'expected-failure'; state: BaselineState; note: string }
  /** A listed row that passed: fails the run like a regression. */
  | { action: 'stale'; state: BaselineState; message: string }
  /** A row a wildcard entry lists passed: the test passes; the reporter judges the entry as a whole. */
  | { action: 'listed-passed'; state: BaselineState };

/**
 * Applies the baseline to a row whose own verdict is `failed` or `passed` (skips are never touched).
 * An exact entry whose row passes is stale at once, on that row's test; a wildcard entry is stale when
 * none of the rows it lists that ran failed — the matrix reporter decides that at the end of the run.
 * In an update run (AHP_UPDATE_BASELINE) every failure is an expected one and nothing is stale: the
 * reporter rewrites the file from what the run saw.
 */
export function applyBaseline(baseline: Baseline | undefined, row: BaselineRow, failed: boolean): BaselineVerdict {
  const listed = baseline?.match(row);
  const updating = updatingBaseline();
  if (failed) {
    if (listed) {
      const state: BaselineState = { state: 'expected-failure', reason: listed.entry.reason, entry: listed.entry, index: listed.index };
      return { action: 'expected-failure', state, note: `expected failure (baseline ${baseline!.file}, entries[${listed.index}]): ${listed.entry.reason}` };
    }
    if (updating && baseline) {
      return { action: 'expected-failure', state: { state: 'expected-failure', reason: '' }, note: `failing: recorded in the baseline ${baseline.file} by this update run` };
    }
    return { action: 'as-is' };
  }
  if (listed && (updating || !isExactEntry(listed.entry))) {
    return { action: 'listed-passed', state: { state: 'listed-passed', reason: listed.entry.reason, entry: listed.entry, index: listed.index } };
  }
  if (listed && !updating) {
    return {
      action: 'stale',
      state: { state: 'stale', reason: listed.entry.reason, entry: listed.entry, index: listed.index },
      message:
        `stale baseline entry: ${row.group} › ${row.id} passes now — remove it from the baseline ${baseline!.file} ` +
        `(entries[${listed.index}]: ${JSON.stringify(listed.entry)}), or run \`npm run baseline\` to rewrite the file`,
    };
  }
  return { action: 'as-is' };
}
