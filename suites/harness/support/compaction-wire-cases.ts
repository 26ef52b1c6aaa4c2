// The compaction wire matrix's eight cases (COMPACTION-RULES.md §4) as test data for the reference
// adapter's self-tests: the rows a host is given, the receiver's subscription config, and what the
// rules say each case must settle to. The reference adapter never sees the `outcome` half.

import type { JsonValue } from '../../../harness/protocol/json.ts';

type Policy = 'fail-open' | 'fail-closed';
type Action = { kind: 'append'; target: 'instructions' | 'summary'; suffix: string } | { kind: 'effects'; effects: JsonValue[] };
interface Hook {
  action: Action;
  policy?: Policy;
}

const parts = (text: string): JsonValue => [{ id: 'text', kind: 'text', mediaType: 'text/plain', selection: 'body', text }];
const modify = (target: string, text: string): JsonValue => ({ type: 'modify', target, operation: 'replace', value: parts(text) });
const addI = (suffix: string): Hook => ({ action: { kind: 'append', target: 'instructions', suffix } });
const addS = (suffix: string): Hook => ({ action: { kind: 'append', target: 'summary', suffix } });
const watch: Hook = { action: { kind: 'effects', effects: [] } };
const supply: Hook = { action: { kind: 'effects', effects: [{ type: 'return', value: parts('cached') }] } };
const compound = (effects: JsonValue[], policy: Policy = 'fail-closed'): Hook => ({ action: { kind: 'effects', effects }, policy });
const leakMessage: JsonValue = { type: 'message', text: 'leaked' };
const open: Policy = 'fail-open';

export interface CaseOutcome {
  instructions: string;
  generated: boolean;
  applied: boolean;
  failures: number;
  summary: string | null;
  seen: string[];
}

interface CaseDefinition {
  name: string;
  before: Hook[];
  after: Hook[];
  outcome: CaseOutcome;
}

export const COMPACTION_CASES: readonly CaseDefinition[] = [
  {
    name: 'chain',
    before: [addI(':one'), addI(':two'), watch],
    after: [addS(':safe'), watch],
    outcome: { instructions: 'base:one:two', generated: true, applied: true, failures: 0, summary: 'summary:base:one:two:safe', seen: ['base', 'base:one', 'base:one:two', 'summary:base:one:two', 'summary:base:one:two:safe'] },
  },
  {
    name: 'supplied',
    before: [supply, watch],
    after: [addS(':safe'), watch],
    outcome: { instructions: 'base', generated: false, applied: true, failures: 0, summary: 'cached:safe', seen: ['base', 'base', 'cached', 'cached:safe'] },
  },
  {
    name: 'before-atomic',
    before: [supply, compound([modify('instructions', 'leaked'), leakMessage, modify('summary', 'wrong')], open), watch],
    after: [addS(':safe'), watch],
    outcome: { instructions: 'base', generated: false, applied: true, failures: 1, summary: 'cached:safe', seen: ['base', 'base', 'base', 'cached', 'cached:safe'] },
  },
  {
    name: 'after-atomic',
    before: [watch],
    after: [addS(':prefix'), compound([modify('summary', 'leaked'), leakMessage, modify('instructions', 'wrong')], open), watch],
    outcome: { instructions: 'base', generated: true, applied: true, failures: 1, summary: 'summary:base:prefix', seen: ['base', 'summary:base', 'summary:base:prefix', 'summary:base:prefix'] },
  },
  {
    name: 'after-closed',
    before: [watch],
    after: [compound([modify('summary', 'leaked'), modify('instructions', 'wrong')]), watch],
    outcome: { instructions: 'base', generated: true, applied: false, failures: 1, summary: 'summary:base', seen: ['base', 'summary:base'] },
  },
  {
    name: 'before-closed',
    before: [compound([modify('summary', 'wrong')]), watch],
    after: [watch],
    outcome: { instructions: 'base', generated: false, applied: false, failures: 1, summary: null, seen: ['base'] },
  },
  {
    name: 'before-open',
    before: [compound([modify('summary', 'wrong')], open), watch],
    after: [watch],
    outcome: { instructions: 'base', generated: true, applied: true, failures: 1, summary: 'summary:base', seen: ['base', 'base', 'summary:base'] },
  },
  {
    name: 'after-open',
    before: [watch],
    after: [compound([modify('instructions', 'wrong')], open), watch],
    outcome: { instructions: 'base', generated: true, applied: true, failures: 1, summary: 'summary:base', seen: ['base', 'summary:base', 'summary:base'] },
  },
];

const scope = (name: string, boundary: 'before' | 'after', index: number): string => `${name}-${boundary}-${index}`;

/** A case row as the host gets it: `{name, before:[{supplier, failurePolicy}], after:[…]}`. */
export function hostRows(cases: readonly CaseDefinition[] = COMPACTION_CASES): JsonValue[] {
  return cases.map((row) => ({
    name: row.name,
    before: row.before.map((hook, index) => ({ supplier: scope(row.name, 'before', index), failurePolicy: hook.policy ?? 'fail-closed' })),
    after: row.after.map((hook, index) => ({ supplier: scope(row.name, 'after', index), failurePolicy: hook.policy ?? 'fail-closed' })),
  }));
}

/** The receiver's `subscriptions.json`: one action per hook of every case (30). */
export function subscriptionConfig(cases: readonly CaseDefinition[] = COMPACTION_CASES): Record<string, JsonValue> {
  const config: Record<string, JsonValue> = {};
  for (const row of cases) {
    row.before.forEach((hook, index) => (config[scope(row.name, 'before', index)] = hook.action as JsonValue));
    row.after.forEach((hook, index) => (config[scope(row.name, 'after', index)] = hook.action as JsonValue));
  }
  return config;
}

export function caseNamed(name: string): CaseDefinition {
  const found = COMPACTION_CASES.find((row) => row.name === name);
  if (!found) throw new Error(`no compaction case ${name}`);
  return found;
}
