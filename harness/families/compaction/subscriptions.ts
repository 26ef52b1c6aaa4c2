// What the harness hands the two sides of a pair (COMPACTION-RULES §4): the receivers' subscription
// config (scope → action; no expectation ever reaches a receiver) and the host's case rows, which
// name each hook's scope and policy only.

import { BOUNDARIES, scopeOf, type CompactionCase, type FailurePolicy, type ReceiverAction } from './case-types.ts';

export interface HostCaseRow {
  name: string;
  before: Array<{ supplier: string; failurePolicy: FailurePolicy }>;
  after: Array<{ supplier: string; failurePolicy: FailurePolicy }>;
}

/** Every hook's scope → its receiver action, for `cases` (every hook, reached or not). */
export function subscriptionConfig(cases: readonly CompactionCase[]): Record<string, ReceiverAction> {
  const config: Record<string, ReceiverAction> = {};
  for (const c of cases) for (const boundary of BOUNDARIES) c[boundary].forEach((hook, i) => (config[scopeOf(c.id, boundary, i)] = hook.action));
  return config;
}

export function hostCaseRows(cases: readonly CompactionCase[]): HostCaseRow[] {
  return cases.map((c) => ({
    name: c.id,
    before: c.before.map((hook, i) => ({ supplier: scopeOf(c.id, 'before', i), failurePolicy: hook.failurePolicy })),
    after: c.after.map((hook, i) => ({ supplier: scopeOf(c.id, 'after', i), failurePolicy: hook.failurePolicy })),
  }));
}
