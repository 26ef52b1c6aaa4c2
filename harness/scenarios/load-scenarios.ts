// Reads a central scenario file (`{version:1, scenarios:[...]}`) — ours or the protocol repo's own —
// and checks its structure: row shapes, unique ids, the expected/expectError contract. It does NOT
// validate requests or responses against the AHP schemas (harness/protocol does that), and it never
// rejects unknown keys: other tools' keys (e.g. `description`) are preserved as they are.

import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

import { describeValue, parseJsonText } from '../protocol/json-text.ts';
import type { ScenarioFile } from './types.ts';

/** A scenario file problem. The message names the file, the JSON path and what was expected. */
export class ScenarioFileError extends Error {
  override readonly name: string = 'ScenarioFileError';
  readonly file: string;
  /** JSON path such as `scenarios[12].request`; empty when the problem is the whole file. */
  readonly path: string;

  constructor(file: string, path: string, problem: string, options?: { cause?: unknown }) {
    super(`${file}: ${path ? `${path}: ` : ''}${problem}`, options);
    this.file = file;
    this.path = path;
  }
}

/** Asked for scenario ids that the file does not contain. */
export class ScenarioSelectionError extends Error {
  override readonly name = 'ScenarioSelectionError';
  constructor(readonly unknownIds: string[]) {
    super(`unknown scenario id${unknownIds.length === 1 ? '' : 's'}: ${unknownIds.map((id) => JSON.stringify(id)).join(', ')}`);
  }
}

export async function loadScenarioFile(file: string): Promise<ScenarioFile> {
  return parseScenarioFile(await readScenarioText(file), file);
}

export function loadScenarioFileSync(file: string): ScenarioFile {
  return parseScenarioFile(readScenarioTextSync(file), file);
}

/** Parses and structurally checks scenario file text; `file` is only used in error messages. */
export function parseScenarioFile(text: string, file: string): ScenarioFile {
  const value = parseScenarioJson(text, file);
  checkScenarioFile(value, file);
  return value;
}

/** The text of a scenario file of any family; ScenarioFileError naming the file when unreadable. */
export async function readScenarioText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw unreadable(file, error);
  }
}

export function readScenarioTextSync(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw unreadable(file, error);
  }
}

/** Scenario file text as a JSON value; ScenarioFileError with line, column and offset when it is not JSON. */
export function parseScenarioJson(text: string, file: string): unknown {
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new ScenarioFileError(file, '', `invalid JSON ${parsed.where}: ${parsed.reason}`);
  return parsed.value;
}

/** Throws ScenarioFileError unless `value` has the central scenario file structure. */
export function checkScenarioFile(value: unknown, file: string): asserts value is ScenarioFile {
  const fail = (at: string, problem: string): never => {
    throw new ScenarioFileError(file, at, problem);
  };
  if (!isObject(value)) fail('', `expected a JSON object {version: 1, scenarios: [...]} at the top level, got ${describeValue(value)}`);
  const root = value as Record<string, unknown>;
  if (root.version !== 1) fail('version', `expected 1, got ${describeValue(root.version)}`);
  if (!Array.isArray(root.scenarios)) fail('scenarios', `expected an array of scenarios, got ${describeValue(root.scenarios)}`);

  const firstIndex = new Map<string, number>();
  (root.scenarios as unknown[]).forEach((item, i) => {
    const at = `scenarios[${i}]`;
    if (!isObject(item)) fail(at, `expected a scenario object, got ${describeValue(item)}`);
    const row = item as Record<string, unknown>;

    if (typeof row.id !== 'string' || row.id === '') fail(`${at}.id`, `expected a non-empty string, got ${describeValue(row.id)}`);
    const id = row.id as string;
    const previous = firstIndex.get(id);
    if (previous !== undefined) {
      fail(`${at}.id`, `expected a unique id, but ${JSON.stringify(id)} is also the id of scenarios[${previous}] (duplicate at scenarios[${previous}] and scenarios[${i}])`);
    }
    firstIndex.set(id, i);

    for (const key of ['request', 'response'] as const) {
      if (!isObject(row[key])) fail(`${at}.${key}`, `expected the ${key} envelope as a JSON object, got ${describeValue(row[key])}`);
    }

    const hasExpected = row.expected !== undefined;
    const hasExpectError = row.expectError !== undefined;
    if (hasExpectError && row.expectError !== true) {
      fail(`${at}.expectError`, `expected true (omit the key for a positive scenario), got ${describeValue(row.expectError)}`);
    }
    if (hasExpected && hasExpectError) fail(at, 'expected exactly one of "expected" or "expectError", but both are present');
    if (!hasExpected && !hasExpectError) fail(at, 'expected exactly one of "expected" or "expectError", but neither is present');
    if (hasExpected && !isObject(row.expected)) fail(`${at}.expected`, `expected a (partial) result object, got ${describeValue(row.expected)}`);
    if (row.hostExpected !== undefined) {
      if (!hasExpectError) fail(`${at}.hostExpected`, 'expected only on a negative scenario ("expectError": true), but this row has no expectError');
      if (!isObject(row.hostExpected)) fail(`${at}.hostExpected`, `expected a result object, got ${describeValue(row.hostExpected)}`);
    }

    if (row.tags !== undefined) {
      if (!Array.isArray(row.tags)) fail(`${at}.tags`, `expected an array of strings, got ${describeValue(row.tags)}`);
      (row.tags as unknown[]).forEach((tag, t) => {
        if (typeof tag !== 'string') fail(`${at}.tags[${t}]`, `expected a string, got ${describeValue(tag)}`);
      });
    }
    if (row.barrier !== undefined && (typeof row.barrier !== 'string' || row.barrier === '')) {
      fail(`${at}.barrier`, `expected a non-empty string naming a control barrier, got ${describeValue(row.barrier)}`);
    }
  });
}

/** Any family's scenario file: `{version:1, scenarios:[{id, ...}]}` (core, lifecycle, ...). */
interface RowsWithIds<Row extends { id: string }> {
  scenarios: Row[];
}

/**
 * The file restricted to `ids`, in file order (not argument order). Extra top-level keys are kept.
 * Throws ScenarioSelectionError naming every id the file does not contain. Works for every family.
 */
export function selectScenarios<Row extends { id: string }, File extends RowsWithIds<Row>>(file: File, ids: Iterable<string>): File {
  const wanted = new Set(ids);
  const present = new Set(file.scenarios.map((s) => s.id));
  const unknown = [...wanted].filter((id) => !present.has(id));
  if (unknown.length > 0) throw new ScenarioSelectionError(unknown);
  const scenarios: Row[] = file.scenarios.filter((s) => wanted.has(s.id));
  return { ...file, scenarios };
}

/** The canonical on-disk form of any family's scenario file: 2-space indented JSON with a trailing newline. */
export function serializeScenarioFile(file: RowsWithIds<{ id: string }> & { version: 1 }): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unreadable(file: string, error: unknown): ScenarioFileError {
  const reason = error instanceof Error ? error.message : String(error);
  return new ScenarioFileError(file, '', `cannot read scenario file (${reason})`, { cause: error });
}
