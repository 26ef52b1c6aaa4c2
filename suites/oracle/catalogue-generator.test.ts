// Our catalogue fixture generator: the committed file is exactly a fresh build, it covers every
// catalogue type, every lineage rule and every registration check with a tagged row whose witness
// holds, and the generator's own checks catch the mistakes they exist for. Also the fixture tests of
// CATALOGUE-RULES §7: item ids keep one role within a source (canonical file and ours), and the
// canonical inline-messages row keeps its ordered roles, part kinds, Unicode and empty text.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, test } from 'vitest';

import { CATALOGUE_EVENT_TYPES } from '../../harness/families/catalogue/catalogue-events.ts';
import { catalogueRunnabilityProblems } from '../../harness/families/catalogue/catalogue-runnability.ts';
import { itemNamespaceProblems, itemRoleProblems } from '../../harness/families/catalogue/item-roles.ts';
import { lintCatalogueScenarioFile } from '../../harness/families/catalogue/lint-catalogue-scenario-file.ts';
import { loadCatalogueScenarioFileSync } from '../../harness/families/catalogue/load-catalogue-scenarios.ts';
import type { CatalogueScenario, CatalogueScenarioFile } from '../../harness/families/catalogue/scenario-types.ts';
import { CATALOGUE_COVERAGE } from '../../harness/families/catalogue/coverage.ts';
import { buildCatalogueScenarios, checkCatalogueScenarioBuild, evaluateCatalogueRows } from '../../harness/families/catalogue/generate.ts';
import { FIXTURE_TARGETS } from '../../harness/generate/fixture-targets.ts';
import { CATALOGUE_SCENARIOS_FILE } from '../../harness/generate/fixture-target.ts';
import { canonicalSchemaCandidate, canonicalSchemaDir } from '../../harness/protocol/canonical-schemas.ts';
import { cloneJson, isJsonObject, type JsonObject } from '../../harness/protocol/json.ts';
import { PROJECT_ROOT, loadValidators } from '../../harness/protocol/load-validators.ts';
import { CANONICAL_CATALOGUE, SCHEMA_SETS, canonicalCatalogueTitle } from './support/catalogue-sources.ts';

const ours = loadValidators(path.join(PROJECT_ROOT, 'schemas'));
const committedText = readFileSync(CATALOGUE_SCENARIOS_FILE, 'utf8');
const committed = loadCatalogueScenarioFileSync(CATALOGUE_SCENARIOS_FILE);
const target = FIXTURE_TARGETS.find((t) => t.name === 'catalogue');
const canonical = CANONICAL_CATALOGUE;

const fresh = (): CatalogueScenarioFile => cloneJson(committed);
const row = (file: CatalogueScenarioFile, id: string): CatalogueScenario => file.scenarios.find((r) => r.id === id)!;
const eventOfStep = (r: CatalogueScenario, k = 0): JsonObject => ((r.steps[k] as { message: JsonObject }).message.params as JsonObject).event as JsonObject;
/** Edits the event of a row's one message in its step and in expected.sent alike (the file stays loadable). */
function editEvent(r: CatalogueScenario, edit: (event: JsonObject) => void): void {
  edit(eventOfStep(r));
  edit((r.expected.sent[0]!.params as JsonObject).event as JsonObject);
}

describe('catalogue scenario generator', () => {
  test('the committed fixtures/catalogue-scenarios.json equals a fresh build byte for byte (run `npm run fixtures`)', () => {
    expect(target, 'FIXTURE_TARGETS has a catalogue target').toBeDefined();
    const generated = target!.generate(ours);
    expect(generated.problems).toEqual([]);
    expect(committedText === generated.text, 'fixtures/catalogue-scenarios.json is stale: run `npm run fixtures`').toBe(true);
  });

  test('two builds are identical (no randomness, clock or paths)', () => {
    expect(JSON.stringify(buildCatalogueScenarios(ours))).toBe(JSON.stringify(buildCatalogueScenarios(ours)));
  });

  test('the committed file loads with zero problems and passes every generator check', () => {
    expect(lintCatalogueScenarioFile(committed)).toEqual([]);
    expect(checkCatalogueScenarioBuild(committed, ours)).toEqual([]);
  });

  const canonicalSchemas = canonicalSchemaDir();
  test.skipIf(canonicalSchemas === undefined)(`under the canonical schemas every outcome is the same and every check passes (${canonicalSchemaCandidate()}; skipped when absent)`, () => {
    expect(checkCatalogueScenarioBuild(committed, loadValidators(canonicalSchemas as string))).toEqual([]);
  });

  test('it covers every catalogue type, category and outcome kind', () => {
    const delivered = committed.scenarios.flatMap((r) => r.expected.sent.flatMap((m, k) => (r.expected.deliveries[k]!.accepted ? [((m.params as JsonObject).event as JsonObject).type] : [])));
    expect(new Set(delivered)).toEqual(new Set(CATALOGUE_EVENT_TYPES));
    const deliveries = committed.scenarios.flatMap((r) => r.expected.deliveries);
    expect(new Set(deliveries.map((d) => d.errorKind))).toEqual(new Set([null, 'lineage', 'schema']));
    expect(new Set(committed.scenarios.flatMap((r) => r.expected.registrations.map((x) => x.accepted)))).toEqual(new Set([true, false]));
  });

  test('every lineage rule and every registration check refuses something in the file', () => {
    const evidence = evaluateCatalogueRows(committed.scenarios, ours);
    const lineageRules = new Set(evidence.flatMap((e) => e.deliveries.flatMap((d) => (!d.verdict.accepted && d.verdict.errorKind === 'lineage' ? [d.verdict.rule] : []))));
    expect(lineageRules).toEqual(new Set(['change', 'identity', 'cycle', 'parent', 'late-parent']));
    const checks = new Set(evidence.flatMap((e) => e.registrations.flatMap((r) => (r.evaluation.accepted ? [] : [r.evaluation.check]))));
    expect(checks).toEqual(new Set(['schema', 'backend-ids', 'manifest', 'credentials', 'requirements']));
  });

  test('every coverage item is claimed by a row and the tags are exactly the coverage items', () => {
    const tags = new Set(committed.scenarios.flatMap((r) => r.tags ?? []));
    expect([...tags].sort()).toEqual(CATALOGUE_COVERAGE.map((item) => item.tag).sort());
  });

  test('no row of the committed file is unrunnable (no event-less notification: that is a receiver probe now)', () => {
    expect(catalogueRunnabilityProblems(committed)).toEqual([]);
    expect(committed.scenarios.map((r) => r.id)).not.toContain('execution:observation-without-event');
  });

  test('ids and sources are ours, not the canonical file\'s', () => {
    const canonicalIds = new Set(canonical?.scenarios.map((r) => r.id) ?? []);
    for (const r of committed.scenarios) {
      expect(canonicalIds.has(r.id), r.id).toBe(false);
      expect(r.id).toMatch(/^(event|execution|lineage|registration):/);
      for (const message of r.expected.sent) {
        const event = (message.params as JsonObject).event;
        if (isJsonObject(event)) expect(String(event.source)).toMatch(/^urn:ahp-conformance:catalogue-host/);
      }
    }
  });
});

describe("the generator's checks catch what they exist for", () => {
  const problemsOf = (file: CatalogueScenarioFile): string[] => checkCatalogueScenarioBuild(file, ours);

  test('a hand-edited delivery', () => {
    const file = fresh();
    row(file, 'lineage:self-parent').expected.deliveries[0] = { accepted: true, errorKind: null };
    expect(problemsOf(file).join('\n')).toMatch(/lineage:self-parent: expected differs from what the tracker and evaluator compute/);
  });

  test('a hand-edited registration outcome', () => {
    const file = fresh();
    row(file, 'registration:ask-without-user').expected.registrations[0] = { accepted: true };
    expect(problemsOf(file).join('\n')).toMatch(/registration:ask-without-user: expected differs/);
  });

  test('a notify the receiver would reject', () => {
    const file = fresh();
    const r = row(file, 'lineage:self-parent');
    r.steps[0]!.op = 'notify';
    expect(problemsOf(file).join('\n')).toMatch(/lineage:self-parent: sent\[0\] goes through the SDK \(notify\) but the receiver rejects it/);
  });

  test('an item id reused for another role within a source', () => {
    const file = fresh();
    const progress = eventOfStep(row(file, 'event:tool.progress'));
    // The turn's delta part gets the id of the tool's partial output message.
    editEvent(row(file, 'event:turn.progress'), (turnProgress) => {
      ((turnProgress.delta as JsonObject).parts as JsonObject[])[0]!.id = (progress.partialOutput as JsonObject).id!;
    });
    const problems = problemsOf(file).join('\n');
    expect(problems).toMatch(/item id "event:tool.progress:item:partial" of source "urn:ahp-conformance:catalogue-host" is a message tool at event:tool.progress .* but a part text text\/plain at event:turn.progress/);
    expect(problems).toMatch(/is not namespaced "event:turn.progress:item:<name>"/);
  });

  test('an event identity reused by a row that does not prove reuse', () => {
    const file = fresh();
    editEvent(row(file, 'event:turn.end'), (event) => {
      event.id = eventOfStep(row(file, 'event:turn.start')).id!;
    });
    expect(problemsOf(file).join('\n')).toMatch(/event:turn.end: event "event:turn.start\/event" of "urn:ahp-conformance:catalogue-host" was already sent by event:turn.start/);
  });

  test('a tag that is not a coverage item, and a tag whose witness does not hold', () => {
    const file = fresh();
    row(file, 'event:turn.start').tags = ['type:turn.start', 'lineage:rule-6-late-parent', 'made-up'];
    const problems = problemsOf(file).join('\n');
    expect(problems).toMatch(/event:turn.start: tag "made-up" is not a coverage item/);
    expect(problems).toMatch(/event:turn.start: tagged lineage:rule-6-late-parent but no accepted parent arriving after its child/);
  });

  test('a coverage item no row claims', () => {
    const file = fresh();
    file.scenarios = file.scenarios.filter((r) => !r.tags?.includes('lineage:rule-4-long-cycle'));
    expect(problemsOf(file)).toContain('coverage: no row is tagged lineage:rule-4-long-cycle (a cycle through three events is found)');
  });

  test('a row in the wrong category, and one without description', () => {
    const file = fresh();
    const r = row(file, 'event:task.change.before');
    r.category = 'execution';
    delete r.description;
    const problems = problemsOf(file).join('\n');
    expect(problems).toMatch(/event:task.change.before: a execution row sends task.change.before/);
    expect(problems).toMatch(/event:task.change.before: has no description/);
  });

  test('a row no client can run: the old observation-without-event notification, which has no event id to /wait-observed on', () => {
    const file = fresh();
    const r = row(file, 'execution:model-error-without-error');
    const message: JsonObject = { jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft' } };
    (r.steps[0] as { message: JsonObject }).message = message;
    r.expected.sent[0] = message;
    expect(problemsOf(file).join('\n')).toMatch(
      /execution:model-error-without-error: runnability: fixtures\/catalogue-scenarios\.json \(generated\): scenarios\[\d+\]\.steps\[0\]\.message\.params\.event: expected an event object with an id .*\[rule: CATALOGUE-RULES §5 notify\/rawNotify/,
    );
  });

  test('a row tagged with coverage that only a receiver probe can show', () => {
    const file = fresh();
    row(file, 'execution:model-error-without-error').tags!.push('delivery:null-event-id');
    expect(problemsOf(file)).toContain('execution:model-error-without-error: tag "delivery:null-event-id" is covered by the receiver probe receiver/event-less-observation, not by a row (no client can run such a row)');
  });

  test('a file that no longer loads', () => {
    const file = fresh();
    (file.scenarios[0]!.steps[0] as { op: string }).op = 'emit';
    expect(problemsOf(file)[0]).toMatch(/^format: .*scenarios\[0\]\.steps\[0\]\.op: expected one of "notify", "rawNotify", "register", got "emit"/);
  });
});

describe('CATALOGUE-RULES §7 fixture tests', () => {
  const files: Array<[string, CatalogueScenarioFile | undefined]> = [
    [canonicalCatalogueTitle('the canonical file'), canonical],
    ['our file', committed],
  ];
  for (const [name, file] of files) {
    test.skipIf(file === undefined)(`within a source an item id keeps one role: ${name}`, () => {
      expect(itemRoleProblems(file!.scenarios)).toEqual([]);
    });
  }

  test('our item ids are namespaced by row', () => {
    expect(itemNamespaceProblems(committed.scenarios)).toEqual([]);
  });

  test('an item id with two roles in one source is found, and in two sources it is not', () => {
    const message = (id: string, source: string, items: JsonObject[]): JsonObject => ({
      jsonrpc: '2.0',
      method: 'hooks/observe',
      params: { protocolVersion: 'draft', event: { id, source, type: 'turn.start', time: '2026-01-01T00:00:00Z', turn: { id: 't' }, trigger: 'user', items } },
    });
    const rowWith = (id: string, m: JsonObject): CatalogueScenario => ({ id, category: 'execution', steps: [{ op: 'notify', message: m }], expected: { sent: [m], registrations: [], deliveries: [] }, requests: {}, responses: {} });
    const asMessage = { id: 'shared', role: 'user', parts: [] };
    const asPart = { id: 'shared', role: 'assistant', parts: [] };
    expect(itemRoleProblems([rowWith('a', message('e1', 'urn:x', [asMessage])), rowWith('b', message('e2', 'urn:x', [asPart]))])).toHaveLength(1);
    expect(itemRoleProblems([rowWith('a', message('e1', 'urn:x', [asMessage])), rowWith('b', message('e2', 'urn:y', [asPart]))])).toEqual([]);
    expect(itemRoleProblems([rowWith('a', message('e1', 'urn:x', [asMessage])), rowWith('b', message('e1', 'urn:x', [asMessage]))])).toEqual([]);
  });

  test.skipIf(canonical === undefined)('canonical-inline-messages keeps its roles, part kinds, Unicode and empty text, reasoning category, namespaced ids and no body on text', () => {
    const event = eventOfStep(row(canonical!, 'canonical-inline-messages'));
    const [user, assistant] = event.items as JsonObject[];
    expect([user!.role, assistant!.role]).toEqual(['user', 'assistant']);
    const userParts = user!.parts as JsonObject[];
    const assistantParts = assistant!.parts as JsonObject[];
    expect(userParts.map((p) => p.kind)).toEqual(['text', 'attachment', 'text']);
    expect(userParts[0]!.text).toBe('First line.\nUnicode: café 🌍');
    expect(assistantParts.some((p) => p.category === 'reasoning')).toBe(true);
    expect(assistantParts.some((p) => p.text === '')).toBe(true);
    const all = [user!, assistant!, ...userParts, ...assistantParts];
    expect(all.every((item) => String(item.id).startsWith('canonical-inline-messages:item:'))).toBe(true);
    expect([...userParts, ...assistantParts].filter((p) => p.kind === 'text').every((p) => !('body' in p))).toBe(true);
  });

  test('our inline-messages row keeps the same shape in our own words', () => {
    const event = eventOfStep(row(committed, 'execution:inline-messages'));
    const [user, assistant] = event.items as JsonObject[];
    expect([user!.role, assistant!.role]).toEqual(['user', 'assistant']);
    expect((user!.parts as JsonObject[]).map((p) => p.kind)).toEqual(['text', 'attachment', 'text']);
    expect((user!.parts as JsonObject[])[0]!.text).toMatch(/\n.*[^\x00-\x7f]/s);
    expect((assistant!.parts as JsonObject[]).map((p) => [p.category ?? null, p.text])).toEqual([['reasoning', 'The user wrote German and Japanese.'], [null, '']]);
  });

  for (const [name, dir] of SCHEMA_SETS) {
    test.skipIf(dir === undefined)(`a legacy kind:"message" item and a text part with body:{uri} fail ${name}`, () => {
      const validators = loadValidators(dir as string);
      const base = (row(committed, 'execution:inline-messages').steps[0] as { message: JsonObject }).message;
      expect(validators.observeNotification(base).valid).toBe(true);
      const legacy = cloneJson(base);
      const legacyItems = ((legacy.params as JsonObject).event as JsonObject).items as JsonObject[];
      legacyItems[0] = { ...legacyItems[0]!, kind: 'message' };
      expect(validators.observeNotification(legacy).valid).toBe(false);
      const withUri = cloneJson(base);
      const firstPart = ((((withUri.params as JsonObject).event as JsonObject).items as JsonObject[])[0]!.parts as JsonObject[])[0]!;
      firstPart.body = { uri: 'file:///tmp/question.txt' };
      expect(validators.observeNotification(withUri).valid).toBe(false);
    });
  }
});
