// LIFECYCLE-RULES §7.7: the partial orders a receipt log must show. A client mark only proves a step
// when the receiver evidence it depends on came first: acquisition after a reply, acceptance after
// acquisition, observation after settlement (and after a planned cancel), bodies after their
// upload; cancels rendezvous with the held attempt; stray frames are handled while a live request is
// pending; and the old reply of `late-old-while-next-pending` races the next pending request.

import type { EntryOwners } from './entry-owners.ts';
import type { Findings } from '../../../lifecycle-adapters/findings.ts';
import { LABEL } from '../../../lifecycle-adapters/labels.ts';
import { anyBefore, describeEntries, describeEntry, entriesOf, idKey, refsWithoutPriorUpload, type LogEntry } from '../../../lifecycle-adapters/receipt-log.ts';
import type { RowPlan } from './row-plan.ts';

/** The row whose old reply must race its next pending request (§7.7 (31)). */
const LATE_OLD_ROW = 'late-old-while-next-pending';

export function checkOrder(plans: readonly RowPlan[], entries: readonly LogEntry[], owners: EntryOwners, findings: Findings): void {
  checkMarkPrerequisites(entries, owners, findings);
  checkObservationOrder(plans, entries, owners, findings);
  for (const plan of plans) {
    checkCancelRendezvous(plan, entries, findings);
    checkStrayWhileLive(plan, entries, findings);
    if (plan.row.id === LATE_OLD_ROW) checkOldReplyRace(plan, entries, findings);
  }
}

/**
 * (26) every `acquired` follows a `replied` of its id; (27) every `accepted` follows an `acquired` of
 * its id. A publishing failOpen would need an acquisition too (§13: no row exercises it; we follow
 * the runner, which does not tell the two apart).
 */
function checkMarkPrerequisites(entries: readonly LogEntry[], owners: EntryOwners, findings: Findings): void {
  for (const [kind, needs, label] of [
    ['acquired', 'replied', LABEL.acquisitionBeforeResponse],
    ['accepted', 'acquired', LABEL.acceptanceBeforeAcquired],
  ] as const) {
    for (const e of entries) {
      if (e.kind !== kind) continue;
      const earlier = entriesOf(entries, needs, e.entry.id);
      if (!anyBefore(earlier, e.index)) {
        findings.rowOrRun(owners.ownerOf(e), label, 'client', `${describeEntry(e)} has no earlier ${needs} entry for its id (${needs}: ${describeEntries(earlier)})`);
      }
    }
  }
}

interface ObservedRequest {
  plan: RowPlan;
  key: string;
  id: unknown;
}

/**
 * (28) an observation's request is found by the event's source and id. It needs an earlier
 * `accepted` or `cancelled` of that request; when the row cancels the request before this observe
 * step, an earlier `cancelled`; and every body ref an earlier 201 upload.
 */
function checkObservationOrder(plans: readonly RowPlan[], entries: readonly LogEntry[], owners: EntryOwners, findings: Findings): void {
  const requests = new Map<string, ObservedRequest>();
  for (const plan of plans) {
    for (const [key, request] of Object.entries(plan.row.requests)) {
      requests.set(JSON.stringify([request.params.event.source ?? null, request.params.event.id]), { plan, key, id: request.id });
    }
  }
  const seen = new Map<ObservedRequest, number>();
  for (const e of entries) {
    if (e.kind !== 'observed') continue;
    const owner = owners.ownerOf(e);
    const early = refsWithoutPriorUpload(entries, e);
    if (early.length > 0) {
      findings.rowOrRun(owner, LABEL.bodyBeforeUpload, 'client', `${describeEntry(e)} carries body ref(s) ${early.map((r) => JSON.stringify(r)).join(', ')} with no earlier 201 upload receipt assigning them`);
    }
    const event = (typeof e.entry.event === 'object' && e.entry.event !== null && !Array.isArray(e.entry.event) ? e.entry.event : {}) as Record<string, unknown>;
    const source = event.source ?? null;
    const target = requests.get(JSON.stringify([source, e.entry.eventId ?? null]));
    if (target === undefined) {
      findings.rowOrRun(owner, LABEL.observationBeforeSettlement, 'client or server', `${describeEntry(e)} names no selected request by event source ${JSON.stringify(source)} and eventId ${JSON.stringify(e.entry.eventId ?? null)}, so nothing settled it`);
      continue;
    }
    const rowId = target.plan.row.id;
    const settled = [...entriesOf(entries, 'accepted', target.id), ...entriesOf(entries, 'cancelled', target.id)];
    if (!anyBefore(settled, e.index)) {
      findings.row(rowId, LABEL.observationBeforeSettlement, 'client', `${describeEntry(e)} precedes every accepted/cancelled mark of ${JSON.stringify(target.id)} (${describeEntries(settled)})`);
    }
    // The k-th observation of a request answers its k-th observe step.
    const k = seen.get(target) ?? 0;
    seen.set(target, k + 1);
    const steps = target.plan.row.steps;
    const observeIndex = steps.map((s, i) => (s.op === 'observe' && s.key === target.key ? i : -1)).filter((i) => i >= 0)[k];
    if (observeIndex === undefined) continue;
    const cancelFirst = steps.slice(0, observeIndex).some((s) => s.op === 'cancel' && s.key === target.key);
    const cancelled = entriesOf(entries, 'cancelled', target.id);
    if (cancelFirst && !anyBefore(cancelled, e.index)) {
      findings.row(rowId, LABEL.observationBeforePlannedCancel, 'client', `steps[${observeIndex}] follows a cancel of ${JSON.stringify(target.id)}, but ${describeEntry(e)} precedes its cancelled mark (${describeEntries(cancelled)})`);
    }
  }
}

/**
 * (29) per cancel step whose id has exactly one `cancelled`, a receipt and a reply: the cancel
 * follows the first receipt; after a `receive` of the id's slot it follows an acquisition and the
 * first reply, otherwise it precedes the first reply.
 */
function checkCancelRendezvous(plan: RowPlan, entries: readonly LogEntry[], findings: Findings): void {
  const rowId = plan.row.id;
  plan.row.steps.forEach((step, stepIndex) => {
    if (step.op !== 'cancel') return;
    const id = plan.requestIds.get(step.key);
    if (id === undefined) return;
    const cancelled = entriesOf(entries, 'cancelled', id);
    const received = entriesOf(entries, 'received', id);
    const replied = entriesOf(entries, 'replied', id);
    const mark = cancelled[0];
    const firstReceipt = received[0];
    const firstReply = replied[0];
    if (cancelled.length !== 1 || mark === undefined || firstReceipt === undefined || firstReply === undefined) return;
    const at = `steps[${stepIndex}] cancel of ${JSON.stringify(id)} (${describeEntry(mark)})`;
    if (firstReceipt.index > mark.index) findings.row(rowId, LABEL.cancelNotRendezvoused, 'client', `${at} precedes the first receipt ${describeEntry(firstReceipt)}`);
    const slots = new Set(plan.sends.filter((s) => idKey(s.id) === idKey(id)).map((s) => s.slot));
    const afterReply = plan.row.steps.slice(0, stepIndex).some((s) => s.op === 'receive' && slots.has(s.slot));
    if (afterReply) {
      const acquired = entriesOf(entries, 'acquired', id);
      if (!anyBefore(acquired, mark.index)) findings.row(rowId, LABEL.cancelLacksAcquisition, 'client', `${at} follows a receive of the reply, but no acquired mark precedes it (acquired: ${describeEntries(acquired)})`);
      if (firstReply.index > mark.index) findings.row(rowId, LABEL.cancelBarrier, 'client or server', `${at} follows a receive of the reply, but precedes the first reply ${describeEntry(firstReply)}`);
    } else if (firstReply.index < mark.index) {
      findings.row(rowId, LABEL.cancelBarrier, 'client or server', `${at} must precede the first reply, but ${describeEntry(firstReply)} comes first`);
    }
  });
}

/**
 * (30) an emit followed by a release of live id L: the stray frame is emitted and discarded while L
 * is held — received(L) < emitted < discarded < replied(L).
 */
function checkStrayWhileLive(plan: RowPlan, entries: readonly LogEntry[], findings: Findings): void {
  const steps = plan.row.steps;
  steps.forEach((step, stepIndex) => {
    if (step.op !== 'emit') return;
    const release = steps.slice(stepIndex + 1).find((s) => s.op === 'release');
    if (release?.op !== 'release') return;
    const live = plan.requestIds.get(release.key);
    if (live === undefined) return;
    const emitted = entriesOf(entries, 'emitted', step.response.id)[0];
    const discarded = entriesOf(entries, 'discarded', step.response.id)[0];
    const received = entriesOf(entries, 'received', live).filter((e) => emitted === undefined || e.index < emitted.index).at(-1);
    const replied = received === undefined ? undefined : entriesOf(entries, 'replied', live).find((e) => e.index > received.index);
    const chain = [received, emitted, discarded, replied];
    const inOrder = chain.every((e, i) => e !== undefined && (i === 0 || (chain[i - 1] as LogEntry).index < e.index));
    if (!inOrder) {
      const names = ['received(live)', 'emitted', 'discarded', 'replied(live)'].map((n, i) => `${n} ${chain[i] === undefined ? 'missing' : describeEntry(chain[i] as LogEntry)}`);
      findings.row(plan.row.id, LABEL.strayNotLive, 'client or server', `steps[${stepIndex}] emit of ${JSON.stringify(step.response.id)} while ${JSON.stringify(live)} is live needs received < emitted < discarded < replied: ${names.join(', ')}`);
    }
  });
}

/** (31) received(b) < replied(a) < replied(b). */
function checkOldReplyRace(plan: RowPlan, entries: readonly LogEntry[], findings: Findings): void {
  const a = plan.requestIds.get('a');
  const b = plan.requestIds.get('b');
  if (a === undefined || b === undefined) return;
  const receivedB = entriesOf(entries, 'received', b)[0];
  const repliedA = entriesOf(entries, 'replied', a)[0];
  const repliedB = entriesOf(entries, 'replied', b)[0];
  if (receivedB === undefined || repliedA === undefined || repliedB === undefined) return; // (9) names what is missing
  if (receivedB.index < repliedA.index && repliedA.index < repliedB.index) return;
  findings.row(plan.row.id, LABEL.oldReplyRace, 'client or server', `needs received(b) < replied(a) < replied(b), got ${describeEntry(receivedB)}, ${describeEntry(repliedA)}, ${describeEntry(repliedB)}`);
}
