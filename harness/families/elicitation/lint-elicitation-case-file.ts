// Every problem of an elicitation case file, each with its JSON path and what was expected: first the
// closed format schema fixtures/elicitation-case-file.schema.json (an unknown key is a problem, never
// skipped), then, on a well-formed file, the cross-field rules a schema cannot express.

import { isJsonObject, type JsonObject } from '../../protocol/json.ts';
import { FormatSchema, type FormatProblem } from '../../scenarios/format-schema.ts';
import { indexPath, joinPath } from '../../scenarios/json-path.ts';
import type { ElicitationCaseFile, WireCase } from './case-types.ts';

export const ELICITATION_CASE_FILE_SCHEMA_URL = new URL('../../../fixtures/elicitation-case-file.schema.json', import.meta.url);

const FORMAT = new FormatSchema({ url: ELICITATION_CASE_FILE_SCHEMA_URL, family: 'elicitation', ops: ['upload', 'intercept'] });

export function lintElicitationCaseFile(value: unknown): FormatProblem[] {
  const format = FORMAT.problems(value);
  if (format.length > 0) return format;
  const file = value as ElicitationCaseFile;
  const problems: FormatProblem[] = [];
  const firstWithId = new Map<string, string>();
  const claim = (id: string, at: string) => {
    const earlier = firstWithId.get(id);
    if (earlier !== undefined) problems.push({ path: joinPath(at, 'id'), problem: `expected a unique id, but ${JSON.stringify(id)} is also the id of ${earlier}` });
    else firstWithId.set(id, at);
  };
  file.cases.forEach((wire, i) => {
    claim(wire.id, indexPath('cases', i));
    problems.push(...wireCaseProblems(wire, indexPath('cases', i), file.binding));
  });
  claim(file.concurrent.id, 'concurrent');
  problems.push(...wireCaseProblems(file.concurrent, 'concurrent', file.binding));
  file.atomic.forEach((row, i) => {
    const at = indexPath('atomic', i);
    claim(row.id, at);
    if (row.id !== `atomic/${row.name}`) problems.push({ path: joinPath(at, 'id'), problem: `expected "atomic/${row.name}" (the id is "atomic/" + name), got ${JSON.stringify(row.id)}` });
    const requestPhase = row.boundary === 'request';
    if (requestPhase !== (row.input.result === null)) {
      problems.push({ path: joinPath(joinPath(at, 'input'), 'result'), problem: `expected ${requestPhase ? 'null for a request-phase row' : 'the result envelope of a result-phase row'}` });
    }
    if (file.binding === 'inline' && row.input.uploads.length > 0) problems.push({ path: joinPath(joinPath(at, 'input'), 'uploads'), problem: 'expected no uploads in the inline binding (bodies travel as text parts)' });
  });
  file.probes.forEach((probe, i) => claim(probe.id, indexPath('probes', i)));
  return problems;
}

function eventIdOf(message: JsonObject): unknown {
  const params = message.params;
  return isJsonObject(params) && isJsonObject(params.event) ? params.event.id : undefined;
}

/** An intercept's eventId names its message; receipts follow the expected-200 intercepts in order. */
function wireCaseProblems(wire: WireCase, at: string, binding: ElicitationCaseFile['binding']): FormatProblem[] {
  const problems: FormatProblem[] = [];
  const accepted: string[] = [];
  wire.steps.forEach((step, j) => {
    const stepAt = indexPath(joinPath(at, 'steps'), j);
    if (step.kind === 'upload') {
      if (binding === 'inline') problems.push({ path: stepAt, problem: 'expected no upload step in a wire case of the inline binding' });
      return;
    }
    const id = eventIdOf(step.message);
    if (id !== step.eventId || step.message.id !== step.eventId) {
      problems.push({ path: joinPath(stepAt, 'eventId'), problem: `expected the message's params.event.id and JSON-RPC id (${JSON.stringify(id)}), got ${JSON.stringify(step.eventId)}` });
    }
    if (step.expectStatus === 200) accepted.push(step.eventId);
  });
  const receiptIds = wire.receipts.map((receipt) => receipt.eventId);
  if (receiptIds.length !== accepted.length || receiptIds.some((id, k) => id !== accepted[k])) {
    problems.push({ path: joinPath(at, 'receipts'), problem: `expected one receipt per intercept expected 200, in step order ([${accepted.join(', ')}]), got [${receiptIds.join(', ')}]` });
  }
  return problems;
}
