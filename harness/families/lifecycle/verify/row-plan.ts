// What a step script obliges an honest client and receiver to record, read from the fixture alone
// (LIFECYCLE-RULES §4, §7.2 (12)): the attempts its sends make, and the control proofs — `acquired`,
// `emitted`, `discarded` — in the order the steps produce them.

import type { JsonObject } from '../../../protocol/json.ts';
import type { RequestId, StepScenario } from '../../../lifecycle-adapters/scenario-types.ts';
import { idKey } from '../../../lifecycle-adapters/receipt-log.ts';

export interface SendPlan {
  stepIndex: number;
  key: string;
  slot: string;
  id: RequestId;
}

export interface RowPlan {
  row: StepScenario;
  /** Request key → JSON-RPC id. */
  requestIds: Map<string, RequestId>;
  /** Every send step, in step order (one receiver attempt each). */
  sends: SendPlan[];
  /** The exact control proof entries the steps oblige, in order. */
  acquired: JsonObject[];
  emitted: JsonObject[];
  discarded: JsonObject[];
}

/**
 * Walks the steps as §7.2 (12) does: the first `receive` of an id that is not cancelled, staged or
 * settled is acquired; every `emit` is emitted by the receiver and then discarded by the client.
 *
 * An id is settled by an `accept` of its staged response, or by a `failOpen` that is not preceded by
 * a cancel: §4 says failOpen "may create the pending state with no attempt" and "never publishes
 * after cancel", so after such a failOpen a reply can no longer be acquired. No canonical row has a
 * publishing failOpen (§13); this is our reading.
 */
export function planRow(row: StepScenario): RowPlan {
  const requestIds = new Map<string, RequestId>();
  for (const [key, request] of Object.entries(row.requests)) requestIds.set(key, request.id);
  const slotIds = new Map<string, RequestId>();
  const plan: RowPlan = { row, requestIds, sends: [], acquired: [], emitted: [], discarded: [] };
  const cancelled = new Set<string>();
  const staged = new Set<string>();
  const settled = new Set<string>();
  const keyOf = (key: string): { id: RequestId; k: string } | undefined => {
    const id = requestIds.get(key);
    return id === undefined ? undefined : { id, k: idKey(id) as string };
  };

  row.steps.forEach((step, stepIndex) => {
    switch (step.op) {
      case 'send': {
        const target = keyOf(step.key);
        if (target === undefined) return;
        plan.sends.push({ stepIndex, key: step.key, slot: step.slot, id: target.id });
        slotIds.set(step.slot, target.id);
        return;
      }
      case 'receive': {
        const id = slotIds.get(step.slot);
        if (id === undefined) return;
        const k = idKey(id) as string;
        if (!cancelled.has(k) && !staged.has(k) && !settled.has(k)) plan.acquired.push({ kind: 'acquired', id, scenario: row.id });
        staged.add(k);
        return;
      }
      case 'cancel': {
        const target = keyOf(step.key);
        if (target !== undefined) cancelled.add(target.k);
        return;
      }
      case 'accept': {
        const target = keyOf(step.key);
        if (target !== undefined && staged.has(target.k) && !cancelled.has(target.k)) settled.add(target.k);
        return;
      }
      case 'failOpen': {
        const target = keyOf(step.key);
        if (target !== undefined && !cancelled.has(target.k)) settled.add(target.k);
        return;
      }
      case 'emit': {
        const id = step.response.id;
        if (typeof id !== 'string' && typeof id !== 'number') return;
        plan.emitted.push({ kind: 'emitted', id });
        plan.discarded.push({ kind: 'discarded', id, scenario: row.id });
        return;
      }
      default:
        return;
    }
  });
  return plan;
}

