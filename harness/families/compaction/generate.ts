// Builds our compaction case file (fixtures/compaction.json): the protocol's 8 cases
// (COMPACTION-RULES §4), rows of our own for what the rules state but those 8 leave thin, and the
// rejection probe's four requests (§9). Every expectation comes from the simulator (simulate.ts);
// the cases' figures the rules print are checked against it, so a simulator that drifts from the
// rules fails `npm run fixtures` instead of passing a lying host.

import { jsonEqual, type JsonObject } from '../../protocol/json.ts';
import { lintCompactionCaseFile } from './load-compaction-cases.ts';
import type { ProtocolValidators } from '../../protocol/validator-types.ts';
import { canonicalRequest } from './canonical-request.ts';
import { scopeOf, type CompactionCase, type CompactionCaseFile, type CompactionHook, type FailurePolicy, type ProbeRequest, type ReceiverAction } from './case-types.ts';
import { simulateCompaction } from './simulate.ts';
import { modifyEffect, textParts } from './text-parts.ts';

const closed = (action: ReceiverAction): CompactionHook => ({ action, failurePolicy: 'fail-closed' });
const open = (action: ReceiverAction): CompactionHook => ({ action, failurePolicy: 'fail-open' });
const hook = (action: ReceiverAction, failurePolicy: FailurePolicy): CompactionHook => ({ action, failurePolicy });
const appendInstructions = (suffix: string): ReceiverAction => ({ kind: 'append', target: 'instructions', suffix });
const appendSummary = (suffix: string): ReceiverAction => ({ kind: 'append', target: 'summary', suffix });
const effects = (...list: JsonObject[]): ReceiverAction => ({ kind: 'effects', effects: list });
const watch = effects();
const returnCached: JsonObject = { type: 'return', value: textParts('cached') as unknown as JsonObject[] };
const leakedMessage: JsonObject = { type: 'message', text: 'leaked' };
const mi = (text: string) => modifyEffect('instructions', text);
const ms = (text: string) => modifyEffect('summary', text);

type CaseInput = Omit<CompactionCase, 'expected'>;

/** The protocol's 8 cases, in its order, with the figures its table prints (checked against the simulator). */
const RULES_CASES: Array<CaseInput & { printed: { instructions: string; generated: boolean; applied: boolean; failures: number; summary: string | null; seen: string[] } }> = [
  {
    id: 'chain',
    description: 'accepted edits run serially: each hook sees the instructions the earlier ones left, the generator sees them all, the after hooks see the generated summary',
    origin: 'rules',
    proves: ['serial hooks', 'accepted instructions visible later', 'generator reads the accepted instructions'],
    before: [closed(appendInstructions(':one')), closed(appendInstructions(':two')), closed(watch)],
    after: [closed(appendSummary(':safe')), closed(watch)],
    printed: { instructions: 'base:one:two', generated: true, applied: true, failures: 0, summary: 'summary:base:one:two:safe', seen: ['base', 'base:one', 'base:one:two', 'summary:base:one:two', 'summary:base:one:two:safe'] },
  },
  {
    id: 'supplied',
    description: 'a returned summary skips generation, and the after hooks still run on it',
    origin: 'rules',
    proves: ['return skips generation', 'after hooks run on a supplied summary'],
    before: [closed(effects(returnCached)), closed(watch)],
    after: [closed(appendSummary(':safe')), closed(watch)],
    printed: { instructions: 'base', generated: false, applied: true, failures: 0, summary: 'cached:safe', seen: ['base', 'base', 'cached', 'cached:safe'] },
  },
  {
    id: 'before-atomic',
    description: 'a before-boundary compound with one effect invalid there is rejected whole (fail-open): its valid instruction edit and message are not committed',
    origin: 'rules',
    proves: ['atomic rejection at the before boundary', 'fail-open continues'],
    before: [closed(effects(returnCached)), open(effects(mi('leaked'), leakedMessage, ms('wrong'))), closed(watch)],
    after: [closed(appendSummary(':safe')), closed(watch)],
    printed: { instructions: 'base', generated: false, applied: true, failures: 1, summary: 'cached:safe', seen: ['base', 'base', 'base', 'cached', 'cached:safe'] },
  },
  {
    id: 'after-atomic',
    description: 'an after-boundary compound with one effect invalid there is rejected whole (fail-open): the earlier accepted summary is kept',
    origin: 'rules',
    proves: ['atomic rejection at the after boundary', 'fail-open keeps the earlier candidate'],
    before: [closed(watch)],
    after: [closed(appendSummary(':prefix')), open(effects(ms('leaked'), leakedMessage, mi('wrong'))), closed(watch)],
    printed: { instructions: 'base', generated: true, applied: true, failures: 1, summary: 'summary:base:prefix', seen: ['base', 'summary:base', 'summary:base:prefix', 'summary:base:prefix'] },
  },
  {
    id: 'after-closed',
    description: 'a fail-closed after-boundary rejection stops the remaining after hooks and the application, and never undoes the generation',
    origin: 'rules',
    proves: ['after fail-closed stops the after hooks', 'after fail-closed keeps the generation'],
    before: [closed(watch)],
    after: [closed(effects(ms('leaked'), mi('wrong'))), closed(watch)],
    printed: { instructions: 'base', generated: true, applied: false, failures: 1, summary: 'summary:base', seen: ['base', 'summary:base'] },
  },
  {
    id: 'before-closed',
    description: 'a fail-closed before-boundary rejection means no generation, no after boundary, no summary and no application',
    origin: 'rules',
    proves: ['before fail-closed stops the compaction'],
    before: [closed(effects(ms('wrong'))), closed(watch)],
    after: [closed(watch)],
    printed: { instructions: 'base', generated: false, applied: false, failures: 1, summary: null, seen: ['base'] },
  },
  {
    id: 'before-open',
    description: 'a fail-open before-boundary rejection keeps the instructions and the compaction goes on',
    origin: 'rules',
    proves: ['before fail-open continues'],
    before: [open(effects(ms('wrong'))), closed(watch)],
    after: [closed(watch)],
    printed: { instructions: 'base', generated: true, applied: true, failures: 1, summary: 'summary:base', seen: ['base', 'base', 'summary:base'] },
  },
  {
    id: 'after-open',
    description: 'a fail-open after-boundary rejection keeps the generated summary and the compaction is applied',
    origin: 'rules',
    proves: ['after fail-open continues'],
    before: [closed(watch)],
    after: [open(effects(mi('wrong'))), closed(watch)],
    printed: { instructions: 'base', generated: true, applied: true, failures: 1, summary: 'summary:base', seen: ['base', 'summary:base', 'summary:base'] },
  },
];

/** What the rules state that the 8 cases exercise only thinly. */
const OUR_CASES: CaseInput[] = [
  {
    id: 'open-then-edit',
    description: 'after a fail-open before-boundary rejection, a later hook still edits the instructions and the generator sees that edit; after a fail-open after-boundary rejection, a later hook still edits the summary',
    origin: 'ours',
    proves: ['fail-open continues with the next hook at both boundaries', 'a rejection commits nothing a later hook could see'],
    before: [open(effects(ms('wrong'))), closed(appendInstructions(':after'))],
    after: [open(effects(mi('wrong'))), closed(appendSummary(':kept'))],
  },
  {
    id: 'closed-keeps-summary',
    description: 'a fail-closed after-boundary rejection keeps the summary an earlier after hook accepted, and no later hook runs',
    origin: 'ours',
    proves: ['after fail-closed keeps the last accepted summary', 'after fail-closed stops the after hooks'],
    before: [closed(appendInstructions(':one'))],
    after: [closed(appendSummary(':kept')), closed(effects(mi('wrong'))), closed(watch)],
  },
  {
    id: 'fixed-edits',
    description: 'fixed modify effects (not derived from the received text) are applied at both boundaries, and the receiver sends them verbatim',
    origin: 'ours',
    proves: ['configured effects are sent verbatim and applied', 'the generator reads replaced instructions'],
    before: [closed(effects(mi('rewritten'))), closed(watch)],
    after: [closed(effects(ms('final'))), hook(appendSummary(':tail'), 'fail-open')],
  },
];

/** The rejection probe's four variants of the base request (§9), each invalid by the schema. */
function probeRequests(base: JsonObject, subscription: string): ProbeRequest[] {
  const variant = (id: string, description: string, proves: string, change: (event: JsonObject, params: JsonObject) => void): ProbeRequest => {
    const request = structuredClone(base);
    const params = request.params as JsonObject;
    change(params.event as JsonObject, params);
    return { id: `probe:${id}`, description, proves: [proves], subscription, request, expected: { errorCode: -32602, receipt: false } };
  };
  return [
    variant('missing-trigger', 'the before event lacks its required trigger', 'receivers validate the event canonically', (event) => {
      delete event.trigger;
    }),
    variant('before-summary-capability', 'the before boundary advertises a summary edit, which only the after boundary allows', 'receivers validate capabilities against the boundary', (_event, params) => {
      (params.capabilities as JsonObject).modify = { summary: { replace: true, merge: false } };
    }),
    variant('scalar-instructions', 'the instructions are a plain string instead of text parts', 'receivers refuse non-canonical text', (event) => {
      event.instructions = 'legacy scalar';
    }),
    variant('legacy-body', 'the instructions part carries a legacy upload reference', 'receivers refuse legacy body references', (event) => {
      ((event.instructions as JsonObject[])[0] as JsonObject).body = { ref: 'urn:legacy-text' };
    }),
  ];
}

export function buildCompactionCases(): CompactionCaseFile {
  const cases: CompactionCase[] = [...RULES_CASES.map(({ printed: _printed, ...row }) => row), ...OUR_CASES].map((row) => ({ ...structuredClone(row), expected: simulateCompaction(row) }));
  const first = cases[0]!;
  const base = canonicalRequest({ caseId: first.id, boundary: 'before', text: first.expected.exchanges[0]!.text });
  return { version: 1, family: 'compaction', cases, probes: probeRequests(base, scopeOf(first.id, 'before', 0)) };
}

/** The generator's own checks: the simulator against the rules' printed figures, the probe requests against the schemas. */
export function checkCompactionCaseBuild(file: CompactionCaseFile, validators: Pick<ProtocolValidators, 'interceptRequest'>): string[] {
  const problems: string[] = lintCompactionCaseFile(JSON.parse(serializeCompactionCaseFile(file))).map((p) => `format: ${p.path || '(file)'}: ${p.problem}`);
  for (const row of RULES_CASES) {
    const built = file.cases.find((c) => c.id === row.id);
    const simulated = built?.expected;
    if (!simulated) {
      problems.push(`case ${row.id}: missing`);
      continue;
    }
    const got = { instructions: simulated.instructions, generated: simulated.generated, applied: simulated.applied, failures: simulated.failures, summary: simulated.summary, seen: simulated.seen };
    if (!jsonEqual(got, row.printed)) problems.push(`case ${row.id}: the simulator gives ${JSON.stringify(got)}, the rules print ${JSON.stringify(row.printed)}`);
  }
  const rulesCases = file.cases.filter((c) => c.origin === 'rules');
  const exchanges = rulesCases.reduce((n, c) => n + c.expected.exchanges.length, 0);
  const scopes = rulesCases.reduce((n, c) => n + c.before.length + c.after.length, 0);
  if (exchanges !== 27 || scopes !== 30) problems.push(`the rules' 8 cases make ${exchanges} exchanges over ${scopes} scopes; the rules count 27 over 30`);
  const first = file.cases[0]!;
  const base = canonicalRequest({ caseId: first.id, boundary: 'before', text: first.expected.exchanges[0]!.text });
  const baseCheck = validators.interceptRequest(base);
  if (!baseCheck.valid) problems.push(`the probe's base request (${first.id}:before) fails the intercept-request schema: ${baseCheck.errors.slice(0, 3).join('; ')}`);
  for (const probe of file.probes) {
    if (validators.interceptRequest(probe.request).valid) problems.push(`${probe.id}: the request passes the intercept-request schema, but a receiver must reject it`);
  }
  return problems;
}

export function serializeCompactionCaseFile(file: CompactionCaseFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** `11 cases (8 of the rules, 3 ours): 38 exchanges over 42 scopes; 4 probe requests`. */
export function summarizeCompactionCases(file: CompactionCaseFile): string {
  const rules = file.cases.filter((c) => c.origin === 'rules').length;
  const exchanges = file.cases.reduce((n, c) => n + c.expected.exchanges.length, 0);
  const scopes = file.cases.reduce((n, c) => n + c.before.length + c.after.length, 0);
  return `${file.cases.length} cases (${rules} of the rules, ${file.cases.length - rules} ours): ${exchanges} exchanges over ${scopes} scopes; ${file.probes.length} probe requests`;
}
