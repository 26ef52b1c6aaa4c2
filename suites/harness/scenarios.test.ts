import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, test } from 'vitest';

import { projectRoot } from '../../harness/config/load-config.ts';
import { lintOwnScenarioFile } from '../../harness/scenarios/lint-scenario-file.ts';
import {
  ScenarioFileError,
  ScenarioSelectionError,
  loadScenarioFile,
  loadScenarioFileSync,
  parseScenarioFile,
  selectScenarios,
  serializeScenarioFile,
} from '../../harness/scenarios/load-scenarios.ts';
import type { Scenario, ScenarioFile } from '../../harness/scenarios/types.ts';
import { allowScenario } from './support/allow-scenario.ts';

let tmp: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'ahp-scenarios-test-'));
});

afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

function row(id: string, extra: Partial<Scenario> = {}): Scenario {
  return allowScenario(
    id,
    {
      event: { type: 'tool.before', tool: { name: 'task', input: { task: 1 }, origin: 'native' } },
      effects: ['allow', 'deny'],
      expected: { decision: 'allow', executed: true },
      tags: ['allow'],
    },
    extra,
  );
}

function negative(id: string, extra: Partial<Scenario> = {}): Scenario {
  const { expected: _omit, ...rest } = row(id, { expectError: true, tags: ['schema-invalid'], ...extra });
  return rest;
}

function sampleFile(): ScenarioFile {
  return { version: 1, scenarios: [row('allow-basic'), negative('deny-missing-reason'), row('modify.merge-one')] };
}

function text(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

function parseError(value: unknown, file = '/fixtures/sample.json'): ScenarioFileError {
  let caught: unknown;
  try {
    parseScenarioFile(typeof value === 'string' ? value : text(value), file);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ScenarioFileError);
  return caught as ScenarioFileError;
}

describe('parseScenarioFile: valid files', () => {
  test('returns the file as written', () => {
    const file = sampleFile();
    expect(parseScenarioFile(text(file), 'x.json')).toEqual(file);
  });

  test('unknown keys on the file and on rows are preserved, never rejected', () => {
    const file = {
      version: 1,
      description: 'from the protocol repository',
      generator: { name: 'generate_scenarios.py' },
      scenarios: [{ ...row('a'), description: 'a positive row', 'x-notes': ['kept'] }, { ...negative('b'), hostExpected: { decision: 'allow' } }],
    };
    const parsed = parseScenarioFile(text(file), 'x.json');
    expect(parsed).toEqual(file);
    expect(parsed.description).toBe('from the protocol repository');
    expect(parsed.scenarios[0]?.['x-notes']).toEqual(['kept']);
  });

  test('tags and barrier are optional; an empty scenario list is allowed', () => {
    const { tags: _tags, ...untagged } = row('no-tags');
    expect(parseScenarioFile(text({ version: 1, scenarios: [untagged] }), 'x.json').scenarios).toHaveLength(1);
    expect(parseScenarioFile(text({ version: 1, scenarios: [] }), 'x.json').scenarios).toEqual([]);
    expect(parseScenarioFile(text({ version: 1, scenarios: [row('held', { barrier: 'b1' })] }), 'x.json').scenarios[0]?.barrier).toBe('b1');
  });

  test('requests are not validated against the AHP schemas here', () => {
    const odd = { ...row('odd'), request: { anything: 'goes' }, response: { deliberately: 'invalid' } };
    expect(parseScenarioFile(text({ version: 1, scenarios: [odd] }), 'x.json').scenarios[0]).toEqual(odd);
  });
});

describe('loadScenarioFile / loadScenarioFileSync', () => {
  test('read a file from disk (async and sync agree)', async () => {
    const file = path.join(tmp, 'scenarios.json');
    writeFileSync(file, serializeScenarioFile(sampleFile()));
    expect(await loadScenarioFile(file)).toEqual(sampleFile());
    expect(loadScenarioFileSync(file)).toEqual(sampleFile());
  });

  test('an unreadable file names the file', async () => {
    const file = path.join(tmp, 'missing.json');
    await expect(loadScenarioFile(file)).rejects.toThrow(ScenarioFileError);
    await expect(loadScenarioFile(file)).rejects.toThrow(`${file}: cannot read scenario file (ENOENT`);
    expect(() => loadScenarioFileSync(file)).toThrow(`${file}: cannot read scenario file (ENOENT`);
  });

  test('a directory is unreadable too', () => {
    expect(() => loadScenarioFileSync(tmp)).toThrow(`${tmp}: cannot read scenario file (EISDIR`);
  });

  test('errors from disk carry the real file path and JSON path', async () => {
    const file = path.join(tmp, 'bad.json');
    writeFileSync(file, text({ version: 2, scenarios: [] }));
    const error = await loadScenarioFile(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScenarioFileError);
    expect((error as ScenarioFileError).file).toBe(file);
    expect((error as ScenarioFileError).path).toBe('version');
  });
});

describe('parseScenarioFile: errors name the file, the JSON path and the expectation', () => {
  test('invalid JSON reports line, column and offset', () => {
    const error = parseError('{\n  "version": 1,\n  "scenarios": [,]\n}\n');
    expect(error.message).toBe(
      '/fixtures/sample.json: invalid JSON at line 3, column 17 (offset 34): expected a JSON value, got ","',
    );
    expect(error.path).toBe('');
  });

  test('truncated JSON reports the end of input', () => {
    const error = parseError('{"version": 1, "scenarios": [');
    expect(error.message).toMatch(/^\/fixtures\/sample\.json: invalid JSON at line 1, column 30 \(offset 29\): unexpected end of input/);
  });

  const mutate = (change: (file: Record<string, unknown>, rows: Array<Record<string, unknown>>) => void): Record<string, unknown> => {
    const file = JSON.parse(text(sampleFile())) as Record<string, unknown>;
    change(file, file.scenarios as Array<Record<string, unknown>>);
    return file;
  };

  // [title, document, JSON path, expectation]
  const cases: Array<[string, unknown, string, RegExp]> = [
    ['top level is an array', [], '', /expected a JSON object \{version: 1, scenarios: \[\.\.\.\]\} at the top level, got \[\] \(an empty array\)/],
    ['top level is a string', 'just text', '', /expected a JSON object .* at the top level, got "just text"/],
    ['version missing', mutate((f) => delete f.version), 'version', /expected 1, got nothing \(missing\)/],
    ['version 2', mutate((f) => (f.version = 2)), 'version', /expected 1, got number 2/],
    ['version as a string', mutate((f) => (f.version = '1')), 'version', /expected 1, got "1"/],
    ['scenarios missing', mutate((f) => delete f.scenarios), 'scenarios', /expected an array of scenarios, got nothing \(missing\)/],
    ['scenarios an object', mutate((f) => (f.scenarios = {})), 'scenarios', /expected an array of scenarios, got an object/],
    ['a row that is not an object', mutate((_f, r) => ((r as unknown[])[1] = 'row')), 'scenarios[1]', /expected a scenario object, got "row"/],
    ['a row that is null', mutate((_f, r) => ((r as unknown[])[2] = null)), 'scenarios[2]', /expected a scenario object, got null/],
    ['id missing', mutate((_f, r) => delete r[1]!.id), 'scenarios[1].id', /expected a non-empty string, got nothing \(missing\)/],
    ['id empty', mutate((_f, r) => (r[0]!.id = '')), 'scenarios[0].id', /expected a non-empty string, got "" \(an empty string\)/],
    ['id a number', mutate((_f, r) => (r[2]!.id = 12)), 'scenarios[2].id', /expected a non-empty string, got number 12/],
    ['duplicate ids', mutate((_f, r) => (r[2]!.id = 'allow-basic')), 'scenarios[2].id', /expected a unique id, but "allow-basic" is also the id of scenarios\[0\] \(duplicate at scenarios\[0\] and scenarios\[2\]\)/],
    ['request missing', mutate((_f, r) => delete r[0]!.request), 'scenarios[0].request', /expected the request envelope as a JSON object, got nothing \(missing\)/],
    ['request an array', mutate((_f, r) => (r[1]!.request = [])), 'scenarios[1].request', /expected the request envelope as a JSON object, got \[\]/],
    ['response missing', mutate((_f, r) => delete r[2]!.response), 'scenarios[2].response', /expected the response envelope as a JSON object, got nothing \(missing\)/],
    ['response a string', mutate((_f, r) => (r[0]!.response = 'oops')), 'scenarios[0].response', /expected the response envelope as a JSON object, got "oops"/],
    ['response null', mutate((_f, r) => (r[0]!.response = null)), 'scenarios[0].response', /expected the response envelope as a JSON object, got null/],
    ['expected and expectError both present', mutate((_f, r) => (r[0]!.expectError = true)), 'scenarios[0]', /expected exactly one of "expected" or "expectError", but both are present/],
    ['expected and expectError both absent', mutate((_f, r) => delete r[0]!.expected), 'scenarios[0]', /expected exactly one of "expected" or "expectError", but neither is present/],
    ['expectError false', mutate((_f, r) => (r[1]!.expectError = false)), 'scenarios[1].expectError', /expected true \(omit the key for a positive scenario\), got boolean false/],
    ['expectError a string', mutate((_f, r) => (r[1]!.expectError = 'true')), 'scenarios[1].expectError', /expected true .*, got "true"/],
    ['expected an array', mutate((_f, r) => (r[2]!.expected = [])), 'scenarios[2].expected', /expected a \(partial\) result object, got \[\]/],
    ['expected null', mutate((_f, r) => (r[2]!.expected = null)), 'scenarios[2].expected', /expected a \(partial\) result object, got null/],
    ['hostExpected without expectError', mutate((_f, r) => (r[0]!.hostExpected = {})), 'scenarios[0].hostExpected', /expected only on a negative scenario \("expectError": true\)/],
    ['hostExpected not an object', mutate((_f, r) => (r[1]!.hostExpected = 'allow')), 'scenarios[1].hostExpected', /expected a result object, got "allow"/],
    ['tags a string', mutate((_f, r) => (r[0]!.tags = 'allow')), 'scenarios[0].tags', /expected an array of strings, got "allow"/],
    ['a tag that is not a string', mutate((_f, r) => (r[1]!.tags = ['schema-invalid', 7])), 'scenarios[1].tags[1]', /expected a string, got number 7/],
    ['barrier empty', mutate((_f, r) => (r[2]!.barrier = '')), 'scenarios[2].barrier', /expected a non-empty string naming a control barrier, got "" \(an empty string\)/],
    ['barrier a number', mutate((_f, r) => (r[2]!.barrier = 1)), 'scenarios[2].barrier', /expected a non-empty string naming a control barrier, got number 1/],
  ];

  test.each(cases)('%s', (_title, document, jsonPath, expectation) => {
    const error = parseError(typeof document === 'string' ? JSON.stringify(document) : document);
    expect(error.file).toBe('/fixtures/sample.json');
    expect(error.path).toBe(jsonPath);
    expect(error.message.startsWith(`/fixtures/sample.json: ${jsonPath ? `${jsonPath}: ` : ''}`)).toBe(true);
    expect(error.message).toMatch(expectation);
  });
});

describe('selectScenarios', () => {
  test('keeps file order, not argument order, and keeps extra file keys', () => {
    const file = { ...sampleFile(), description: 'kept' };
    const selected = selectScenarios(file, ['modify.merge-one', 'allow-basic']);
    expect(selected.scenarios.map((s) => s.id)).toEqual(['allow-basic', 'modify.merge-one']);
    expect(selected.description).toBe('kept');
    expect(selected.version).toBe(1);
  });

  test('accepts any iterable, ignores repeats, and does not mutate the input', () => {
    const file = sampleFile();
    const before = text(file);
    const selected = selectScenarios(file, new Set(['deny-missing-reason']));
    expect(selected.scenarios.map((s) => s.id)).toEqual(['deny-missing-reason']);
    expect(selectScenarios(file, ['allow-basic', 'allow-basic']).scenarios).toHaveLength(1);
    expect(text(file)).toBe(before);
  });

  test('an empty selection is an empty file', () => {
    expect(selectScenarios(sampleFile(), []).scenarios).toEqual([]);
  });

  test('unknown ids are an error naming every one of them', () => {
    expect(() => selectScenarios(sampleFile(), ['allow-basic', 'nope', 'also-nope'])).toThrow(ScenarioSelectionError);
    expect(() => selectScenarios(sampleFile(), ['allow-basic', 'nope', 'also-nope'])).toThrow('unknown scenario ids: "nope", "also-nope"');
    try {
      selectScenarios(sampleFile(), ['nope']);
    } catch (error) {
      expect((error as ScenarioSelectionError).unknownIds).toEqual(['nope']);
      expect((error as Error).message).toBe('unknown scenario id: "nope"');
    }
  });
});

describe('serializeScenarioFile', () => {
  test('writes 2-space JSON with a trailing newline', () => {
    const out = serializeScenarioFile({ version: 1, scenarios: [] });
    expect(out).toBe('{\n  "version": 1,\n  "scenarios": []\n}\n');
  });

  test('round trips: parse(serialize(f)) equals f and serialize(parse(t)) equals canonical t', () => {
    const file = { ...sampleFile(), description: 'extra keys survive', scenarios: [...sampleFile().scenarios, row('unicode-ü', { barrier: 'b' })] };
    const canonical = serializeScenarioFile(file);
    const parsed = parseScenarioFile(canonical, 'x.json');
    expect(parsed).toEqual(file);
    expect(serializeScenarioFile(parsed)).toBe(canonical);
  });

  test('the on-disk form loads back identically', async () => {
    const file = path.join(tmp, 'round.json');
    writeFileSync(file, serializeScenarioFile(sampleFile()));
    expect(serializeScenarioFile(await loadScenarioFile(file))).toBe(serializeScenarioFile(sampleFile()));
  });
});

describe('lintOwnScenarioFile (closed format for our generated fixtures)', () => {
  test('a clean file has no problems', () => {
    const file: ScenarioFile = {
      version: 1,
      scenarios: [
        row('allow-basic', { description: 'allow resolves to allow' }),
        negative('task-input.zero', { tags: ['application-invalid', 'modify'], hostExpected: { decision: 'allow', executed: false } }),
        row('flow.stop-held', { barrier: 'release-1' }),
      ],
    };
    expect(lintOwnScenarioFile(file)).toEqual([]);
  });

  const lint = (change: (file: Record<string, unknown>, rows: Array<Record<string, unknown>>) => void): string[] => {
    const file = JSON.parse(text(sampleFile())) as Record<string, unknown>;
    change(file, file.scenarios as Array<Record<string, unknown>>);
    return lintOwnScenarioFile(file as unknown as ScenarioFile);
  };

  // [title, change, expected problem]
  const cases: Array<[string, (file: Record<string, unknown>, rows: Array<Record<string, unknown>>) => void, string | RegExp]> = [
    ['unknown top-level key', (f) => (f.generator = 'x'), 'generator: unknown key (the closed scenario format does not allow it)'],
    ['unknown row key', (_f, r) => (r[1]!.notes = 'x'), 'scenarios[1].notes: unknown key (the closed scenario format does not allow it)'],
    ['version 2', (f) => (f.version = 2), 'version: must be equal to constant'],
    ['id not kebab/dot', (_f, r) => { r[0]!.id = 'Allow_Basic'; (r[0]!.request as { id: string }).id = 'Allow_Basic'; }, /^scenarios\[0\]\.id: "Allow_Basic" must match \^\[a-z0-9\]\[a-z0-9\.-\]\*\$/],
    ['tags missing', (_f, r) => delete r[2]!.tags, "scenarios[2]: must have required property 'tags'"],
    ['duplicate tags', (_f, r) => (r[0]!.tags = ['allow', 'allow']), /^scenarios\[0\]\.tags: must NOT have duplicate items/],
    ['empty description', (_f, r) => (r[0]!.description = ''), /^scenarios\[0\]\.description: must NOT have fewer than 1 characters/],
    ['both expected and expectError', (_f, r) => (r[1]!.expected = {}), 'scenarios[1]: must have exactly one of "expected" or "expectError"'],
    ['neither expected nor expectError', (_f, r) => delete r[0]!.expected, 'scenarios[0]: must have exactly one of "expected" or "expectError"'],
    ['expectError false', (_f, r) => (r[1]!.expectError = false), 'scenarios[1].expectError: must be equal to constant'],
    ['hostExpected without expectError', (_f, r) => (r[0]!.hostExpected = {}), 'scenarios[0]: must have property expectError when property hostExpected is present'],
    ['duplicate ids', (_f, r) => { r[2]!.id = 'allow-basic'; (r[2]!.request as { id: string; params: { event: { id: string } } }).id = 'allow-basic'; (r[2]!.request as { params: { event: { id: string } } }).params.event.id = 'allow-basic'; }, 'scenarios[2].id: duplicate id "allow-basic" (also scenarios[0])'],
    ['request.id differs from the id', (_f, r) => ((r[0]!.request as { id: unknown }).id = 7), 'scenarios[0].request.id: expected the scenario id "allow-basic", got 7'],
    ['event.id differs from the id', (_f, r) => ((r[2]!.request as { params: { event: { id: string } } }).params.event.id = 'other'), 'scenarios[2].request.params.event.id: expected the scenario id "modify.merge-one", got "other"'],
    ['event missing', (_f, r) => delete (r[2]!.request as { params: { event?: unknown } }).params.event, 'scenarios[2].request.params.event.id: expected the scenario id "modify.merge-one", got nothing (missing)'],
    ['negative without a negative tag', (_f, r) => (r[1]!.tags = ['deny']), 'scenarios[1].tags: a negative scenario needs one of schema-invalid, correlation-invalid, capability-invalid, application-invalid'],
    ['positive with a negative tag', (_f, r) => (r[0]!.tags = ['allow', 'schema-invalid']), 'scenarios[0].tags: a positive scenario must not carry the negative tag(s) schema-invalid'],
    ['hostExpected off application-invalid', (_f, r) => (r[1]!.hostExpected = {}), 'scenarios[1].hostExpected: only application-invalid scenarios may declare hostExpected'],
  ];

  test.each(cases)('%s', (_title, change, problem) => {
    const problems = lint(change);
    if (typeof problem === 'string') expect(problems).toContain(problem);
    else expect(problems.some((p) => problem.test(p)), problems.join('\n')).toBe(true);
  });

  const committed = path.join(projectRoot(), 'fixtures', 'scenarios.json');
  test.skipIf(!existsSync(committed))('the committed fixtures/scenarios.json loads and lints clean', async () => {
    expect(lintOwnScenarioFile(await loadScenarioFile(committed))).toEqual([]);
  });
});
