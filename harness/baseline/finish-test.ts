import type { TestContext } from 'vitest';

import { applyBaseline } from './apply-baseline.ts';
import type { Baseline, BaselineRow } from './baseline.ts';
import { VerdictFailure } from './verdict-failure.ts';

/**
 * Ends a test the way the baseline says: a failure it lists is an expected failure (annotated and
 * skipped with the reason), a listed exact row that passes fails as stale, anything else fails or
 * passes on its own. The reporters read what the baseline made of the row from the test's
 * `ahpBaseline` meta, set here before anything can skip or fail the test.
 */
export async function finishTest(
  context: TestContext,
  baseline: Baseline | undefined,
  row: BaselineRow,
  failure: string | undefined,
): Promise<void> {
  context.task.meta.ahpBaseline = { ...row };
  const judged = applyBaseline(baseline, row, failure !== undefined);
  if (judged.action !== 'as-is') context.task.meta.ahpBaseline.state = judged.state;
  if (judged.action === 'expected-failure') {
    await context.annotate(judged.note, 'notice');
    context.skip(`${judged.note}\n${failure}`);
    return;
  }
  // Verdicts, not crashes: thrown without harness frames (verdict-failure.ts).
  if (judged.action === 'stale') throw new VerdictFailure(`${row.group} › ${row.id}\n${judged.message}`);
  if (failure !== undefined) throw new VerdictFailure(failure);
}
