import { expect, type TestContext } from 'vitest';

import { applyBaseline, type BaselineState } from './apply-baseline.ts';
import type { Baseline, BaselineRow } from './baseline.ts';

/**
 * Ends a plain test (auth probes, receiver probes) the way the baseline says: a failure it lists is
 * an expected failure (annotated and skipped with the reason), a listed exact row that passes fails
 * as stale, anything else fails or passes on its own. Returns the baseline state for the test's meta.
 */
export async function finishTest(
  context: TestContext,
  baseline: Baseline | undefined,
  row: BaselineRow,
  failure: string | undefined,
): Promise<BaselineState | undefined> {
  context.task.meta.ahpBaseline = { ...row };
  const judged = applyBaseline(baseline, row, failure !== undefined);
  if (judged.action !== 'as-is') context.task.meta.ahpBaseline.state = judged.state;
  if (judged.action === 'expected-failure') {
    const { note, state } = judged;
    await context.annotate(note, 'notice');
    context.skip(`${note}\n${failure}`);
    return state;
  }
  if (judged.action === 'stale') expect.fail(`${row.group} › ${row.id}\n${judged.message}`);
  if (failure !== undefined) expect.fail(failure);
  if (judged.action === 'listed-passed') return judged.state;
  return undefined;
}
