// One sender client run (rules §4, §9 items 2-3): how it ended, and its stdout as exactly one result
// object. A timeout or a non-zero exit is reported as the rules word it; the stdout's raw text is kept,
// because `size: 4.0` and `size: 4` parse alike and only the text tells them apart.

import { isJsonObject, type JsonObject } from '../../../protocol/json.ts';
import { parseJsonText } from '../../../protocol/json-text.ts';
import type { Party, ProcessOutcome } from '../case-types.ts';
import { LABELS, stderrTail } from './labels.ts';

export type SenderResultRead =
  | { ok: true; result: JsonObject; status: number; body: string; stdout: string }
  | { ok: false; label: string; party: Party; evidence: string };

/** Reads one client run; `command` names the process in the timeout text (`<sender> client`). */
export function readSenderResult(outcome: ProcessOutcome, command: string): SenderResultRead {
  if (outcome.kind === 'timeout') {
    const seconds = Math.round(outcome.timeoutMs / 1000);
    // The client may hang on its own, or wait on a receiver that never answers.
    return { ok: false, label: `Command '${command}' timed out after ${seconds} seconds`, party: 'either', evidence: stderrTail(outcome.stderrTail, 1500) };
  }
  if (outcome.exitCode !== 0) {
    const how = outcome.signal !== null ? `signal ${outcome.signal}` : `exit code ${String(outcome.exitCode)}`;
    const tail = stderrTail(outcome.stderrTail, 1500);
    return { ok: false, label: tail.trim() === '' ? `${command} failed (${how}, no stderr)` : tail, party: 'sender', evidence: `${command} ended with ${how}` };
  }
  const parsed = parseJsonText(outcome.stdout);
  if (!parsed.ok || !Array.isArray(parsed.value) || parsed.value.length !== 1) {
    const what = !parsed.ok ? `stdout is not JSON (${parsed.reason} ${parsed.where})` : Array.isArray(parsed.value) ? `stdout is an array of ${parsed.value.length}` : 'stdout is not an array';
    return { ok: false, label: LABELS.senderResponseCount, party: 'sender', evidence: `${what}; expected a JSON array with exactly one result` };
  }
  const [result] = parsed.value as unknown[];
  if (!isJsonObject(result)) return { ok: false, label: LABELS.senderResponseCount, party: 'sender', evidence: 'the one result is not an object' };
  // A missing key reads as the upstream runner's KeyError text: the key in quotes.
  if (typeof result.status !== 'number') return { ok: false, label: "'status'", party: 'sender', evidence: `the result has no numeric status (${JSON.stringify(result.status)})` };
  if (typeof result.body !== 'string') return { ok: false, label: "'body'", party: 'sender', evidence: 'the result has no string body' };
  return { ok: true, result, status: result.status, body: result.body, stdout: outcome.stdout };
}

/**
 * Whether every `"size"` number in `text` is written as an integer: JSON.parse reads `4.0` as `4`, and
 * the rules refuse a descriptor whose size is not an integer literal.
 */
export function sizeLiteralsAreIntegers(text: string): boolean {
  for (const match of text.matchAll(/"size"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g)) {
    if (/[.eE]/.test(match[1] ?? '')) return false;
  }
  return true;
}
