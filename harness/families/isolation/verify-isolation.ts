// The sender-isolation verifier (SENDER-ISOLATION-RULES §6): credit a sender only for exactly one
// correct anonymous raw upload to the independent origin, a confirmed 201, and a passing credentialed
// event exchange with its own receiver (the lifecycle verifier, on copies without the upload step).

import type { StepScenario } from '../../lifecycle-adapters/scenario-types.ts';
import type { Check, LifecycleVerification } from '../../lifecycle-adapters/findings.ts';
import { LABEL as LIFECYCLE_LABEL } from '../../lifecycle-adapters/labels.ts';
import { jsonEqual } from '../../protocol/json.ts';
import type { ScriptEvidence, ScriptVerifier } from '../../lifecycle-adapters/runner.ts';
import type { Capture } from './capture-origin.ts';

export const LABELS = {
  count: 'exactly one independent upload capture required',
  capture: 'independent capture contains credentials or incorrect raw upload',
  descriptor: 'missing or incorrect receiver-assigned canonical descriptor',
  result: 'missing client result',
  confirmed: 'anonymous upload not actually confirmed',
} as const;

/** §6.1: the captures against body `B` (its size and SHA-256). */
export function captureErrors(captures: readonly Capture[], body: { size: number; sha256: string }): string[] {
  if (captures.length !== 1) return [LABELS.count];
  const capture = captures[0]!;
  const errors: string[] = [];
  const clean = {
    path: '/capture',
    size: body.size,
    sha256: body.sha256,
    subscription: null,
    ref: null,
    declaredHash: body.sha256,
    contentType: 'application/octet-stream',
    sensitiveHeaders: [],
    transferEncoding: null,
    descriptor: capture.descriptor ?? {},
  };
  if (!jsonEqual(capture, clean)) errors.push(LABELS.capture);
  const descriptor = capture.descriptor;
  if (!descriptor || typeof descriptor.ref !== 'string' || !descriptor.ref.startsWith('urn:uuid:') || !jsonEqual(descriptor, { ref: descriptor.ref, size: body.size, sha256: body.sha256 })) {
    errors.push(LABELS.descriptor);
  }
  return errors;
}

/**
 * §6.2–6.4 as a ScriptVerifier over the case's one row, with the origin's captures: capture errors and
 * the report checks are run failures of the case; the event path is the lifecycle verifier on copies
 * where every upload step is removed and `uploadStatuses` emptied on both sides.
 */
export function isolationVerifier(
  captures: () => readonly Capture[],
  body: { size: number; sha256: string },
  lifecycle: ScriptVerifier<StepScenario>,
): ScriptVerifier<StepScenario> {
  return (evidence: ScriptEvidence<StepScenario>): LifecycleVerification => {
    const runFailures: Check[] = captureErrors(captures(), body).map((label) => ({ label, party: 'client', message: describeCaptures(captures()) }));
    const report = evidence.report as { results?: unknown } | undefined;
    if (typeof report !== 'object' || report === null || !Array.isArray(report.results)) {
      runFailures.push({ label: LABELS.result, party: 'client', message: 'the report is not an object with a results list' });
      return { runFailures, rows: new Map(evidence.rows.map((row) => [row.id, []])) };
    }
    for (const result of report.results as Array<{ id?: unknown; actual?: { uploadStatuses?: unknown } }>) {
      if (!jsonEqual(result?.actual?.uploadStatuses, [201])) {
        runFailures.push({ label: LABELS.confirmed, party: 'client', message: `result ${JSON.stringify(result?.id ?? null)} reports uploadStatuses ${JSON.stringify(result?.actual?.uploadStatuses ?? null)}, expected [201]` });
      }
    }
    const rows = evidence.rows.map(withoutUpload);
    const results = (report.results as Array<Record<string, unknown>>).map((result) => ({
      ...result,
      actual: { ...((result.actual as object | undefined) ?? {}), uploadStatuses: [] },
    }));
    const events = lifecycle({ ...evidence, rows, report: { ...report, results } });
    return { runFailures: [...runFailures, ...events.runFailures.map(chargeOwnServerUploads)], rows: events.rows };
  };
}

/**
 * §5: the event path is verified without upload steps, so an upload receipt of the sender's own
 * receiver is an upload the sender made there besides its one to the independent origin. The
 * lifecycle verifier charges a receipt count that disagrees with the steps to `client or server`
 * (a skipped upload and a receiver's bookkeeping look alike there); here no step uploads to that
 * receiver at all, and it is the sender's own SDK, so the finding is the sender's.
 */
function chargeOwnServerUploads(check: Check): Check {
  if (check.label !== LIFECYCLE_LABEL.uploadMultiplicity) return check;
  return { ...check, party: 'client', message: `${check.message}: the sender also uploaded to its own server's uploadEndpoint (SENDER-ISOLATION-RULES §5: its one upload goes to the independent origin)` };
}

function withoutUpload(row: StepScenario): StepScenario {
  return { ...row, steps: row.steps.filter((step) => step.op !== 'upload'), expected: { ...row.expected, uploadStatuses: [] } };
}

/** What the origin saw, in our words and without any header value. */
function describeCaptures(captures: readonly Capture[]): string {
  if (captures.length === 0) return 'the independent upload origin received no upload';
  return captures
    .map((capture, i) => `capture ${i + 1}: ${capture.path}, ${capture.size} bytes, content type ${JSON.stringify(capture.contentType)}, sensitive headers [${capture.sensitiveHeaders.join(', ')}], subscription ${capture.subscription === null ? 'none' : 'set'}, ref ${capture.ref === null ? 'none' : 'set'}, hash ${capture.declaredHash === capture.sha256 ? 'matching' : 'not matching'}, ${capture.descriptor ? 'answered 201' : 'refused 400'}`)
    .join('; ');
}
