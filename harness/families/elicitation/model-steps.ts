// Turns drafted steps into a case's expected wire: each step goes through the receiver model (with
// the ref rewriting a run applies), which gives its expected status and, for accepted intercepts, the
// receipt. A step that `requires` an event is dropped when that event was refused, as the runner only
// sends a result whose request is expected 200 (rules §6).

import type { JsonObject } from '../../protocol/json.ts';
import type { ExpectedReceipt, InterceptStep, UploadDescriptor, UploadStep, WireStep } from './case-types.ts';
import { rewriteAliases } from './ref-rewriting.ts';
import { fromBase64 } from './payloads.ts';
import type { ReceiverModel } from './receiver-model.ts';

export type DraftStep = (Omit<UploadStep, 'expectStatus'> | Omit<InterceptStep, 'expectStatus'>) & {
  /** Send only if this event id was accepted earlier in the case. */
  requires?: string;
};

export interface ModelledSteps {
  steps: WireStep[];
  receipts: ExpectedReceipt[];
  /** Why the model refused each refused intercept, by step index (for the generator's own checks). */
  reasons: Map<number, string>;
}

/** Runs `drafts` through `model`; `aliases` carries confirmed uploads across the cases of one file. */
export function modelSteps(drafts: readonly DraftStep[], model: ReceiverModel, aliases: Map<string, UploadDescriptor>): ModelledSteps {
  const steps: WireStep[] = [];
  const receipts: ExpectedReceipt[] = [];
  const reasons = new Map<number, string>();
  const accepted = new Set<string>();
  for (const draft of drafts) {
    const { requires, ...step } = draft;
    if (requires !== undefined && !accepted.has(requires)) continue;
    if (step.kind === 'upload') {
      const outcome = model.upload(fromBase64(step.bytes), step.headers);
      if (outcome.status === 201) aliases.set(step.alias, outcome.descriptor);
      steps.push({ ...step, expectStatus: outcome.status });
      continue;
    }
    const message: JsonObject = rewriteAliases(step.message, aliases);
    const outcome = model.intercept(message);
    if (outcome.status === 200) {
      accepted.add(step.eventId);
      receipts.push({ eventId: step.eventId, bytes: outcome.receipt.bytes, summary: outcome.receipt.summary });
    } else reasons.set(steps.length, outcome.reason);
    steps.push({ ...step, expectStatus: outcome.status });
  }
  return { steps, receipts, reasons };
}
