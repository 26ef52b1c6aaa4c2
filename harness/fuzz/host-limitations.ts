// Host limitations seen during a fuzz run (triage.ts): rows a client failed with no result and no
// rejection, only an error of its own. They are not disagreements with the oracle, so the run goes on
// looking for those; they are counted per target and distinct client error, and a bounded sample of
// the rows is written as a replayable scenario file whose descriptions carry the client's message,
// whether the request went on the wire and, in the host profile, whether it was inside the envelope
// (a host refusing what its own manifest offers is worth a bug report too).

import type { Scenario } from '../scenarios/types.ts';
import { describedRow, profileSentence } from './counterexample-file.ts';
import { outsideEnvelope, type FuzzProfile } from './host-envelope.ts';
import { TargetRowSamples, type TargetRows } from './target-row-samples.ts';
import type { FuzzTarget } from './targets.ts';
import type { CaseJudgement } from './triage.ts';

/** Distinct messages kept per target for the report. */
const KEPT_MESSAGES = 8;

export interface HostLimitationMessage {
  /** The client's own error (bounded), or a placeholder when it gave none. */
  error: string;
  rows: number;
  /** The first row seen with it. */
  example: string;
  requestSent?: boolean;
  /** Host profile: why the example request is outside the envelope, or `inside the envelope`. */
  envelope?: string;
}

export interface HostLimitationReport {
  class: 'host-limitation';
  target: string;
  rows: number;
  batches: number;
  /** Most frequent first, at most KEPT_MESSAGES (`rows` counts them all). */
  messages: HostLimitationMessage[];
  /** A bounded sample of the rows, as a scenario file (+ replay config). */
  file: string;
  configFile?: string;
}

interface Collected extends TargetRows {
  messages: Map<string, HostLimitationMessage>;
}

export class HostLimitationLog {
  private readonly samples = new TargetRowSamples<Collected>((target) => ({ target, rows: 0, batches: new Set<number>(), messages: new Map(), kept: [] }));

  constructor(private readonly profile: FuzzProfile) {}

  record(target: FuzzTarget, batch: number, scenarios: Scenario[], judgements: CaseJudgement[]): void {
    judgements.forEach((judgement, index) => {
      if (judgement.class !== 'host-limitation') return;
      const scenario = scenarios[index]!;
      const entry = this.samples.add(target, batch, () => describedRow(scenario, this.describe(target, judgement, scenario)));
      const error = judgement.clientError ?? '(the client gave no error text)';
      const seen = entry.messages.get(error);
      if (seen) seen.rows++;
      else {
        entry.messages.set(error, {
          error,
          rows: 1,
          example: scenario.id,
          ...(judgement.requestSent === undefined ? {} : { requestSent: judgement.requestSent }),
          ...(this.profile.name === 'host' ? { envelope: outsideEnvelope(this.profile.envelope, scenario.request) ?? 'inside the envelope' } : {}),
        });
      }
    });
  }

  get empty(): boolean {
    return this.samples.empty;
  }

  /** Writes one file per target with limitations and returns the reports. */
  write(dir: string): HostLimitationReport[] {
    return this.samples.write(dir, 'host-limited', (entry, written) => ({
      class: 'host-limitation',
      target: entry.target.label,
      rows: entry.rows,
      batches: entry.batches.size,
      messages: [...entry.messages.values()].sort((a, b) => b.rows - a.rows).slice(0, KEPT_MESSAGES),
      ...written,
    }));
  }

  private describe(target: FuzzTarget, judgement: CaseJudgement, scenario: Scenario): string {
    const sent = judgement.requestSent === undefined ? '' : judgement.requestSent ? ' The request went on the wire.' : ' The request never went on the wire.';
    const envelope =
      this.profile.name === 'host'
        ? ` Request ${outsideEnvelope(this.profile.envelope, scenario.request) === undefined ? 'inside' : 'outside'} the host envelope.`
        : '';
    return (
      `Host limitation seen by differential fuzzing against ${target.label}: the client failed this row with no result and no rejection, ` +
      `only its own error: ${JSON.stringify(judgement.clientError ?? '')}.${sent}${envelope} ${profileSentence(this.profile)} The expectation is the oracle's.`
    );
  }
}
