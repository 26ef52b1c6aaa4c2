// How every client run (the core run, the lifecycle-adapter run) records its failures and builds its
// outcome: one failure list whose lines say their stage, and an outcome that starts as "no exit yet"
// and is completed by what the run learnt.

import type { ClientProcessOutcome, RunFailure, RunStage } from './types.ts';

export interface FailureList {
  failures: RunFailure[];
  /** Adds `<stage>: <message>` under the fixed `stage/kind` label, with the party when the stage alone does not say it. */
  fail(stage: RunStage, kind: string, message: string, party?: RunFailure['party']): void;
}

export function failureList(): FailureList {
  const failures: RunFailure[] = [];
  return {
    failures,
    fail: (stage, kind, message, party) => {
      failures.push({ stage, kind, message: `${stage}: ${message}`, ...(party ? { party } : {}) });
    },
  };
}

/** The process part of an outcome at this moment: no exit unless the run says so, its failures and logs, the time since `started`. */
export function processOutcome(started: number, failures: RunFailure[], logFiles: string[]): ClientProcessOutcome {
  return { exitCode: null, signal: null, timedOut: false, failures, logFiles, durationMs: Date.now() - started };
}
