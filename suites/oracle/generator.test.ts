import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { projectRoot } from '../../harness/config/load-config.ts';
import { checkGeneratedFile } from '../../harness/generate/check-generated.ts';
import { buildCoreScenarios } from '../../harness/families/core/generate.ts';
import { FIXTURE_TARGETS } from '../../harness/generate/fixture-targets.ts';
import { FIXTURE_HOST_SOURCE, FIXTURE_HOST_TOOL, FIXTURE_HOST_TOOL_PATH, taskRuleScope } from '../../harness/oracle/fixture-host.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';
import { parseScenarioFile, serializeScenarioFile } from '../../harness/scenarios/load-scenarios.ts';
import type { Scenario, ScenarioFile } from '../../harness/scenarios/types.ts';
import type { InterceptState } from '../../harness/protocol/messages.ts';
import { canonicalSchemaCandidate, canonicalSchemaDir } from '../../harness/protocol/canonical-schemas.ts';

// The core fixture generator: the committed file is exactly a fresh build, it passes the seed's
// "Regenerate and validate" checks under our schemas and the canonical ones, and those checks really
// catch the mistakes they exist for.

const ROOT = projectRoot();
const COMMITTED = path.join(ROOT, 'fixtures', 'scenarios.json');
const OUR_SCHEMAS = path.join(ROOT, 'schemas');
const CANONICAL_SCHEMAS = canonicalSchemaCandidate();
const canonicalMissing = canonicalSchemaDir() === undefined;

const ours = loadValidators(OUR_SCHEMAS);
const committedText = readFileSync(COMMITTED, 'utf8');
const committed = parseScenarioFile(committedText, COMMITTED);

describe('core scenario generator', () => {
  // Through the fixture target, as `npm run fixtures` writes it (requirements named, semantic lint run).
  test('the committed fixtures/scenarios.json equals a fresh build byte for byte (run `npm run fixtures`)', () => {
    const target = FIXTURE_TARGETS.find((t) => t.name === 'core');
    expect(target, 'FIXTURE_TARGETS has a core target').toBeDefined();
    const fresh = target!.generate(ours);
    expect(fresh.problems).toEqual([]);
    expect(committedText === fresh.text, 'fixtures/scenarios.json is stale: run `npm run fixtures`').toBe(true);
  });

  test('two builds are identical (no randomness, clock or paths)', () => {
    expect(serializeScenarioFile(buildCoreScenarios(ours))).toBe(serializeScenarioFile(buildCoreScenarios(ours)));
  });

  test('the committed file passes every check with our schemas', () => {
    expect(checkGeneratedFile(committed, ours)).toEqual([]);
  });

  test.skipIf(canonicalMissing)(
    `the committed file passes every check with the canonical schemas (${CANONICAL_SCHEMAS}; skipped when absent)`,
    () => {
      expect(checkGeneratedFile(committed, loadValidators(CANONICAL_SCHEMAS))).toEqual([]);
    },
  );

  test("every tool call is the fixture host's, except the host rows, which stage nothing the task rule could refuse", () => {
    for (const row of committed.scenarios) {
      const event = row.request.params.event;
      if (event.type !== 'tool.before') continue;
      expect(event.source, row.id).toBe(FIXTURE_HOST_SOURCE);
      expect(event.path, row.id).toBe(FIXTURE_HOST_TOOL_PATH);
      if (row.tags?.includes('host')) {
        expect(taskRuleScope(event), row.id).toBe('other-tool');
        expect(row.description, row.id).toMatch(/task rule/);
      } else {
        expect(event.tool, row.id).toMatchObject(FIXTURE_HOST_TOOL);
      }
    }
    // The five task-input rows are on the fixture host's tool: a host keying the rule to `task` applies it.
    for (const row of committed.scenarios.filter((s) => s.hostExpected !== undefined)) expect(row.request.params.event.tool?.name, row.id).toBe('task');
  });

  test('covers every area, negative class and the five host task-input rows', () => {
    const count = (tag: string) => committed.scenarios.filter((s) => s.tags?.includes(tag)).length;
    for (const area of ['permission', 'modify', 'return', 'message', 'flow', 'inject', 'state', 'envelope']) {
      expect(count(area), area).toBeGreaterThan(0);
    }
    for (const negative of ['schema-invalid', 'correlation-invalid', 'capability-invalid', 'application-invalid']) {
      expect(count(negative), negative).toBeGreaterThan(0);
    }
    expect(committed.scenarios.filter((s) => s.hostExpected !== undefined)).toHaveLength(5);
    expect(count('positive') + committed.scenarios.filter((s) => s.expectError === true).length).toBe(committed.scenarios.length);
  });
});

describe('the generated-file checks catch mistakes', () => {
  const copy = (): ScenarioFile => structuredClone(committed);
  const find = (file: ScenarioFile, predicate: (s: Scenario) => boolean): Scenario => {
    const row = file.scenarios.find(predicate);
    if (!row) throw new Error('no row matches the mutation precondition');
    return row;
  };
  const problemsFor = (file: ScenarioFile, id: string) => checkGeneratedFile(file, ours).filter((p) => p.startsWith(`${id}:`));

  test('a duplicate id', () => {
    const file = copy();
    const first = file.scenarios[0] as Scenario;
    file.scenarios.push(structuredClone(first));
    expect(problemsFor(file, first.id).join('\n')).toMatch(/duplicate id/);
  });

  test('an event id that differs from the scenario id', () => {
    const file = copy();
    const row = find(file, (s) => s.expected !== undefined);
    row.request.params.event.id = 'some-other-event';
    expect(problemsFor(file, row.id).join('\n')).toMatch(/event\.id "some-other-event" is not the scenario id/);
  });

  test('a row with both expected and expectError', () => {
    const file = copy();
    const row = find(file, (s) => s.expected !== undefined);
    row.expectError = true;
    expect(problemsFor(file, row.id).join('\n')).toMatch(/both expected and expectError/);
  });

  test('a schema-invalid row whose response is actually valid', () => {
    const file = copy();
    const row = find(file, (s) => s.tags?.includes('schema-invalid') === true);
    row.response = { jsonrpc: '2.0', id: row.id, result: { protocolVersion: 'draft', effects: [{ type: 'allow' }] } };
    const problems = problemsFor(file, row.id).join('\n');
    expect(problems).toMatch(/schema-invalid row, but its response passes the intercept-response schema/);
    expect(problems).toMatch(/expectError, but the oracle accepts/);
  });

  test('a wrong expected value', () => {
    const file = copy();
    const row = find(file, (s) => s.id === 'permission.ask-stays-pending');
    (row.expected as Record<string, unknown>).executed = true;
    expect(problemsFor(file, row.id).join('\n')).toMatch(/expected result disagrees with the oracle[\s\S]*executed/);
  });

  test('a malformed expected structure', () => {
    const file = copy();
    const row = find(file, (s) => s.expected !== undefined);
    (row.expected as Record<string, unknown>).decision = 'maybe';
    (row.expected as Record<string, unknown>).verdict = 'ok';
    const problems = problemsFor(file, row.id).join('\n');
    expect(problems).toMatch(/expected\.decision must be one of/);
    expect(problems).toMatch(/expected\.verdict is not a known result key/);
  });

  test('a negative tag that is not the oracle rejection layer', () => {
    const file = copy();
    const row = find(file, (s) => s.tags?.includes('capability-invalid') === true);
    row.tags = (row.tags ?? []).map((tag) => (tag === 'capability-invalid' ? 'schema-invalid' : tag));
    expect(problemsFor(file, row.id).join('\n')).toMatch(/tagged schema-invalid, but the oracle rejects at the capability layer/);
  });

  test('a host task-input row without hostExpected', () => {
    const file = copy();
    const row = find(file, (s) => s.hostExpected !== undefined);
    delete row.hostExpected;
    expect(problemsFor(file, row.id).join('\n')).toMatch(/must declare hostExpected/);
  });

  test.each<[string, string, Partial<InterceptState>, RegExp]>([
    ['a carried state.flow at a finish boundary', 'flow.finish.no-effects', { flow: 'continue' }, /params\.state\.flow: an incoming state\.flow "continue" at turn\.finish\.before/],
    ['carried continuation instructions', 'flow.finish.continue-with-instruction', { instructions: ['earlier'] }, /params\.state\.instructions: carried continuation instructions/],
    ['carried injections', 'inject.now', { injections: [{ carried: true }] }, /params\.state\.injections: carried injections/],
  ])('a row asserting an outcome the protocol leaves undefined: %s', (_label, id, carried, message) => {
    const file = copy();
    const row = find(file, (s) => s.id === id);
    row.request.params.state = { permission: 'none', candidate: null, ...carried };
    expect(problemsFor(file, row.id).join('\n')).toMatch(new RegExp(`asserts an outcome the protocol leaves undefined: ${message.source}`));
  });

  test("a task-rule row on a tool other than the fixture host's task asserts an undefined outcome", () => {
    const file = copy();
    const row = find(file, (s) => s.id === 'modify.task-zero');
    row.request.params.event.tool!.name = 'task.run';
    expect(problemsFor(file, row.id).join('\n')).toMatch(/asserts an outcome the protocol leaves undefined: params\.event\.tool\.name: .*"task\.run", not the fixture host's "task"/);
  });

  test('an unknown key on a row (closed format lint)', () => {
    const file = copy();
    const row = file.scenarios[0] as Scenario;
    row.note = 'not part of the format';
    expect(checkGeneratedFile(file, ours).join('\n')).toMatch(/unknown key/);
  });
});
