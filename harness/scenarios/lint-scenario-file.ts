// Lint for the scenario files THIS project generates and commits (fixtures/*.json). Stricter than the
// loader: the closed format schema fixtures/scenario-file.schema.json (no unknown keys, kebab/dot
// ids, tags required) plus the cross-field rules a schema cannot express. Files from elsewhere (the
// protocol repo's own) are only loaded, never linted with this.

import { readFileSync } from 'node:fs';

import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';

import { isJsonObject } from '../protocol/json.ts';
import { joinPath, pointerToPath } from './json-path.ts';
import { NEGATIVE_TAGS } from './types.ts';
import type { ScenarioFile } from './types.ts';

export const SCENARIO_FILE_SCHEMA_URL = new URL('../../fixtures/scenario-file.schema.json', import.meta.url);

let compiled: ValidateFunction | undefined;

function formatValidator(): ValidateFunction {
  if (compiled === undefined) {
    const schema = JSON.parse(readFileSync(SCENARIO_FILE_SCHEMA_URL, 'utf8')) as object;
    compiled = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, verbose: true }).compile(schema);
  }
  return compiled;
}

/**
 * Every problem in one of our own scenario files, each as `<json path>: <problem>`; empty when clean.
 * Rules: the closed format schema; unique ids; `request.id` and `request.params.event.id` equal the
 * scenario id; negative rows carry at least one negative tag (schema-invalid, correlation-invalid,
 * capability-invalid, application-invalid) and positive rows none; `hostExpected` only on
 * application-invalid rows.
 */
export function lintOwnScenarioFile(file: ScenarioFile): string[] {
  const problems: string[] = [];
  const validate = formatValidator();
  if (!validate(file)) problems.push(...formatErrors(validate.errors ?? []));

  const scenarios: unknown[] = Array.isArray(file?.scenarios) ? file.scenarios : [];
  const firstIndex = new Map<string, number>();
  scenarios.forEach((row, i) => {
    if (!isJsonObject(row)) return; // reported by the schema
    const at = `scenarios[${i}]`;
    const id = row.id;
    if (typeof id !== 'string') return;

    const previous = firstIndex.get(id);
    if (previous === undefined) firstIndex.set(id, i);
    else problems.push(`${at}.id: duplicate id ${JSON.stringify(id)} (also scenarios[${previous}])`);

    const request = row.request;
    if (isJsonObject(request)) {
      if (request.id !== id) problems.push(`${at}.request.id: expected the scenario id ${JSON.stringify(id)}, got ${show(request.id)}`);
      const params = request.params;
      const event = isJsonObject(params) ? params.event : undefined;
      const eventId = isJsonObject(event) ? event.id : undefined;
      if (eventId !== id) problems.push(`${at}.request.params.event.id: expected the scenario id ${JSON.stringify(id)}, got ${show(eventId)}`);
    }

    const tags = Array.isArray(row.tags) ? row.tags.filter((t): t is string => typeof t === 'string') : [];
    const negativeTags = tags.filter((t) => (NEGATIVE_TAGS as readonly string[]).includes(t));
    if (row.expectError === true && negativeTags.length === 0) {
      problems.push(`${at}.tags: a negative scenario needs one of ${NEGATIVE_TAGS.join(', ')}`);
    }
    if (row.expected !== undefined && row.expectError === undefined && negativeTags.length > 0) {
      problems.push(`${at}.tags: a positive scenario must not carry the negative tag(s) ${negativeTags.join(', ')}`);
    }
    if (row.hostExpected !== undefined && !tags.includes('application-invalid')) {
      problems.push(`${at}.hostExpected: only application-invalid scenarios may declare hostExpected`);
    }
  });
  return problems;
}

function formatErrors(errors: ErrorObject[]): string[] {
  const out: string[] = [];
  for (const error of errors) {
    // The branches of the expected/expectError oneOf only restate the oneOf failure itself.
    if (/\/oneOf\/\d+\//.test(error.schemaPath)) continue;
    const at = pointerToPath(error.instancePath);
    const prefix = at === '' ? '(file)' : at;
    switch (error.keyword) {
      case 'additionalProperties':
        out.push(`${joinPath(at, String(error.params.additionalProperty))}: unknown key (the closed scenario format does not allow it)`);
        break;
      case 'oneOf':
        out.push(`${prefix}: must have exactly one of "expected" or "expectError"`);
        break;
      case 'pattern':
        out.push(`${prefix}: ${show(error.data)} must match ${String(error.params.pattern)} (lowercase kebab/dot id)`);
        break;
      default:
        out.push(`${prefix}: ${error.message ?? error.keyword}`);
    }
  }
  return out;
}

function show(value: unknown): string {
  return value === undefined ? 'nothing (missing)' : JSON.stringify(value);
}
