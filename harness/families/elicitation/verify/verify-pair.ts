// The verdict of one directed pair (rules §8-§9) from the evidence its run collected: per entry (wire
// case, atomic row, probe, the concurrent scenario) every failure, each with the rules' label, the
// party at fault and the evidence, plus the faults that belong to no entry. Unlike the upstream
// runner a pair does not stop at its first failure. The wire steps are replayed through the same
// PairLedger the run planned them with.

import type { CaseVerdict, CheckFailure, ElicitationCaseFile, PairEvidence, PairVerdict, ProcessOutcome } from '../case-types.ts';
import { PairLedger } from '../pair-ledger.ts';
import { pairNeeds, selectedEntryIds, wireEntries, wireSchedule, needsReceipts } from '../plan-steps.ts';
import type { PublishedCase } from '../published-case.ts';
import { checkAtomicOutcome } from './atomic-checks.ts';
import { LABELS, stderrTail } from './labels.ts';
import { checkReceipts } from './receipts-check.ts';
import { readSenderResult } from './sender-result.ts';

export interface VerifyOptions {
  /** The entry ids the run was asked for; all when undefined. */
  selection?: Iterable<string>;
}

function unauthenticatedProbeFailure(id: string, outcome: ProcessOutcome | undefined, command: string): CheckFailure | undefined {
  const fail = (party: CheckFailure['party'], evidence: string): CheckFailure => ({ caseId: id, label: LABELS.unauthenticatedAccessAccepted, party, evidence });
  if (outcome === undefined) return fail('either', 'the probe was never run');
  const read = readSenderResult(outcome, command);
  if (!read.ok) return fail(read.party, `${read.label}: ${read.evidence}`);
  if (read.status !== 401) return fail('receiver', `/receipts with a wrong token answered ${read.status}, expected 401`);
  return undefined;
}

export function verifyElicitationPair(evidence: PairEvidence, file: ElicitationCaseFile, options: VerifyOptions = {}): PairVerdict {
  const selected = selectedEntryIds(file, options.selection);
  const failures = new Map<string, CheckFailure[]>([...selected].map((id) => [id, []]));
  const add = (id: string, more: readonly CheckFailure[]) => {
    if (failures.has(id)) failures.get(id)?.push(...more);
  };
  const pairFaults: CheckFailure[] = [];
  const command = `${evidence.sender} client`;
  const finish = (notRun: boolean): PairVerdict => {
    const cases = new Map<string, CaseVerdict>();
    for (const [caseId, list] of failures) cases.set(caseId, { caseId, status: list.length > 0 ? 'failed' : notRun ? 'not-run' : 'passed', failures: list });
    return { cases, pairFaults };
  };

  if (!evidence.startup.ok) {
    const timedOut = evidence.startup.kind === 'timeout';
    pairFaults.push({
      caseId: null,
      label: timedOut ? LABELS.receiverStartupTimedOut : `${LABELS.receiverStartupFailed}: ${stderrTail(evidence.startup.stderrTail, 1500)}`,
      party: 'receiver',
      evidence: `${evidence.receiver} server printed no endpoint line${timedOut ? ' in time' : ''}`,
    });
    return finish(true);
  }

  const needs = pairNeeds(file, selected);
  let published: PublishedCase[] = [];
  if (needs.atomicHelper) {
    const atomic = checkAtomicOutcome(file.atomic, evidence.atomic, evidence.principal, file.binding);
    for (const [id, list] of atomic.rows) add(id, list);
    published = atomic.published;
  }
  for (const probe of file.probes) {
    if (probe.kind !== 'unauthenticated-receipts' || !selected.has(probe.id)) continue;
    const failure = unauthenticatedProbeFailure(probe.id, evidence.unauthenticatedProbe, command);
    if (failure !== undefined) add(probe.id, [failure]);
  }

  const entries = wireEntries(file, published).filter((entry) => selected.has(entry.id));
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const ledger = new PairLedger(command);
  const nextStep = new Map<string, number>();
  for (const step of evidence.steps) {
    const entry = byId.get(step.caseId);
    const expectedIndex = nextStep.get(step.caseId) ?? 0;
    const wire = entry?.steps[step.step];
    if (entry === undefined || wire === undefined || step.step !== expectedIndex || ledger.hasFailed(step.caseId)) {
      const why = entry === undefined ? 'no selected entry has this id' : ledger.hasFailed(step.caseId) ? 'the entry had already failed' : `expected its step ${expectedIndex} next`;
      pairFaults.push({ caseId: null, label: LABELS.stepStatusCount, party: 'either', evidence: `evidence for ${step.caseId} step ${step.step} does not fit the plan (${why})` });
      continue;
    }
    nextStep.set(step.caseId, expectedIndex + 1);
    ledger.record({ caseId: step.caseId, step: step.step }, wire, step.outcome);
  }
  for (const entry of entries) {
    const ran = nextStep.get(entry.id) ?? 0;
    if (!ledger.hasFailed(entry.id) && ran < entry.steps.length) {
      add(entry.id, [{ caseId: entry.id, label: LABELS.stepStatusCount, party: 'either', evidence: `${ran} of ${entry.steps.length} steps ran` }]);
    }
    add(entry.id, ledger.failuresOf(entry.id));
  }

  if (needsReceipts(wireSchedule(file, selected, published))) {
    const failedIds = new Set(entries.filter((entry) => ledger.hasFailed(entry.id)).map((entry) => entry.id));
    const receipts = checkReceipts(entries, ledger.records, failedIds, evidence.receipts, evidence.principal, command);
    for (const [id, list] of receipts.entries) add(id, list);
    pairFaults.push(...receipts.pairFaults);
  }
  return finish(false);
}
