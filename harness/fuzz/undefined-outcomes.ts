// Outcomes undefined by the protocol seen during a fuzz run (triage.ts): rows whose client outcome
// differs from the oracle's only where an undefined input decides (../oracle/undefined-inputs.ts).
// They are no fault, so the run goes on and they do not fail it; but they are kept: counted per
// target and aspect, and a bounded sample is written as a replayable scenario file whose
// descriptions say what is undefined, why, and which parts the client differs in. Such a file is
// evidence for the protocol (a question to settle), not a row to promote into our fixtures.

import type { Scenario } from '../scenarios/types.ts';
import { describeUndefined, type UndefinedAspectId } from '../oracle/undefined-inputs.ts';
import { describedRow, profileSentence } from './counterexample-file.ts';
import type { FuzzProfile } from './host-envelope.ts';
import { TargetRowSamples, type TargetRows } from './target-row-samples.ts';
import type { FuzzTarget } from './targets.ts';
import type { CaseJudgement } from './triage.ts';

const ACTUAL_BOUND = 300;

function bounded(text: string): string {
  return text.length > ACTUAL_BOUND ? `${text.slice(0, ACTUAL_BOUND)}...` : text;
}

export interface UndefinedOutcomeReport {
  class: 'undefined';
  target: string;
  rows: number;
  batches: number;
  /** Rows per undefined aspect (a row may count for several). */
  aspects: Partial<Record<UndefinedAspectId, number>>;
  /** A bounded sample of the rows, as a scenario file (+ replay config). */
  file: string;
  configFile?: string;
}

interface Collected extends TargetRows {
  aspects: Partial<Record<UndefinedAspectId, number>>;
}

export class UndefinedOutcomeLog {
  private readonly samples = new TargetRowSamples<Collected>((target) => ({ target, rows: 0, batches: new Set<number>(), aspects: {}, kept: [] }));

  constructor(private readonly profile: FuzzProfile) {}

  record(target: FuzzTarget, batch: number, scenarios: Scenario[], judgements: CaseJudgement[]): void {
    judgements.forEach((judgement, index) => {
      if (judgement.class !== 'undefined') return;
      const entry = this.samples.add(target, batch, () => describedRow(scenarios[index]!, this.describe(target, judgement)));
      for (const aspect of judgement.undefinedAspects ?? []) entry.aspects[aspect.id] = (entry.aspects[aspect.id] ?? 0) + 1;
    });
  }

  /** Writes one file per target with such rows and returns the reports. */
  write(dir: string): UndefinedOutcomeReport[] {
    return this.samples.write(dir, 'undefined', (entry, written) => ({
      class: 'undefined',
      target: entry.target.label,
      rows: entry.rows,
      batches: entry.batches.size,
      aspects: entry.aspects,
      ...written,
    }));
  }

  private describe(target: FuzzTarget, judgement: CaseJudgement): string {
    return (
      `Undefined by the protocol, seen by differential fuzzing against ${target.label}: the adapter's outcome differs from the oracle's only in ` +
      `${(judgement.differingParts ?? []).join(', ')}, which this input leaves undefined: ${describeUndefined(judgement.undefinedAspects ?? [])}. ` +
      `Actual ${bounded(JSON.stringify(judgement.actual) ?? 'none')}. ${profileSentence(this.profile)} The expectation is the oracle's extrapolation, not a requirement.`
    );
  }
}
