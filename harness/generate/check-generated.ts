// The "Regenerate and validate" checks for a generated scenario file. Every problem is returned as
// one line `<scenario id or index>: <problem>`; an empty list means the file is publishable.
//
// Byte-for-byte reproducibility is not checked here (it needs the file's text); the CLI's --check
// and the oracle suite compare the committed file with a fresh build.

import { auditScenario } from '../oracle/audit-scenario.ts';
import { evaluate, hostRejectedResult } from '../oracle/evaluate.ts';
import { describeUndefined, undefinedAspects } from '../oracle/undefined-inputs.ts';
import { isJsonObject } from '../protocol/json.ts';
import type { ProtocolValidators } from '../protocol/validator-types.ts';
import { lintOwnScenarioFile } from '../scenarios/lint-scenario-file.ts';
import { NEGATIVE_TAGS, type Scenario, type ScenarioFile } from '../scenarios/types.ts';
import { RESULT_KEYS } from '../oracle/types.ts';


const DECISIONS = ['allow', 'deny', 'ask'];
const FLOWS = ['stop', 'continue'];

export function checkGeneratedFile(
  file: ScenarioFile,
  validators: Pick<ProtocolValidators, 'interceptRequest' | 'interceptResponse'>,
): string[] {
  const problems: string[] = [];
  const add = (where: string, problem: string) => problems.push(`${where}: ${problem}`);

  for (const problem of lintOwnScenarioFile(file)) add('format', problem);

  const scenarios: unknown[] = Array.isArray(file?.scenarios) ? file.scenarios : [];
  const seen = new Map<string, number>();
  scenarios.forEach((raw, index) => {
    if (!isJsonObject(raw)) {
      add(`scenarios[${index}]`, 'row is not an object');
      return;
    }
    const row = raw as unknown as Scenario;
    const where = typeof row.id === 'string' && row.id !== '' ? row.id : `scenarios[${index}]`;

    // Unique ids.
    if (typeof row.id !== 'string' || row.id === '') add(where, 'row has no string id');
    else if (seen.has(row.id)) add(where, `duplicate id (first at scenarios[${seen.get(row.id)}], again at scenarios[${index}])`);
    else seen.set(row.id, index);

    // Envelope/event correlation of the request.
    const request: unknown = row.request;
    const requestId = isJsonObject(request) ? request.id : undefined;
    const params = isJsonObject(request) ? request.params : undefined;
    const event = isJsonObject(params) ? params.event : undefined;
    const eventId = isJsonObject(event) ? event.id : undefined;
    if (requestId !== row.id) add(where, `request.id ${show(requestId)} is not the scenario id`);
    if (eventId !== row.id) add(where, `request.params.event.id ${show(eventId)} is not the scenario id`);

    // Exclusive expected / expectError.
    const hasExpected = row.expected !== undefined;
    const hasError = row.expectError !== undefined;
    if (hasExpected && hasError) add(where, 'row has both expected and expectError');
    if (!hasExpected && !hasError) add(where, 'row has neither expected nor expectError');
    if (hasError && row.expectError !== true) add(where, `expectError must be true, got ${show(row.expectError)}`);
    if (row.hostExpected !== undefined && row.expectError !== true) add(where, 'hostExpected without expectError: true');

    // Expected result structure.
    if (hasExpected) for (const p of resultStructureProblems(row.expected, 'expected')) add(where, p);
    if (row.hostExpected !== undefined) for (const p of resultStructureProblems(row.hostExpected, 'hostExpected')) add(where, p);

    // Canonical validity of every request.
    const requestCheck = validators.interceptRequest(request);
    if (!requestCheck.valid) add(where, `request is not schema-valid: ${requestCheck.errors.slice(0, 3).join('; ')}`);

    // Tags: exactly one negative tag on negatives, none on positives.
    const tags = Array.isArray(row.tags) ? row.tags.filter((t): t is string => typeof t === 'string') : [];
    const negativeTags = tags.filter((t) => (NEGATIVE_TAGS as readonly string[]).includes(t));
    if (row.expectError === true && negativeTags.length !== 1) {
      add(where, `a negative row needs exactly one negative tag (${NEGATIVE_TAGS.join(', ')}), got [${negativeTags.join(', ')}]`);
    }
    if (hasExpected && !hasError && negativeTags.length > 0) add(where, `a positive row carries negative tag(s) ${negativeTags.join(', ')}`);
    const negativeTag = negativeTags.length === 1 ? negativeTags[0] : undefined;

    // Response validity according to the row's class.
    const responseCheck = validators.interceptResponse(row.response);
    if (hasExpected && !hasError && !responseCheck.valid) {
      add(where, `positive row's response is not schema-valid: ${responseCheck.errors.slice(0, 3).join('; ')}`);
    }
    if (row.expectError === true && negativeTag !== undefined && negativeTag !== 'schema-invalid' && !responseCheck.valid) {
      add(where, `${negativeTag} row's response must be schema-valid, but: ${responseCheck.errors.slice(0, 3).join('; ')}`);
    }
    if (row.expectError === true && negativeTag === 'schema-invalid' && responseCheck.valid) {
      add(where, 'schema-invalid row, but its response passes the intercept-response schema');
    }

    // The oracle agrees with the row's expectation, and the negative tag names its rejection layer.
    const audit = auditScenario(row, validators);
    for (const p of audit.problems) add(where, `audit: ${p}`);
    // Our rows assert only what the protocol defines (the oracle's extrapolation is no requirement).
    if (requestCheck.valid) {
      const open = undefinedAspects(row.request, { taskRuleDecides: hostRejectedResult(row.request, row.response, validators) !== undefined });
      if (open.length > 0) add(where, `asserts an outcome the protocol leaves undefined: ${describeUndefined(open)}`);
    }
    const verdict = audit.verdict ?? (requestCheck.valid ? evaluate(row.request, row.response, validators) : undefined);
    if (verdict && !verdict.accepted && row.expectError === true) {
      const layerTag = `${verdict.layer}-invalid`;
      if (negativeTag !== undefined && negativeTag !== layerTag) {
        add(where, `tagged ${negativeTag}, but the oracle rejects at the ${verdict.layer} layer (${layerTag}): ${verdict.reason}`);
      }
      if (verdict.hostRule === true && row.hostExpected === undefined) {
        add(where, 'rejected only by the host task rule, so the row must declare hostExpected');
      }
    }
  });
  return problems;
}

/** Problems with the shape of an `expected`/`hostExpected` object (not its values' correctness). */
export function resultStructureProblems(value: unknown, name: string): string[] {
  if (!isJsonObject(value)) return [`${name} must be an object, got ${show(value)}`];
  const problems: string[] = [];
  for (const key of Object.keys(value)) {
    if (!(RESULT_KEYS as readonly string[]).includes(key)) problems.push(`${name}.${key} is not a known result key (${RESULT_KEYS.join(', ')})`);
  }
  const has = (key: string) => Object.prototype.hasOwnProperty.call(value, key);
  if (has('decision') && !DECISIONS.includes(value.decision as string)) {
    problems.push(`${name}.decision must be one of ${DECISIONS.join(', ')}, got ${show(value.decision)}`);
  }
  if (has('executed') && typeof value.executed !== 'boolean') problems.push(`${name}.executed must be a boolean, got ${show(value.executed)}`);
  if (has('input') && !isJsonObject(value.input)) problems.push(`${name}.input must be an object, got ${show(value.input)}`);
  for (const key of ['messages', 'continuationInstructions']) {
    if (has(key)) {
      const list = value[key];
      if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) {
        problems.push(`${name}.${key} must be an array of strings, got ${show(list)}`);
      }
    }
  }
  if (has('flow') && !FLOWS.includes(value.flow as string)) problems.push(`${name}.flow must be one of ${FLOWS.join(', ')}, got ${show(value.flow)}`);
  if (has('continuationRemaining')) {
    const remaining = value.continuationRemaining;
    if (typeof remaining !== 'number' || !Number.isInteger(remaining) || remaining < 0) {
      problems.push(`${name}.continuationRemaining must be a non-negative integer, got ${show(remaining)}`);
    }
  }
  if (has('injections') && !Array.isArray(value.injections)) problems.push(`${name}.injections must be an array, got ${show(value.injections)}`);
  return problems;
}

function show(value: unknown): string {
  return value === undefined ? 'nothing (missing)' : JSON.stringify(value);
}
