// A one-shot process's end in the evidence's terms (case-types.ts ProcessOutcome): the stderr tail
// the rules quote is taken here, redacted, so no evidence ever holds a token.

import type { ProcessOutcome } from './case-types.ts';
import type { OneShotOutcome } from './one-shot-process.ts';
import { stderrTail } from './stderr-tail.ts';

export function toProcessOutcome(outcome: OneShotOutcome, stderrFile: string, tailChars: number, secrets: readonly string[]): ProcessOutcome {
  const tail = stderrTail(stderrFile, tailChars, secrets);
  if (outcome.kind === 'timeout') return { kind: 'timeout', timeoutMs: outcome.timeoutMs, stderrTail: tail };
  // A command that never started has no exit status; its stderr is the launcher's reason.
  if (outcome.kind === 'spawn-failed') return { kind: 'exited', exitCode: null, signal: null, stdout: '', stderrTail: outcome.message.slice(-tailChars) };
  return { kind: 'exited', exitCode: outcome.code, signal: outcome.signal, stdout: outcome.stdout, stderrTail: tail };
}
