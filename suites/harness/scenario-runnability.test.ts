// The runnability lints (harness/lifecycle-adapters/lifecycle-runnability.ts, harness/families/catalogue/
// catalogue-runnability.ts): each rule gets a row of our own generated fixtures edited so that it
// breaks that rule — and only it: the format lint still finds the edited file clean, so the rule is
// what catches the row — with the JSON path and the rule named. Every rule of both tables has such a
// case. Our fixtures and the protocol's canonical files have no unrunnable row, and a file with one
// still loads: the loader names the row, the path and the rule for the suite to skip it.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, test } from 'vitest';

import { CATALOGUE_RUNNABILITY_RULES, catalogueRunnabilityProblems } from '../../harness/families/catalogue/catalogue-runnability.ts';
import { lintCatalogueScenarioFile } from '../../harness/families/catalogue/lint-catalogue-scenario-file.ts';
import { parseCatalogueScenarioFile, unrunnableCatalogueRows } from '../../harness/families/catalogue/load-catalogue-scenarios.ts';
import type { CatalogueScenarioFile } from '../../harness/families/catalogue/scenario-types.ts';
import { CATALOGUE_SCENARIOS_FILE, LIFECYCLE_SCENARIOS_FILE } from '../../harness/generate/fixture-target.ts';
import { LIFECYCLE_RUNNABILITY_RULES, lifecycleRunnabilityProblems } from '../../harness/lifecycle-adapters/lifecycle-runnability.ts';
import { lintLifecycleScenarioFile } from '../../harness/families/lifecycle/lint-lifecycle-scenario-file.ts';
import { parseLifecycleScenarioFile, unrunnableLifecycleRows } from '../../harness/families/lifecycle/load-lifecycle-scenarios.ts';
import type { LifecycleScenarioFile } from '../../harness/lifecycle-adapters/scenario-types.ts';
import { canonicalInteropCandidate, canonicalInteropFile } from '../../harness/protocol/canonical-interop.ts';
import type { RunnabilityProblem, RunnabilityRule } from '../../harness/scenarios/runnability.ts';

// Rows are edited freely as plain JSON here, to break them the way a file on disk can be broken.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

const readDoc = (file: string): Doc => JSON.parse(readFileSync(file, 'utf8')) as Doc;
const LIFECYCLE = readDoc(LIFECYCLE_SCENARIOS_FILE);
const CATALOGUE = readDoc(CATALOGUE_SCENARIOS_FILE);

/** The index of our row `id` in `doc` (found by id, so that regenerating the file moves nothing here). */
function indexOf(doc: Doc, id: string): number {
  const index = (doc.scenarios as Doc[]).findIndex((row) => row.id === id);
  if (index < 0) throw new Error(`the generated fixture has no row ${JSON.stringify(id)} (this self-test edits it)`);
  return index;
}

interface RuleCase {
  title: string;
  rule: RunnabilityRule;
  row: string;
  /** Breaks the rule in `row` (the row itself is passed), returning the JSON path below the row the problem names. */
  edit(row: Doc): string;
  /** A phrase of the problem text. */
  says: RegExp;
}

function runCases(family: 'lifecycle' | 'catalogue', cases: RuleCase[]): void {
  const base = family === 'lifecycle' ? LIFECYCLE : CATALOGUE;
  const format = family === 'lifecycle' ? lintLifecycleScenarioFile : lintCatalogueScenarioFile;
  const runnability = (doc: Doc): RunnabilityProblem[] =>
    family === 'lifecycle' ? lifecycleRunnabilityProblems(doc as LifecycleScenarioFile) : catalogueRunnabilityProblems(doc as CatalogueScenarioFile);

  test.each(cases)('$title', ({ rule, row, edit, says }) => {
    const doc = structuredClone(base);
    const i = indexOf(doc, row);
    const below = edit(doc.scenarios[i] as Doc);
    expect(format(doc), 'the edited file is still well-formed: the runnability rule is what catches it').toEqual([]);
    const found = runnability(doc);
    expect(found.map((p) => [p.row, p.path, p.rule])).toEqual([[row, `scenarios[${i}]${below}`, rule]]);
    expect(found[0]!.problem).toMatch(says);
  });
}

const LIFECYCLE_CASES: RuleCase[] = [
  ...(['wait', 'release', 'cancel', 'accept'] as const).map(
    (op): RuleCase => ({
      title: `${op} of a request the row has not sent yet`,
      rule: LIFECYCLE_RUNNABILITY_RULES.actsOnSentRequest,
      row: 'cancel.held-before-reply',
      edit: (row) => {
        row.steps.unshift(op === 'wait' ? { op, key: 'a', count: 1 } : { op, key: 'a' });
        return '.steps[0].key';
      },
      says: new RegExp(`^expected a request sent before this ${op} \\(none so far\\), got "a"$`),
    }),
  ),
  {
    title: 'a wait for more attempts than were sent',
    rule: LIFECYCLE_RUNNABILITY_RULES.waitCount,
    row: 'cancel.held-before-reply',
    edit: (row) => {
      row.steps[1].count = 2;
      return '.steps[1].count';
    },
    says: /^expected at most the 1 attempt\(s\) of "a" sent so far, got 2$/,
  },
  {
    title: 'a raw replay (bypassSDK) of a request never sent through the SDK',
    rule: LIFECYCLE_RUNNABILITY_RULES.replayAfterSend,
    row: 'cancel.held-before-reply',
    edit: (row) => {
      row.steps[0].bypassSDK = true;
      return '.steps[0].bypassSDK';
    },
    says: /^expected an earlier send of "a" for this raw replay to repeat, got none$/,
  },
  {
    title: 'an emitted frame carrying the id of a request whose slot is still live',
    rule: LIFECYCLE_RUNNABILITY_RULES.emitNotLive,
    row: 'stdio.stale-frame-while-next-live',
    edit: (row) => {
      const emit = (row.steps as Doc[]).findIndex((step) => step.op === 'emit');
      const old = `unsolicited:${String(row.steps[emit].response.id)}`;
      row.steps[emit].response.id = row.requests.b.id;
      row.expected.ignored = (row.expected.ignored as string[]).map((entry) => (entry === old ? `unsolicited:${String(row.requests.b.id)}` : entry));
      return `.steps[${emit}].response.id`;
    },
    says: /whose slot "b" is not yet received \(the frame would be routed to it\)$/,
  },
  {
    title: 'a request whose body names an alias uploaded only after the send',
    rule: LIFECYCLE_RUNNABILITY_RULES.boundAlias,
    row: 'content.intercept-body-after-upload',
    edit: (row) => {
      const [upload, send] = row.steps as Doc[];
      row.steps.splice(0, 2, send, upload);
      return '.requests.a.params.event.items[0].body.ref';
    },
    says: /^expected an alias bound by a 201 upload step before scenarios\[\d+\]\.steps\[0\] \(bound so far: none\), got "intercept-patch"$/,
  },
  {
    title: 'an observe whose items name an alias no upload of the row bound',
    rule: LIFECYCLE_RUNNABILITY_RULES.boundAlias,
    row: 'upload.one-byte-change-new-ref',
    edit: (row) => {
      const observe = (row.steps as Doc[]).findIndex((step) => step.op === 'observe');
      const item = (row.steps[observe].items as Doc[]).findIndex((entry) => entry.body?.ref !== undefined);
      row.steps[observe].items[item].body.ref = 'never-uploaded';
      return `.steps[${observe}].items[${item}].body.ref`;
    },
    says: /\(bound so far: "sketch-0001", "sketch-0002"\), got "never-uploaded"$/,
  },
];

/** A rawNotify row of our catalogue fixture whose message is replaced (expected.sent follows it, so the file stays consistent). */
function withRawMessage(row: Doc, message: Doc): void {
  row.steps[0].message = message;
  row.expected.sent[0] = message;
}

const CATALOGUE_CASES: RuleCase[] = [
  {
    title: 'a notification without params.event (the old execution:observation-without-event row)',
    rule: CATALOGUE_RUNNABILITY_RULES.waitObservedEventId,
    row: 'execution:model-error-without-error',
    edit: (row) => {
      withRawMessage(row, { jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft' } });
      return '.steps[0].message.params.event';
    },
    says: /^expected an event object with an id \(the client waits on it after sending\), got nothing \(missing\)$/,
  },
  {
    title: 'a notification without params',
    rule: CATALOGUE_RUNNABILITY_RULES.waitObservedEventId,
    row: 'execution:model-error-without-error',
    edit: (row) => {
      withRawMessage(row, { jsonrpc: '2.0', method: 'hooks/observe' });
      return '.steps[0].message.params';
    },
    says: /^expected a params object holding the event .*, got nothing \(missing\)$/,
  },
  {
    title: 'an event whose id is not a string',
    rule: CATALOGUE_RUNNABILITY_RULES.waitObservedEventId,
    row: 'execution:model-error-without-error',
    edit: (row) => {
      const message = structuredClone(row.steps[0].message) as Doc;
      message.params.event.id = 7;
      withRawMessage(row, message);
      return '.steps[0].message.params.event.id';
    },
    says: /^expected the event id \(a string\) .*, got number 7$/,
  },
  {
    title: 'a notify carrying a JSON-RPC id, which no SDK observe path writes',
    rule: CATALOGUE_RUNNABILITY_RULES.notifyWire,
    row: 'event:tool.before',
    edit: (row) => {
      const message = structuredClone(row.steps[0].message) as Doc;
      message.id = 'observe-1';
      withRawMessage(row, message);
      return '.steps[0].message.id';
    },
    says: /^expected only jsonrpc, method and params, got "id" as well; a message an SDK would not write goes as rawNotify$/,
  },
  {
    title: 'a notify whose params carry more than protocolVersion and event',
    rule: CATALOGUE_RUNNABILITY_RULES.notifyWire,
    row: 'event:tool.before',
    edit: (row) => {
      const message = structuredClone(row.steps[0].message) as Doc;
      message.params.subscriptionId = 'sub-1';
      withRawMessage(row, message);
      return '.steps[0].message.params.subscriptionId';
    },
    says: /^expected only protocolVersion and event in params, got "subscriptionId" as well/,
  },
  {
    title: 'a message whose content names an uploaded body',
    rule: CATALOGUE_RUNNABILITY_RULES.noUploadedBodies,
    row: 'event:tool.after',
    edit: (row) => {
      const message = structuredClone(row.steps[0].message) as Doc;
      const part = message.params.event.items[0].parts[0] as Doc;
      part.selection = 'body';
      part.body = { ref: 'uploaded-elsewhere' };
      delete part.text;
      withRawMessage(row, message);
      return '.steps[0].message.params.event.items[0].parts[0].body.ref';
    },
    says: /^expected inline or metadata-only content, got a body reference/,
  },
];

describe('lifecycle runnability rules: a row that breaks each one', () => runCases('lifecycle', LIFECYCLE_CASES));
describe('catalogue runnability rules: a row that breaks each one', () => runCases('catalogue', CATALOGUE_CASES));

test('every rule of both tables has a case above', () => {
  const tested = new Set([...LIFECYCLE_CASES, ...CATALOGUE_CASES].map((c) => c.rule));
  for (const rule of [...Object.values(LIFECYCLE_RUNNABILITY_RULES), ...Object.values(CATALOGUE_RUNNABILITY_RULES)]) expect(tested.has(rule), rule.section).toBe(true);
});

test('each rule is named after a section of LIFECYCLE-RULES or CATALOGUE-RULES', () => {
  for (const rule of Object.values(LIFECYCLE_RUNNABILITY_RULES)) expect(rule.section).toMatch(/^LIFECYCLE-RULES §\d+ /);
  for (const rule of Object.values(CATALOGUE_RUNNABILITY_RULES)) expect(rule.section).toMatch(/^CATALOGUE-RULES §\d+ /);
});

describe('files', () => {
  test('our generated fixtures have no unrunnable row', () => {
    expect(lifecycleRunnabilityProblems(LIFECYCLE as LifecycleScenarioFile)).toEqual([]);
    expect(catalogueRunnabilityProblems(CATALOGUE as CatalogueScenarioFile)).toEqual([]);
  });

  const canonical = ['lifecycle-scenarios.json', 'observation-chain-scenarios.json', 'catalogue-scenarios.json'].map((name) => ({ name, file: canonicalInteropFile(name) }));
  test.for(canonical)(`the protocol's canonical $name has no unrunnable row (${canonicalInteropCandidate()}; skipped when absent)`, ({ name, file }, context) => {
    if (file === undefined) return context.skip(`no ${path.join(canonicalInteropCandidate(), name)}; set AHP_CANONICAL_INTEROP`);
    const text = readFileSync(file, 'utf8');
    const unrunnable = name.startsWith('catalogue') ? unrunnableCatalogueRows(parseCatalogueScenarioFile(text, file), file) : unrunnableLifecycleRows(parseLifecycleScenarioFile(text, file), file);
    expect([...unrunnable]).toEqual([]);
  });

  test('a file with an unrunnable row still loads; the loader names the file, the row, the JSON path and the rule', () => {
    const doc = structuredClone(CATALOGUE);
    const i = indexOf(doc, 'execution:model-error-without-error');
    withRawMessage(doc.scenarios[i], { jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft' } });
    const file = parseCatalogueScenarioFile(JSON.stringify(doc), '/configured/catalogue.json');
    const reasons = unrunnableCatalogueRows(file, '/configured/catalogue.json');
    expect([...reasons.keys()]).toEqual(['execution:model-error-without-error']);
    const reason = reasons.get('execution:model-error-without-error')!;
    expect(reason).toContain(`/configured/catalogue.json: scenarios[${i}].steps[0].message.params.event: expected an event object with an id`);
    expect(reason).toContain(`[rule: ${CATALOGUE_RUNNABILITY_RULES.waitObservedEventId.section} (a runnable row ${CATALOGUE_RUNNABILITY_RULES.waitObservedEventId.demand})]`);
    expect(reason).toMatch(/^unrunnable fixture row \(no client following the rules can run it, so it is not run\): /);

    const lifecycle = structuredClone(LIFECYCLE);
    const k = indexOf(lifecycle, 'cancel.held-before-reply');
    lifecycle.scenarios[k].steps[1].count = 3;
    const loaded = parseLifecycleScenarioFile(JSON.stringify(lifecycle), '/configured/lifecycle.json');
    expect(unrunnableLifecycleRows(loaded, '/configured/lifecycle.json').get('cancel.held-before-reply')).toContain(
      `/configured/lifecycle.json: scenarios[${k}].steps[1].count: expected at most the 1 attempt(s) of "a" sent so far, got 3 [rule: LIFECYCLE-RULES §4 wait`,
    );
  });
});
