// The catalogue scenario loader: our file and the protocol's load, and every broken file is refused
// with a CatalogueScenarioFileError that names the file, the JSON path and what was expected. An
// unknown op or key is a load error, never a skipped step.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { CATALOGUE_SCENARIO_FILE_SCHEMA_URL, lintCatalogueScenarioFile } from '../../harness/families/catalogue/lint-catalogue-scenario-file.ts';
import {
  CatalogueScenarioFileError,
  checkCatalogueScenarioFile,
  loadCatalogueScenarioFile,
  loadCatalogueScenarioFileSync,
  parseCatalogueScenarioFile,
} from '../../harness/families/catalogue/load-catalogue-scenarios.ts';
import { CATALOGUE_CATEGORIES, CATALOGUE_STEP_OPS } from '../../harness/families/catalogue/scenario-types.ts';
import { CATALOGUE_SCENARIOS_FILE } from '../../harness/generate/fixture-target.ts';
import { canonicalInteropCandidate, canonicalInteropFile } from '../../harness/protocol/canonical-interop.ts';
import { ScenarioFileError } from '../../harness/scenarios/load-scenarios.ts';

const FILE = '/fixtures/catalogue.json';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ahp-catalogue-scenarios-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// Rows are edited freely as plain JSON here, to break them in every way a file on disk can be broken.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

/** A small clean file: a notify, a rawNotify and a register row. */
function sample(): Doc {
  const message = (id: string): Doc => ({
    jsonrpc: '2.0',
    method: 'hooks/observe',
    params: { protocolVersion: 'draft', event: { id, source: 'urn:sample', type: 'task.change.before', time: '2026-01-02T03:04:05Z', task: { id: 't', operation: 'create', change: {} } } },
  });
  return {
    version: 1,
    suite: 'catalogue',
    scenarios: [
      { id: 'sample:notify', category: 'lineage', steps: [{ op: 'notify', message: message('a') }], expected: { sent: [message('a')], registrations: [], deliveries: [{ accepted: true, errorKind: null }] }, requests: {}, responses: {} },
      { id: 'sample:raw', category: 'lineage', steps: [{ op: 'rawNotify', message: message('b') }], expected: { sent: [message('b')], registrations: [], deliveries: [{ accepted: false, errorKind: 'lineage' }] }, requests: {}, responses: {} },
      {
        id: 'sample:register',
        category: 'registration',
        description: 'ours may describe and tag rows',
        tags: ['registration:accepted'],
        steps: [{ op: 'register', registration: { protocolVersion: 'draft', hooks: [] }, requirements: [{ event: 'tool.before', mode: 'intercept', effects: ['modify'], modify: { input: { merge: true } } }], context: { interactive: false, environment: { A: 'b' } } }],
        expected: { sent: [], registrations: [{ accepted: false }], deliveries: [] },
        requests: {},
        responses: {},
      },
    ],
  };
}

function refusal(value: unknown): CatalogueScenarioFileError {
  try {
    checkCatalogueScenarioFile(value, FILE);
  } catch (error) {
    expect(error).toBeInstanceOf(CatalogueScenarioFileError);
    expect(error).toBeInstanceOf(ScenarioFileError);
    return error as CatalogueScenarioFileError;
  }
  throw new Error('expected a CatalogueScenarioFileError, but the file was accepted');
}

const problems = (value: unknown): Array<[string, string]> => refusal(value).problems.map((p) => [p.path, p.problem]);

describe('clean files', () => {
  test('the sample loads as written, and async, sync and text loading agree', async () => {
    const file = path.join(tmp, 'sample.json');
    writeFileSync(file, JSON.stringify(sample()));
    const loaded = await loadCatalogueScenarioFile(file);
    expect(loaded).toEqual(sample());
    expect(loadCatalogueScenarioFileSync(file)).toEqual(loaded);
    expect(parseCatalogueScenarioFile(readFileSync(file, 'utf8'), file)).toEqual(loaded);
  });

  test('a file without the top-level suite loads (the runner drops it when writing adapter configs)', () => {
    const { suite: _suite, ...rest } = sample();
    expect(lintCatalogueScenarioFile(rest)).toEqual([]);
  });

  test('our generated file loads with zero problems', () => {
    const loaded = loadCatalogueScenarioFileSync(CATALOGUE_SCENARIOS_FILE);
    expect(new Set(loaded.scenarios.map((row) => row.category))).toEqual(new Set(CATALOGUE_CATEGORIES));
  });

  const canonical = canonicalInteropFile('catalogue-scenarios.json');
  test.skipIf(canonical === undefined)(`the canonical file loads: 47 rows, 21 execution, 13 lineage, 13 registration (${canonicalInteropCandidate()}; skipped when absent)`, () => {
    const rows = loadCatalogueScenarioFileSync(canonical as string).scenarios;
    expect(rows).toHaveLength(47);
    const count = (category: string) => rows.filter((row) => row.category === category).length;
    expect([count('execution'), count('lineage'), count('registration')]).toEqual([21, 13, 13]);
    const ops = rows.flatMap((row) => row.steps.map((step) => step.op));
    expect([ops.filter((op) => op === 'notify').length, ops.filter((op) => op === 'rawNotify').length, ops.filter((op) => op === 'register').length]).toEqual([34, 5, 13]);
  });
});

describe('format problems name the path and what was expected', () => {
  test('an unknown op fails and lists the known ones (it is never skipped)', () => {
    const doc = sample();
    doc.scenarios[0].steps[0].op = 'observe';
    expect(problems(doc)).toEqual([['scenarios[0].steps[0].op', `expected one of ${CATALOGUE_STEP_OPS.map((op) => JSON.stringify(op)).join(', ')}, got "observe"`]]);
  });

  test('a step without an op', () => {
    const doc = sample();
    delete doc.scenarios[0].steps[0].op;
    expect(problems(doc)[0]![0]).toBe('scenarios[0].steps[0].op');
  });

  test('unknown keys in a row, a step, a context and the file', () => {
    const doc = sample();
    doc.scenarios[0].chain = {};
    doc.scenarios[1].steps[0].subscription = 'label';
    doc.scenarios[2].steps[0].context.trusted = true;
    doc.expectedVersion = 2;
    const found = problems(doc);
    expect(found.map(([where]) => where)).toEqual(['expectedVersion', 'scenarios[0].chain', 'scenarios[1].steps[0].subscription', 'scenarios[2].steps[0].context.trusted']);
    expect(found.every(([, problem]) => problem.startsWith('unknown key; expected only ') && problem.endsWith('(the catalogue scenario format is closed)'))).toBe(true);
  });

  test.each<[string, (doc: Doc) => void, string, RegExp]>([
    ['version 2', (d) => (d.version = 2), 'version', /expected the format version 1, got number 2/],
    ['another suite', (d) => (d.suite = 'lifecycle'), 'suite', /expected the suite name "catalogue"/],
    ['a row without category', (d) => delete d.scenarios[0].category, 'scenarios[0].category', /got nothing \(missing\)/],
    ['an unknown category', (d) => (d.scenarios[0].category = 'isolation'), 'scenarios[0].category', /expected a category: "execution", "lineage" or "registration"/],
    ['an id with spaces', (d) => (d.scenarios[0].id = 'Not An Id'), 'scenarios[0].id', /expected a lowercase scenario id/],
    ['interceptions in requests', (d) => (d.scenarios[0].requests = { a: {} }), 'scenarios[0].requests', /expected an empty object \{\}/],
    ['a message that is a string', (d) => (d.scenarios[0].steps[0].message = 'hooks/observe'), 'scenarios[0].steps[0].message', /expected a JSON-RPC message object/],
    ['a register step without context', (d) => delete d.scenarios[2].steps[0].context, 'scenarios[2].steps[0].context', /got nothing \(missing\)/],
    ['an environment value that is a number', (d) => (d.scenarios[2].steps[0].context.environment.A = 1), 'scenarios[2].steps[0].context.environment.A', /expected a string value, got number 1/],
    ['a requirement mode outside the enum', (d) => (d.scenarios[2].steps[0].requirements[0].mode = 'audit'), 'scenarios[2].steps[0].requirements[0].mode', /expected a mode: "intercept" or "observe"/],
    ['a modify operation that is not a boolean', (d) => (d.scenarios[2].steps[0].requirements[0].modify.input.merge = 'yes'), 'scenarios[2].steps[0].requirements[0].modify.input.merge', /expected a boolean/],
    ['a delivery errorKind outside the enum', (d) => (d.scenarios[1].expected.deliveries[0].errorKind = 'auth'), 'scenarios[1].expected.deliveries[0].errorKind', /expected null, "lineage" or "schema"/],
    ['expected without deliveries', (d) => delete d.scenarios[0].expected.deliveries, 'scenarios[0].expected.deliveries', /got nothing \(missing\)/],
  ])('%s', (_name, breakIt, where, what) => {
    const doc = sample();
    breakIt(doc);
    const found = problems(doc);
    expect(found.map(([at]) => at)).toContain(where);
    expect(found.find(([at]) => at === where)![1]).toMatch(what);
  });

  test('the message names the file and the first problem, then lists the rest', () => {
    const doc = sample();
    doc.scenarios[0].steps[0].op = 'observe';
    doc.scenarios[1].extra = true;
    const error = refusal(doc);
    expect(error.file).toBe(FILE);
    expect(error.path).toBe('scenarios[0].steps[0].op');
    expect(error.message).toMatch(/^\/fixtures\/catalogue\.json: scenarios\[0\]\.steps\[0\]\.op: expected one of/);
    expect(error.message).toMatch(/\(1 more problem:\n {2}scenarios\[1\]\.extra: unknown key/);
  });

  test('the format schema is the one the lint compiles', () => {
    const schema = JSON.parse(readFileSync(CATALOGUE_SCENARIO_FILE_SCHEMA_URL, 'utf8')) as { $defs: { step: { oneOf: Array<{ $ref: string }> } } };
    expect(schema.$defs.step.oneOf.map((branch) => branch.$ref.replace('#/$defs/', ''))).toEqual([...CATALOGUE_STEP_OPS]);
  });
});

describe('cross-field problems', () => {
  test.each<[string, (doc: Doc) => void, string, RegExp]>([
    ['a duplicate row id', (d) => (d.scenarios[1].id = d.scenarios[0].id), 'scenarios[1].id', /unique scenario id, but "sample:notify" is also the id of scenarios\[0\]/],
    ['expected.sent missing a message (and its delivery)', (d) => ((d.scenarios[0].expected.sent = []), (d.scenarios[0].expected.deliveries = [])), 'scenarios[0].expected.sent', /one message per notify\/rawNotify step \(1\), got 0/],
    ['expected.sent holding another message than its step', (d) => (d.scenarios[0].expected.sent[0].params.event.id = 'z'), 'scenarios[0].expected.sent[0]', /exactly the message of scenarios\[0\]\.steps\[0\]/],
    ['a registration outcome missing', (d) => (d.scenarios[2].expected.registrations = []), 'scenarios[2].expected.registrations', /one outcome per register step \(1\), got 0/],
    ['a delivery too many', (d) => d.scenarios[0].expected.deliveries.push({ accepted: true, errorKind: null }), 'scenarios[0].expected.deliveries', /one delivery per sent message \(1\), got 2/],
    ['an accepted delivery with an errorKind', (d) => (d.scenarios[0].expected.deliveries[0].errorKind = 'schema'), 'scenarios[0].expected.deliveries[0].errorKind', /errorKind null for an accepted delivery/],
    ['a rejected delivery without an errorKind', (d) => (d.scenarios[1].expected.deliveries[0].errorKind = null), 'scenarios[1].expected.deliveries[0].errorKind', /"lineage" or "schema" for a rejected delivery/],
  ])('%s', (_name, breakIt, where, what) => {
    const doc = sample();
    breakIt(doc);
    const found = problems(doc);
    expect(found.map(([at]) => at)).toEqual([where]);
    expect(found[0]![1]).toMatch(what);
  });
});

describe('unreadable files', () => {
  test('invalid JSON names the line and column', () => {
    expect(() => parseCatalogueScenarioFile('{"version": 1,\n  "scenarios": [}', FILE)).toThrow(/\/fixtures\/catalogue\.json: invalid JSON at line 2, column 17/);
  });

  test('a missing file names the file', () => {
    expect(() => loadCatalogueScenarioFileSync(path.join(tmp, 'absent.json'))).toThrow(/absent\.json: cannot read scenario file/);
  });
});
