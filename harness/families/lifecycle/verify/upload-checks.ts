// LIFECYCLE-RULES §7.4 (18)–(21): the upload receipts no confirmation consumed pair, in order, with
// every upload step of the selected rows (row order, then step order). Each pair must record the
// status the row expects and the size and digest the step declares; a 201 must carry a fresh
// receiver ref, and a ref may only be shared by bytes that are the same. Each 201 binds the step's
// alias to the receiver's ref, which later bodies must carry instead of the alias.
//
// §13: the expected statuses are the fixture's (the runner's 401 for a refused upload credential,
// 400 for a bad size or digest), not LIFECYCLE.md's 403/409; and a receipt records the size and
// digest the client *declared* (Content-Length, AHP-Content-SHA256), which is what is compared.

import { describeValue } from '../../../protocol/json-text.ts';
import type { UploadStep } from '../../../lifecycle-adapters/scenario-types.ts';
import type { Findings } from '../../../lifecycle-adapters/findings.ts';
import { LABEL } from '../../../lifecycle-adapters/labels.ts';
import { describeEntry, type LogEntry } from '../../../lifecycle-adapters/receipt-log.ts';
import type { RowPlan } from './row-plan.ts';

/** What the receiver said a ref's bytes are, and the alias it was first bound for. */
export interface RefBytes {
  alias: string;
  size: unknown;
  sha256: unknown;
}

export interface UploadOutcome {
  /** Scenario id → upload step index → the receiver ref its 201 bound the alias to. */
  bindings: Map<string, Map<number, string>>;
  /** Receiver ref → the bytes it was first assigned to (shared with §7.4 (22)'s confirmation check). */
  refs: Map<string, RefBytes>;
}

interface PlannedUpload {
  rowId: string;
  stepIndex: number;
  step: UploadStep;
  expectedStatus: number | undefined;
}

export function checkUploads(plans: readonly RowPlan[], entries: readonly LogEntry[], consumed: ReadonlySet<number>, findings: Findings): UploadOutcome {
  const planned = plannedUploads(plans);
  const receipts = entries.filter((e) => e.kind === 'upload' && !consumed.has(e.index));
  const outcome: UploadOutcome = { bindings: new Map(), refs: new Map() };

  // (18) The pairing is positional, as the runner's: a missing or extra receipt shifts the pairs
  // after it, so the run fails as a whole and the pairs are still compared for the detail.
  if (receipts.length !== planned.length) {
    findings.run(
      LABEL.uploadMultiplicity,
      'client or server',
      `${receipts.length} upload receipt(s) not consumed by a content upload confirmation, but the selected scenarios have ${planned.length} upload step(s)`,
    );
  }
  const pairs = Math.min(receipts.length, planned.length);
  for (let k = 0; k < pairs; k++) {
    const { rowId, stepIndex, step, expectedStatus } = planned[k] as PlannedUpload;
    const receipt = receipts[k] as LogEntry;
    const { status, size, sha256, ref } = receipt.entry;
    const at = `${describeEntry(receipt)} (upload step steps[${stepIndex}], alias ${JSON.stringify(step.ref)})`;

    // (19)
    const evidence: string[] = [];
    if (status !== expectedStatus) evidence.push(`status ${describeValue(status)}, expected ${describeValue(expectedStatus)}`);
    if (size !== step.size) evidence.push(`size ${describeValue(size)}, declared ${step.size}`);
    if (sha256 !== step.sha256) evidence.push(`sha256 ${describeValue(sha256)}, declared ${step.sha256}`);
    if (evidence.length > 0) findings.row(rowId, LABEL.uploadEvidence, 'client or server', `${at}: ${evidence.join('; ')}`);

    if (status !== 201) continue; // other statuses never bind
    // (20)
    if (typeof ref !== 'string' || ref === '') {
      findings.row(rowId, LABEL.missingUploadRef, 'server', `${at}: a 201 with ref ${describeValue(ref)}, expected a non-empty string`);
      continue;
    }
    // (21)
    const earlier = outcome.refs.get(ref);
    if (earlier !== undefined && earlier.alias !== step.ref && (earlier.size !== size || earlier.sha256 !== sha256)) {
      findings.row(
        rowId,
        LABEL.reusedRef,
        'server',
        `${at}: ref ${JSON.stringify(ref)} was already assigned to alias ${JSON.stringify(earlier.alias)} (size ${describeValue(earlier.size)}, sha256 ${describeValue(earlier.sha256)}) and now names size ${describeValue(size)}, sha256 ${describeValue(sha256)}`,
      );
    }
    if (earlier === undefined) outcome.refs.set(ref, { alias: step.ref, size, sha256 });
    const rowBindings = outcome.bindings.get(rowId) ?? new Map<number, string>();
    rowBindings.set(stepIndex, ref);
    outcome.bindings.set(rowId, rowBindings);
  }
  return outcome;
}

function plannedUploads(plans: readonly RowPlan[]): PlannedUpload[] {
  const planned: PlannedUpload[] = [];
  for (const plan of plans) {
    let k = 0;
    plan.row.steps.forEach((step, stepIndex) => {
      if (step.op !== 'upload') return;
      planned.push({ rowId: plan.row.id, stepIndex, step, expectedStatus: plan.row.expected.uploadStatuses[k++] });
    });
  }
  return planned;
}
