// Every problem of a catalogue scenario file, each with its JSON path and what was expected: first
// the closed format schema fixtures/catalogue-scenario-file.schema.json (an unknown op or key is a
// problem, never skipped), then, on a well-formed file, the cross-field rules a schema cannot express.
// Applies to every catalogue file, ours and the protocol's.

import { jsonEqual } from '../../protocol/json.ts';
import { FormatSchema, type FormatProblem } from '../../scenarios/format-schema.ts';
import { indexPath, joinPath } from '../../scenarios/json-path.ts';
import { CATALOGUE_STEP_OPS, isMessageStep, type CatalogueScenario, type CatalogueScenarioFile } from './scenario-types.ts';

export const CATALOGUE_SCENARIO_FILE_SCHEMA_URL = new URL('../../../fixtures/catalogue-scenario-file.schema.json', import.meta.url);

const FORMAT = new FormatSchema({ url: CATALOGUE_SCENARIO_FILE_SCHEMA_URL, family: 'catalogue', ops: CATALOGUE_STEP_OPS });

/** All problems of `value` as a catalogue scenario file, in document order; empty when it is clean. */
export function lintCatalogueScenarioFile(value: unknown): FormatProblem[] {
  const format = FORMAT.problems(value);
  if (format.length > 0) return format;
  const problems: FormatProblem[] = [];
  const firstRowWithId = new Map<string, string>();
  (value as CatalogueScenarioFile).scenarios.forEach((row, i) => {
    const at = indexPath('scenarios', i);
    const earlier = firstRowWithId.get(row.id);
    if (earlier !== undefined) problems.push({ path: joinPath(at, 'id'), problem: `expected a unique scenario id, but ${JSON.stringify(row.id)} is also the id of ${earlier}` });
    else firstRowWithId.set(row.id, at);
    problems.push(...expectedProblems(row, at));
  });
  return problems;
}

/** `expected` mirrors the steps: the messages sent, one outcome per register step and per sent message. */
function expectedProblems(row: CatalogueScenario, at: string): FormatProblem[] {
  const problems: FormatProblem[] = [];
  const report = (path: string, problem: string): void => {
    problems.push({ path, problem });
  };
  const expectedAt = joinPath(at, 'expected');
  const sentAt = joinPath(expectedAt, 'sent');
  const messageSteps = row.steps.flatMap((step, j) => (isMessageStep(step) ? [{ step, j }] : []));
  const registerSteps = row.steps.filter((step) => step.op === 'register').length;
  const { sent, registrations, deliveries } = row.expected;

  if (sent.length !== messageSteps.length) {
    report(sentAt, `expected one message per notify/rawNotify step (${messageSteps.length}), got ${sent.length}`);
  } else {
    messageSteps.forEach(({ step, j }, k) => {
      if (!jsonEqual(sent[k], step.message)) report(indexPath(sentAt, k), `expected exactly the message of ${indexPath(joinPath(at, 'steps'), j)} (a client sends the fixture's message unchanged)`);
    });
  }
  if (registrations.length !== registerSteps) {
    report(joinPath(expectedAt, 'registrations'), `expected one outcome per register step (${registerSteps}), got ${registrations.length}`);
  }
  const deliveriesAt = joinPath(expectedAt, 'deliveries');
  if (deliveries.length !== sent.length) report(deliveriesAt, `expected one delivery per sent message (${sent.length}), got ${deliveries.length}`);
  deliveries.forEach((delivery, k) => {
    if (delivery.accepted !== (delivery.errorKind === null)) {
      const wanted = delivery.accepted ? 'errorKind null for an accepted delivery' : 'errorKind "lineage" or "schema" for a rejected delivery';
      report(joinPath(indexPath(deliveriesAt, k), 'errorKind'), `expected ${wanted}, got ${JSON.stringify(delivery.errorKind)}`);
    }
  });
  return problems;
}
