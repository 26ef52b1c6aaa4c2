// The state one directed pair builds up step by step (rules §4, §6, §9 items 1-6 and 12): the local
// aliases the receiver confirmed, the octets each receiver ref is bound to, the content sources in
// first-seen order, the envelope each accepted event was actually delivered as, and each case's
// failures. A run plans a step from it, runs the client, and records the outcome before planning the
// next; the verifier replays the same records over the collected evidence, so the run and the verdict
// can never disagree about what a step should have been.

import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../protocol/json.ts';
import { parseJsonText } from '../../protocol/json-text.ts';
import { sha256Hex } from '../../protocol/sha256-hex.ts';
import type { CheckFailure, ContentSource, Party, PairSecrets, PlanStep, ProcessOutcome, SenderPlan, StepOrigin, UploadDescriptor, UploadStep, WireStep } from './case-types.ts';
import { descriptorOf, fromBase64, toBase64 } from './payloads.ts';
import { containsDescriptor, isDescriptorShaped, replaceDescriptor, rewriteAliases } from './ref-rewriting.ts';
import { LABELS, statusLabel } from './verify/labels.ts';
import { readSenderResult, sizeLiteralsAreIntegers } from './verify/sender-result.ts';

/** What the ledger kept of one transmitted step, for the receipts check. */
export interface StepRecord {
  origin: StepOrigin;
  step: WireStep;
  /** The intercept as planned (after ref rewriting): what a raw POST must deliver unchanged. */
  planned?: JsonObject;
  /** The intercept as delivered: planned, with the SDK's confirmed re-uploads folded in. */
  delivered?: JsonObject;
  /** The status the client relayed, when it relayed one. */
  status?: number;
  failures: CheckFailure[];
}

function planPath(step: WireStep): PlanStep['path'] {
  return step.kind === 'upload' ? '/upload' : '/hooks/intercept';
}

function isIntegerSize(value: JsonValue | undefined): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

export class PairLedger {
  private readonly aliases = new Map<string, UploadDescriptor>();
  private readonly bound = new Map<string, string>();
  private readonly sources: ContentSource[] = [];
  private readonly failedCases = new Map<string, CheckFailure[]>();
  readonly records: StepRecord[] = [];

  /** `command` names the client in timeout texts (`<sender> client`). */
  constructor(private readonly command: string) {}

  /** Whether a case already failed: its later steps are not sent (the dependent intercept never goes out). */
  hasFailed(caseId: string): boolean {
    return this.failedCases.has(caseId);
  }

  failuresOf(caseId: string): CheckFailure[] {
    return this.failedCases.get(caseId) ?? [];
  }

  /** The confirmed sources, in first-seen order (a copy). */
  contentSources(): ContentSource[] {
    return this.sources.map((source) => ({ descriptor: { ...source.descriptor }, bytes: source.bytes }));
  }

  /** The intercept as it goes out: confirmed aliases rewritten, size and sha256 as the case wrote them. */
  plannedMessage(step: WireStep & { kind: 'intercept' }): JsonObject {
    return rewriteAliases(step.message, this.aliases);
  }

  /**
   * The one-step plan for `step` (rules §4): no expectation in it, `bypass` on every step expected ≠ 200.
   * Planning a step of an entry that already failed is a harness bug (its dependent steps must not go out).
   */
  plan(origin: StepOrigin, step: WireStep, secrets: PairSecrets): SenderPlan {
    if (this.hasFailed(origin.caseId)) throw new Error(`harness bug: step ${origin.step} of ${origin.caseId} planned after that entry failed`);
    const planStep: PlanStep =
      step.kind === 'upload'
        ? // The digest header travels with the step, so an adapter need not hash to upload (rules §4).
          { path: '/upload', bytes: step.bytes, headers: { 'AHP-Content-SHA256': sha256Hex(fromBase64(step.bytes)), ...step.headers } }
        : { path: '/hooks/intercept', bytes: toBase64(JSON.stringify(this.plannedMessage(step))), ...(step.expectStatus !== 200 ? { bypass: true as const } : {}) };
    return { endpoint: secrets.endpoint, token: secrets.token, uploadToken: secrets.uploadToken, steps: [planStep], contentSources: this.contentSources() };
  }

  /** Checks one step's outcome, updates the bindings, and returns its failures (empty when it passed). */
  record(origin: StepOrigin, step: WireStep, outcome: ProcessOutcome): CheckFailure[] {
    const record: StepRecord = { origin, step, failures: [] };
    if (step.kind === 'intercept') record.planned = this.plannedMessage(step);
    this.records.push(record);
    const fail = (label: string, party: Party, evidence: string): CheckFailure[] => {
      const failure: CheckFailure = { caseId: origin.caseId, label, party, evidence: `step ${origin.step} (${planPath(step)}): ${evidence}` };
      record.failures.push(failure);
      this.failedCases.set(origin.caseId, [...this.failuresOf(origin.caseId), failure]);
      return record.failures;
    };
    const read = readSenderResult(outcome, this.command);
    if (!read.ok) return fail(read.label, read.party, read.evidence);
    record.status = read.status;
    if (read.status !== step.expectStatus) {
      // Who is at fault is refined once the receipts show what arrived (verify/receipts-check.ts).
      return fail(statusLabel(planPath(step), step.expectStatus, read.status), 'either', `the receiver answered ${read.status}: ${read.body.slice(0, 300)}`);
    }
    const uploads = read.result.contentUploads;
    if (uploads !== undefined && !Array.isArray(uploads)) return fail(LABELS.invalidContentUploadEvidence, 'sender', `contentUploads is ${JSON.stringify(uploads).slice(0, 100)}, not a list`);
    if (Array.isArray(uploads) && uploads.length > 0 && (step.kind !== 'intercept' || step.expectStatus !== 200)) {
      return fail(LABELS.unexpectedContentUploadEvidence, 'sender', 'contentUploads reported on a step that goes out raw or is no intercept');
    }
    if (step.kind === 'upload') {
      if (step.expectStatus === 201) this.bindUpload(step, read.body, fail);
      return record.failures;
    }
    let delivered = record.planned as JsonObject;
    const seen = new Set<string>();
    for (const entry of (uploads ?? []) as JsonValue[]) {
      const folded = this.foldContentUpload(entry, record.planned as JsonObject, delivered, seen, read.stdout, fail);
      if (folded === undefined) return record.failures;
      delivered = folded;
    }
    record.delivered = delivered;
    const answer = parseJsonText(read.body);
    const wanted = { jsonrpc: '2.0', id: step.eventId, result: { protocolVersion: 'draft', effects: [] } };
    if (step.expectStatus === 200 && (!answer.ok || !jsonEqual(answer.value, wanted))) {
      return fail(LABELS.badWireResponse, 'receiver', `expected exactly ${JSON.stringify(wanted)}, got ${read.body.slice(0, 300)}`);
    }
    return record.failures;
  }

  /** Rules §9 item 5: a 201 must confirm exactly these bytes with a fresh or same-bytes ref. */
  private bindUpload(step: UploadStep, body: string, fail: (label: string, party: Party, evidence: string) => unknown): void {
    const parsed = parseJsonText(body);
    const value = parsed.ok ? (parsed.value as JsonValue) : undefined;
    if (!isDescriptorShaped(value)) {
      fail(LABELS.invalidUploadDescriptor, 'receiver', `the 201 body is not exactly {ref, size, sha256}: ${body.slice(0, 200)}`);
      return;
    }
    const bytes = fromBase64(step.bytes);
    const truth = descriptorOf(String(value.ref), bytes);
    if (typeof value.ref !== 'string' || value.ref === '' || !isIntegerSize(value.size) || !sizeLiteralsAreIntegers(body) || value.size !== truth.size || value.sha256 !== truth.sha256) {
      fail(LABELS.uploadDescriptorIntegrity, 'receiver', `confirmed ${body.slice(0, 200)} for ${truth.size} bytes with sha256 ${truth.sha256}`);
      return;
    }
    const descriptor: UploadDescriptor = { ref: value.ref, size: value.size, sha256: value.sha256 as string };
    if (!this.bind(descriptor, step.bytes)) {
      fail(LABELS.receiverRefMutated, 'receiver', `ref ${JSON.stringify(value.ref)} was confirmed earlier for other bytes`);
      return;
    }
    this.aliases.set(step.alias, descriptor);
  }

  /** Binds `ref` to `bytes` (a new ref becomes a content source); false if it is bound to other bytes. */
  private bind(descriptor: UploadDescriptor, bytes: string): boolean {
    const earlier = this.bound.get(descriptor.ref);
    if (earlier !== undefined) return earlier === bytes;
    this.bound.set(descriptor.ref, bytes);
    this.sources.push({ descriptor: { ...descriptor }, bytes });
    return true;
  }

  /** Rules §9 item 6: one SDK re-upload, checked, then folded into the delivered envelope. */
  private foldContentUpload(
    entry: JsonValue,
    planned: JsonObject,
    delivered: JsonObject,
    seen: Set<string>,
    stdout: string,
    fail: (label: string, party: Party, evidence: string) => unknown,
  ): JsonObject | undefined {
    const sourceRef = isJsonObject(entry) ? entry.sourceRef : undefined;
    const sourceBytes = typeof sourceRef === 'string' ? this.bound.get(sourceRef) : undefined;
    if (typeof sourceRef !== 'string' || sourceBytes === undefined || seen.has(sourceRef)) {
      fail(LABELS.unknownContentUploadSource, 'sender', `sourceRef ${JSON.stringify(sourceRef)} is not a confirmed receiver ref, or repeats within the step`);
      return undefined;
    }
    seen.add(sourceRef);
    const bytes = fromBase64(sourceBytes);
    const descriptor = isJsonObject(entry) ? entry.descriptor : undefined;
    const truth = { size: bytes.length, sha256: sha256Hex(bytes) };
    if (
      !isDescriptorShaped(descriptor) ||
      typeof descriptor.ref !== 'string' ||
      descriptor.ref === '' ||
      !isIntegerSize(descriptor.size) ||
      !sizeLiteralsAreIntegers(stdout) ||
      descriptor.size !== truth.size ||
      descriptor.sha256 !== truth.sha256
    ) {
      fail(LABELS.contentUploadDescriptorIntegrity, 'sender', `descriptor ${JSON.stringify(descriptor)} does not describe the ${truth.size} source bytes (sha256 ${truth.sha256})`);
      return undefined;
    }
    const confirmed: UploadDescriptor = { ref: descriptor.ref, size: descriptor.size, sha256: descriptor.sha256 as string };
    const source: UploadDescriptor = { ref: sourceRef, ...truth };
    if (!containsDescriptor(planned, source)) {
      fail(LABELS.unselectedContentUploadSource, 'sender', `the planned envelope holds no ${JSON.stringify(source)}`);
      return undefined;
    }
    if (!this.bind(confirmed, sourceBytes)) {
      // The SDK reports the ref the receiver gave it; either may have mixed it up.
      fail(LABELS.receiverRefMutated, 'either', `re-upload ref ${JSON.stringify(confirmed.ref)} was confirmed earlier for other bytes`);
      return undefined;
    }
    return replaceDescriptor(delivered, source, confirmed);
  }
}
