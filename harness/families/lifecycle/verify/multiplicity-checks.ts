// LIFECYCLE-RULES §7.2: every send step is exactly one receiver attempt and one reply, each reply
// after its receipt; the client's `accepted`/`cancelled` milestones are exactly the published and
// cancelled ids; the control proofs (`acquired`, `emitted`, `discarded`) are exactly what the steps
// oblige, in order; and a stray frame is discarded only after the receiver emitted it.

import { jsonEqual } from '../../../protocol/json.ts';
import { jsonDiff } from '../../../protocol/json-diff.ts';
import type { EntryOwners } from './entry-owners.ts';
import type { Findings, LifecycleParty } from '../../../lifecycle-adapters/findings.ts';
import { LABEL, controlProofLabel, replyBeforeReceiptLabel } from '../../../lifecycle-adapters/labels.ts';
import { describeEntries, describeEntry, entriesOf, idKey, type LogEntry } from '../../../lifecycle-adapters/receipt-log.ts';
import type { RowPlan } from './row-plan.ts';

export function checkMultiplicity(plans: readonly RowPlan[], entries: readonly LogEntry[], owners: EntryOwners, findings: Findings): void {
  const owned = groupByOwner(entries, owners);
  checkAttempts(plans, owned, findings);
  checkReplyOrder(plans, owned, findings);
  checkMilestones(plans, owned, findings);
  checkControlProofs(plans, owned, findings);
  checkStrayRendezvous(plans, owned, findings);
}

/** Entries by owning row (`''` for entries no selected row owns). */
type Owned = Map<string, LogEntry[]>;

function groupByOwner(entries: readonly LogEntry[], owners: EntryOwners): Owned {
  const owned: Owned = new Map();
  for (const e of entries) {
    const owner = owners.ownerOf(e) ?? '';
    const list = owned.get(owner) ?? [];
    list.push(e);
    owned.set(owner, list);
  }
  return owned;
}

function ownedOf(owned: Owned, rowId: string, kind: string): LogEntry[] {
  return (owned.get(rowId) ?? []).filter((e) => e.kind === kind);
}

/** Entries of `kind` no selected row owns are the run's fault. */
function reportUnowned(owned: Owned, kind: string, label: string, party: LifecycleParty, findings: Findings): void {
  const stray = ownedOf(owned, '', kind);
  if (stray.length > 0) findings.run(label, party, `${describeEntries(stray)} belong to no selected scenario`);
}

/** (9) the multiset of `received` ids, and of `replied` ids, equals the ids of the send steps. */
function checkAttempts(plans: readonly RowPlan[], owned: Owned, findings: Findings): void {
  for (const [kind, label] of [
    ['received', LABEL.receivedMultiplicity],
    ['replied', LABEL.repliedMultiplicity],
  ] as const) {
    reportUnowned(owned, kind, label, 'client or server', findings);
    for (const plan of plans) {
      const expected = countBy(plan.sends.map((s) => idKey(s.id) as string));
      const actual = ownedOf(owned, plan.row.id, kind);
      const got = countBy(actual.map((e) => idKey(e.entry.id) as string));
      const problems = [...new Set([...expected.keys(), ...got.keys()])]
        .filter((key) => (expected.get(key) ?? 0) !== (got.get(key) ?? 0))
        .map((key) => `id ${key}: ${expected.get(key) ?? 0} send step(s), ${got.get(key) ?? 0} ${kind} entr${got.get(key) === 1 ? 'y' : 'ies'}`);
      if (problems.length > 0) findings.row(plan.row.id, label, 'client or server', `${problems.join('; ')} (${kind}: ${describeEntries(actual)})`);
    }
  }
}

/** (10) where an id has as many replies as receipts, the k-th reply comes after the k-th receipt. */
function checkReplyOrder(plans: readonly RowPlan[], owned: Owned, findings: Findings): void {
  for (const plan of plans) {
    for (const id of new Set(plan.requestIds.values())) {
      const received = entriesOf(ownedOf(owned, plan.row.id, 'received'), 'received', id);
      const replied = entriesOf(ownedOf(owned, plan.row.id, 'replied'), 'replied', id);
      if (received.length !== replied.length) continue;
      received.forEach((r, k) => {
        const reply = replied[k] as LogEntry;
        if (reply.index < r.index) {
          findings.row(plan.row.id, replyBeforeReceiptLabel(String(id)), 'server', `reply ${k + 1} (${describeEntry(reply)}) comes before receipt ${k + 1} (${describeEntry(r)})`);
        }
      });
    }
  }
}

/** (11) the (scenario, id) multisets of `accepted` and `cancelled` marks equal `expected.published` / `expected.cancelled`. */
function checkMilestones(plans: readonly RowPlan[], owned: Owned, findings: Findings): void {
  for (const [kind, label] of [
    ['accepted', LABEL.acceptedMilestone],
    ['cancelled', LABEL.cancelledMilestone],
  ] as const) {
    reportUnowned(owned, kind, label, 'client', findings);
    for (const plan of plans) {
      const ids = kind === 'accepted' ? plan.row.expected.published : plan.row.expected.cancelled;
      const expected = countBy(ids.map((id) => pairKey(plan.row.id, id)));
      const actual = ownedOf(owned, plan.row.id, kind);
      const got = countBy(actual.map((e) => pairKey(e.entry.scenario, e.entry.id)));
      const missing = differenceOf(expected, got);
      const extra = differenceOf(got, expected);
      if (missing.length === 0 && extra.length === 0) continue;
      const parts = [
        ...(missing.length > 0 ? [`missing (scenario, id) ${missing.join(', ')}`] : []),
        ...(extra.length > 0 ? [`unexpected (scenario, id) ${extra.join(', ')}`] : []),
      ];
      findings.row(plan.row.id, label, 'client', `${parts.join('; ')} (${kind}: ${describeEntries(actual)})`);
    }
  }
}

/** (12) the `acquired`, `emitted` and `discarded` entries equal the lists the steps oblige, in order. */
function checkControlProofs(plans: readonly RowPlan[], owned: Owned, findings: Findings): void {
  for (const kind of ['acquired', 'emitted', 'discarded'] as const) {
    const label = controlProofLabel(kind);
    const party: LifecycleParty = kind === 'emitted' ? 'server' : 'client';
    reportUnowned(owned, kind, label, party, findings);
    for (const plan of plans) {
      const expected = plan[kind];
      const actual = ownedOf(owned, plan.row.id, kind);
      const values = actual.map((e) => e.entry);
      if (jsonEqual(values, expected)) continue;
      const detail = jsonDiff(expected, values).join('; ');
      findings.row(plan.row.id, label, party, `expected ${expected.length} ${kind} entr${expected.length === 1 ? 'y' : 'ies'} ${JSON.stringify(expected)}, got ${describeEntries(actual)}: ${detail}`);
    }
  }
}

/** (13) the first `discarded` of each stray frame follows an `emitted` of it. */
function checkStrayRendezvous(plans: readonly RowPlan[], owned: Owned, findings: Findings): void {
  for (const plan of plans) {
    for (const stray of plan.emitted) {
      const first = entriesOf(ownedOf(owned, plan.row.id, 'discarded'), 'discarded', stray.id)[0];
      if (first === undefined) continue; // (12) already names the missing discard
      const emitted = entriesOf(ownedOf(owned, plan.row.id, 'emitted'), 'emitted', stray.id);
      if (!emitted.some((e) => e.index < first.index)) {
        findings.row(plan.row.id, LABEL.strayRendezvous, 'client', `${describeEntry(first)} has no earlier emitted entry for ${JSON.stringify(stray.id)} (emitted: ${describeEntries(emitted)})`);
      }
    }
  }
}

function pairKey(scenario: unknown, id: unknown): string {
  return JSON.stringify([scenario ?? null, id ?? null]);
}

function countBy(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

/** The keys `a` has more often than `b`, repeated by the surplus. */
function differenceOf(a: Map<string, number>, b: Map<string, number>): string[] {
  const out: string[] = [];
  for (const [key, n] of a) for (let i = b.get(key) ?? 0; i < n; i++) out.push(key);
  return out;
}
