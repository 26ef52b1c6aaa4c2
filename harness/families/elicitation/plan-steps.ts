// What a pair runs, in the rules' order (§8): the atomic helper, the unauthenticated probe, then the
// wire steps — the wire cases, the published atomic rows, the upload probes, the concurrent scenario —
// and a final `/receipts`. A selection (`-t`, the IDE) runs only what its entries need: a case's own
// steps (its uploads, its request before its result), the helper only for atomic rows, the receipts
// only when an intercept ran. Each step's plan comes from PairLedger.plan, one step at a time.

import type { AtomicInput, ElicitationCaseFile, ExpectedReceipt, SenderPlan, StepOrigin, WireStep } from './case-types.ts';
import type { PublishedCase } from './published-case.ts';

export interface ScheduledStep {
  origin: StepOrigin;
  step: WireStep;
}

/** A schedulable entry's steps and receipts, by its id (published rows under their atomic row's id). */
export interface WireEntry {
  id: string;
  steps: WireStep[];
  receipts: ExpectedReceipt[];
}

export class UnknownElicitationIdError extends Error {
  override readonly name = 'UnknownElicitationIdError';
  constructor(readonly unknownIds: string[]) {
    super(`unknown elicitation case id${unknownIds.length === 1 ? '' : 's'}: ${unknownIds.map((id) => JSON.stringify(id)).join(', ')}`);
  }
}

/** Every id a verdict can be about: wire cases, the concurrent scenario, atomic rows, probes. */
export function elicitationEntryIds(file: ElicitationCaseFile): string[] {
  return [...file.cases.map((c) => c.id), ...file.atomic.map((row) => row.id), ...file.probes.map((probe) => probe.id), file.concurrent.id];
}

/** The selected ids (all when `selection` is undefined); unknown ids are an error naming them. */
export function selectedEntryIds(file: ElicitationCaseFile, selection: Iterable<string> | undefined): Set<string> {
  const all = elicitationEntryIds(file);
  if (selection === undefined) return new Set(all);
  const wanted = new Set(selection);
  const known = new Set(all);
  const unknown = [...wanted].filter((id) => !known.has(id));
  if (unknown.length > 0) throw new UnknownElicitationIdError(unknown);
  return new Set(all.filter((id) => wanted.has(id)));
}

export interface PairNeeds {
  atomicHelper: boolean;
  unauthenticatedProbe: boolean;
}

export function pairNeeds(file: ElicitationCaseFile, selected: ReadonlySet<string>): PairNeeds {
  return {
    atomicHelper: file.atomic.some((row) => selected.has(row.id)),
    unauthenticatedProbe: file.probes.some((probe) => probe.kind === 'unauthenticated-receipts' && selected.has(probe.id)),
  };
}

/** The helper's stdin: every row, always all of them, so the output count is the rules' 16. */
export function atomicHelperInput(file: ElicitationCaseFile): AtomicInput[] {
  return file.atomic.map((row) => row.input);
}

/** Every entry with wire steps, by id, in the pair's transmission order. */
export function wireEntries(file: ElicitationCaseFile, published: readonly PublishedCase[]): WireEntry[] {
  return [
    ...file.cases.map((c) => ({ id: c.id, steps: c.steps, receipts: c.receipts })),
    ...published.map((p) => ({ id: p.atomicId, steps: p.wire.steps, receipts: p.wire.receipts })),
    ...file.probes.flatMap((probe) => (probe.kind === 'upload' ? [{ id: probe.id, steps: probe.steps as WireStep[], receipts: [] }] : [])),
    { id: file.concurrent.id, steps: file.concurrent.steps, receipts: file.concurrent.receipts },
  ];
}

/** The selected entries' wire steps, in order; a run skips the rest of an entry once it failed. */
export function wireSchedule(file: ElicitationCaseFile, selected: ReadonlySet<string>, published: readonly PublishedCase[]): ScheduledStep[] {
  return wireEntries(file, published)
    .filter((entry) => selected.has(entry.id))
    .flatMap((entry) => entry.steps.map((step, i) => ({ origin: { caseId: entry.id, step: i }, step })));
}

/** Whether the schedule delivers any intercept, so the receipts must be read. */
export function needsReceipts(schedule: readonly ScheduledStep[]): boolean {
  return schedule.some((scheduled) => scheduled.step.kind === 'intercept');
}

/** The final `/receipts` read: authenticated, empty body. */
export function receiptsPlan(secrets: { endpoint: string; token: string; uploadToken: string }): SenderPlan {
  return { endpoint: secrets.endpoint, token: secrets.token, uploadToken: secrets.uploadToken, steps: [{ path: '/receipts', bytes: '' }], contentSources: [] };
}

/** The unauthenticated probe (rules §4): a wrong token, no upload token, no content sources. */
export function unauthenticatedProbePlan(endpoint: string): SenderPlan {
  return { endpoint, token: 'wrong', steps: [{ path: '/receipts', bytes: '' }] };
}
