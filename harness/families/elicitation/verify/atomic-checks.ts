// The atomic helper's output against its rows (rules §5 checks 1-6), row by row: each failure is the
// row's, and every check runs (a pair does not stop at its first failure). A row that is expected to
// publish and passes every check yields its published wire row (published-case.ts).

import { isJsonObject, jsonEqual, type JsonObject } from '../../../protocol/json.ts';
import { parseJsonText } from '../../../protocol/json-text.ts';
import type { AtomicRow, CheckFailure, ElicitationBinding, ProcessOutcome } from '../case-types.ts';
import { publishedCase, type PublishedCase } from '../published-case.ts';
import { LABELS, stderrTail } from './labels.ts';

export interface AtomicVerdict {
  /** Atomic row id → its failures (empty when it passed). */
  rows: Map<string, CheckFailure[]>;
  published: PublishedCase[];
}

function everyRow(rows: readonly AtomicRow[], label: string, evidence: string): AtomicVerdict {
  return { rows: new Map(rows.map((row) => [row.id, [{ caseId: row.id, label, party: 'sender', evidence }]])), published: [] };
}

/** `outcome` is the helper's run over all `rows` (in order); `principal` the argument it was given. */
export function checkAtomicOutcome(rows: readonly AtomicRow[], outcome: ProcessOutcome | undefined, principal: string, binding: ElicitationBinding): AtomicVerdict {
  if (outcome === undefined) return everyRow(rows, LABELS.atomicHelperFailed, 'the helper was not run');
  if (outcome.kind === 'timeout') return everyRow(rows, `${LABELS.atomicHelperFailed}: timed out after ${Math.round(outcome.timeoutMs / 1000)} seconds`, stderrTail(outcome.stderrTail, 1000));
  if (outcome.exitCode !== 0) {
    return everyRow(rows, `${LABELS.atomicHelperFailed}: ${stderrTail(outcome.stderrTail, 1000)}`, `exit code ${String(outcome.exitCode)}${outcome.signal === null ? '' : `, signal ${outcome.signal}`}`);
  }
  const parsed = parseJsonText(outcome.stdout);
  if (!parsed.ok || !Array.isArray(parsed.value) || parsed.value.length !== rows.length) {
    const got = !parsed.ok ? `stdout is not JSON (${parsed.reason})` : Array.isArray(parsed.value) ? `${parsed.value.length} outputs` : 'stdout is not an array';
    return everyRow(rows, LABELS.atomicResultCount, `expected ${rows.length} outputs in input order, got ${got}`);
  }
  const outputs = parsed.value as unknown[];
  const verdict: AtomicVerdict = { rows: new Map(), published: [] };
  rows.forEach((row, i) => {
    const failures: CheckFailure[] = [];
    const fail = (label: string, evidence: string) => failures.push({ caseId: row.id, label, party: 'sender', evidence: `output ${i}: ${evidence}` });
    const output = outputs[i];
    const out: JsonObject = isJsonObject(output) ? output : {};
    if (out.inputUnchanged !== true) fail(LABELS.atomicMutatedInput, `inputUnchanged is ${JSON.stringify(out.inputUnchanged)}, not true`);
    if (out.accepted !== row.expected.accepted) fail(LABELS.atomicAcceptanceMismatch, `accepted is ${JSON.stringify(out.accepted)}, expected ${row.expected.accepted}`);
    const summary = isJsonObject(out.summary) ? out.summary : undefined;
    if (out.accepted === false && out.summary !== undefined) fail(LABELS.partialFailedResult, `a rejected row carries summary ${JSON.stringify(out.summary).slice(0, 200)}`);
    if (row.expected.accepted && out.accepted === true) {
      if (summary === undefined || !jsonEqual(summary.result, row.expected.result) || summary.externalCompletion !== false) {
        fail(
          LABELS.atomicApplicationMismatch,
          `expected result ${JSON.stringify(row.expected.result)} with externalCompletion false, got ${JSON.stringify(summary?.result)} / ${JSON.stringify(summary?.externalCompletion)}`,
        );
      }
      const provenance = { kind: 'hook', authenticatedSource: principal, effects: row.expected.effects };
      if (!jsonEqual(summary?.provenance, provenance)) fail(LABELS.atomicProvenanceMismatch, `expected ${JSON.stringify(provenance)}, got ${JSON.stringify(summary?.provenance)}`);
      // Only the SDK's own staged output is published; a summary without a request body has nothing to upload.
      if (failures.length === 0 && summary !== undefined && !isJsonObject(summary.request)) fail(LABELS.atomicApplicationMismatch, 'summary.request is not the parsed request object');
      if (failures.length === 0 && summary !== undefined && isJsonObject(summary.request) && isJsonObject(summary.result)) {
        verdict.published.push(publishedCase(row, { request: summary.request, result: summary.result }, binding));
      }
    }
    verdict.rows.set(row.id, failures);
  });
  return verdict;
}
