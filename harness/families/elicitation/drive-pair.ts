// The order of one pair's work (rules §8), with the processes left to the caller: the atomic helper
// once, the unauthenticated probe, each wire step planned from what the pair confirmed so far and
// recorded before the next (a failed entry sends no further steps), then the receipts. The run
// supplies how a plan becomes a process outcome; the self-tests supply a simulated pair. Either way
// the evidence that comes out is what verifyElicitationPair judges.

import type { AtomicInput, ElicitationCaseFile, PairEvidence, PairSecrets, ProcessOutcome, SenderPlan, StepEvidence, StepOrigin } from './case-types.ts';
import { PairLedger } from './pair-ledger.ts';
import { atomicHelperInput, needsReceipts, pairNeeds, receiptsPlan, unauthenticatedProbePlan, wireSchedule } from './plan-steps.ts';
import { checkAtomicOutcome } from './verify/atomic-checks.ts';

export interface PairProcesses {
  /** Runs `<sender cmd> check …` with `rows` on stdin. */
  runAtomicHelper(rows: AtomicInput[]): Promise<ProcessOutcome>;
  /** Runs `<sender cmd> client` with `plan` on stdin; `origin` is null for the probe and the receipts read. */
  runClient(plan: SenderPlan, origin: StepOrigin | null): Promise<ProcessOutcome>;
}

export interface DrivePairInput {
  file: ElicitationCaseFile;
  selected: ReadonlySet<string>;
  sender: string;
  receiver: string;
  principal: string;
  secrets: PairSecrets;
}

/** Runs everything the selection needs after the receiver printed its endpoint. */
export async function drivePair(input: DrivePairInput, processes: PairProcesses): Promise<PairEvidence> {
  const { file, selected, secrets } = input;
  const evidence: PairEvidence = { sender: input.sender, receiver: input.receiver, principal: input.principal, startup: { ok: true }, steps: [] };
  const needs = pairNeeds(file, selected);
  let published: ReturnType<typeof checkAtomicOutcome>['published'] = [];
  if (needs.atomicHelper) {
    evidence.atomic = await processes.runAtomicHelper(atomicHelperInput(file));
    published = checkAtomicOutcome(file.atomic, evidence.atomic, input.principal, file.binding).published;
  }
  if (needs.unauthenticatedProbe) evidence.unauthenticatedProbe = await processes.runClient(unauthenticatedProbePlan(secrets.endpoint), null);
  const schedule = wireSchedule(file, selected, published);
  const ledger = new PairLedger(`${input.sender} client`);
  for (const { origin, step } of schedule) {
    if (ledger.hasFailed(origin.caseId)) continue;
    const outcome = await processes.runClient(ledger.plan(origin, step, secrets), origin);
    ledger.record(origin, step, outcome);
    const recorded: StepEvidence = { ...origin, outcome };
    evidence.steps.push(recorded);
  }
  if (needsReceipts(schedule)) evidence.receipts = await processes.runClient(receiptsPlan(secrets), null);
  return evidence;
}
