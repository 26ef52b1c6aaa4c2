// The elicitation family's data model (ELICITATION-RULES.md): the closed case file our generator
// writes (fixtures/elicitation.json, fixtures/elicitation-inline.json), the per-step sender plans of
// rules §4, the atomic helper's rows of §5, the evidence a pair run collects and the verdicts the pure
// verifier returns. The closed format schema fixtures/elicitation-case-file.schema.json is the
// authority on what a file may contain; these types describe what code may read after loading.
//
// Data flows one way: case file → plan-steps (one plan per step, from what the pair confirmed so far)
// → the run (processes, outside this folder's pure modules) → PairEvidence → verify/ → verdicts.

import type { ElicitationBinding } from '../../config/define-config.ts';
import type { JsonObject, JsonValue } from '../../protocol/json.ts';

// ---------------------------------------------------------------------------------------------------
// The file

/**
 * `upload`: MCP bodies are uploaded first and referenced as `body:{ref,size,sha256}` (what the SDK
 * adapters speak today). `inline`: the current draft's text parts, mapped as rules §14 proposes.
 */
// One list for the config's `elicitation.binding` and the case file's `binding`.
export { ELICITATION_BINDINGS } from '../../config/define-config.ts';
export type { ElicitationBinding };

export interface ElicitationCaseFile {
  version: 1;
  binding: ElicitationBinding;
  /** The wire cases (rules §7.1), in transmission order; inline replaces the upload-only ones (§14). */
  cases: WireCase[];
  /** The atomic helper rows (rules §7.2), in the helper's input order. */
  atomic: AtomicRow[];
  /** Two live requests in one session, settled in reverse order (rules §7.3). */
  concurrent: WireCase;
  /** The unauthenticated `/receipts` probe and the upload probes (rules §7.3). */
  probes: Probe[];
}

/** The selection of a body item; `omit` means no item at all. */
export const SELECTIONS = ['body', 'metadata', 'omit'] as const;
export type Selection = (typeof SELECTIONS)[number];

/**
 * What the receiver must reject a case for (the "rejected by" column of rules §7.1), or null for a
 * case every step of which is accepted. Only documentation: the runner sees statuses, never reasons.
 */
export const REJECTION_GROUNDS = [
  'mcp-request-schema',
  'requested-schema-subset',
  'mcp-result-schema',
  'content-only-on-form-accept',
  'metadata-mode-mismatch',
  'metadata-action-mismatch',
  'server-mismatch',
  'unknown-ref',
  'digest-mismatch',
  'selected-gap',
  'requested-form-schema',
  'correlation',
  'text-not-json',
  'legacy-ref-on-text-part',
  'duplicate-live-request',
] as const;
export type RejectionGround = (typeof REJECTION_GROUNDS)[number];

/** One wire case: the exact steps the sender transmits and the receipts the receiver must append. */
export interface WireCase {
  /** Stable, unique in the file; the test name's last part. */
  id: string;
  /** One sentence: what a pass shows. */
  proves: string;
  /** The selection of both events' items (every case selects alike for request and result). */
  selection: Selection;
  rejectedBy: RejectionGround | null;
  /** Short labels (`form`, `url`, `positive`, `negative`, `correlation`, ...) for filtering and counts. */
  tags: string[];
  /** Exactly what goes on the wire, in order: a result intercept only where its request is expected 200. */
  steps: WireStep[];
  /** The receipts this case appends, in order; the verifier adds the run's principal (see ExpectedReceipt). */
  receipts: ExpectedReceipt[];
}

export type WireStep = UploadStep | InterceptStep;

/**
 * Upload one body (rules §4 `/upload`). `alias` is the case's local name for it (`<name>:<stage>`);
 * a 201 binds the alias to the receiver's ref, a later 201 for the same alias rebinds it.
 */
export interface UploadStep {
  kind: 'upload';
  alias: string;
  /** Standard padded base64 of the exact octets. */
  bytes: string;
  /**
   * Extra request headers; an `Authorization` here is sent raw instead of the upload token (the
   * wrong-credential probe), never replaced by the valid one.
   */
  headers?: Record<string, string>;
  expectStatus: 201 | 401;
}

/**
 * One `hooks/intercept` envelope (rules §6). In the upload binding its body descriptors carry the
 * local alias as `ref`; the plan rewrites each confirmed alias to the receiver's ref and keeps `size`
 * and `sha256` as written, so a case's bad digest is never repaired. A step expected ≠ 200 goes out
 * raw (`bypass`), so the SDK cannot refuse or repair it.
 */
export interface InterceptStep {
  kind: 'intercept';
  /** `params.event.id` (also the JSON-RPC id); the key receipts are matched by. */
  eventId: string;
  stage: 'request' | 'result';
  message: JsonObject;
  expectStatus: 200 | 400;
}

/**
 * A receipt the receiver must append for one accepted intercept. Its `message` is not stored: it is the
 * envelope actually delivered (after ref rewriting and the SDK's confirmed re-uploads). A result
 * event's `summary.provenance` is written as `{kind:"mcp"}` only: the verifier adds
 * `authenticatedSource` = the run's principal (`authenticated:<sender>`), which no file can know.
 */
export interface ExpectedReceipt {
  eventId: string;
  /** Base64 of the selected body's octets (inline: of the text part's text), `""` when none is selected. */
  bytes: string;
  summary: JsonObject;
}

// ---------------------------------------------------------------------------------------------------
// Atomic helper rows (rules §5, §7.2)

export type AtomicBoundary = 'request' | 'result';

/** Exactly what the helper receives for one row on stdin (an array of these). */
export interface AtomicInput {
  op: 'apply';
  request: JsonObject;
  /** `null` for a request-phase row. */
  result: JsonObject | null;
  /** Local names (the envelopes' body refs) and their octets; empty in the inline binding. */
  uploads: { ref: string; bytes: string }[];
  effects: JsonObject[];
}

export interface AtomicRow {
  /** `atomic/<name>`: the test name's last part. */
  id: string;
  /** `<name>` of rules §7.2. */
  name: string;
  proves: string;
  boundary: AtomicBoundary;
  input: AtomicInput;
  expected: AtomicExpected;
}

export type AtomicExpected =
  | { accepted: false }
  | {
      accepted: true;
      /** The published MCP result (`summary.result`). */
      result: JsonValue;
      /** `summary.provenance.effects`: the row's effect types in order. */
      effects: string[];
    };

/** One output row of the helper (stdout: an array of these, in input order). */
export interface AtomicOutput {
  accepted: boolean;
  summary?: JsonObject;
  inputUnchanged: boolean;
}

// ---------------------------------------------------------------------------------------------------
// Probes (rules §7.3)

export type Probe = UnauthenticatedProbe | UploadProbe;

/** `/receipts` with `token:"wrong"`: the client must exit 0 and relay a 401. */
export interface UnauthenticatedProbe {
  id: string;
  kind: 'unauthenticated-receipts';
  proves: string;
  expectStatus: 401;
}

/** Upload steps outside any case: immutable refs, the upload credential. No receipts. */
export interface UploadProbe {
  id: string;
  kind: 'upload';
  proves: string;
  steps: UploadStep[];
}

// ---------------------------------------------------------------------------------------------------
// Sender plans (rules §4): what one `client` process reads on stdin

export const PLAN_PATHS = ['/upload', '/hooks/intercept', '/receipts'] as const;
export type PlanPath = (typeof PLAN_PATHS)[number];

/** Keys ⊆ path, bytes, headers, bypass: no step carries an expectation. */
export interface PlanStep {
  path: PlanPath;
  bytes: string;
  headers?: Record<string, string>;
  bypass?: true;
}

export interface UploadDescriptor {
  ref: string;
  size: number;
  sha256: string;
}

/** A receiver ref confirmed earlier in the pair, with its octets, for the SDK to hydrate from. */
export interface ContentSource {
  descriptor: UploadDescriptor;
  bytes: string;
}

/** The endpoint and the pair's fresh credentials; written only into the 0600 plan file, never logged. */
export interface PairSecrets {
  endpoint: string;
  token: string;
  uploadToken: string;
}

export interface SenderPlan {
  endpoint: string;
  token: string;
  uploadToken?: string;
  steps: [PlanStep];
  contentSources?: ContentSource[];
}

/** An SDK's report that it re-uploaded a confirmed source itself and sent the new ref. */
export interface ContentUpload {
  sourceRef: string;
  descriptor: UploadDescriptor;
}

/** The one result a client prints (parsed from stdout by the verifier, never trusted unchecked). */
export interface SenderStepResult {
  status: number;
  body: string;
  contentUploads?: ContentUpload[];
}

// ---------------------------------------------------------------------------------------------------
// Evidence: what the run collects for one directed pair (no tokens, no ports in expected values)

/** How one process ended. `stdout` is the raw text; the verifier parses it. */
export type ProcessOutcome =
  | { kind: 'exited'; exitCode: number | null; signal: string | null; stdout: string; stderrTail: string }
  | { kind: 'timeout'; timeoutMs: number; stderrTail: string };

/** Where a transmitted step came from: a wire case's or probe's step index, or the final `/receipts`. */
export interface StepOrigin {
  /** A wire case id, `concurrent`'s id, a published row's atomic id, or a probe id. */
  caseId: string;
  /** Index into that entry's steps. */
  step: number;
}

export interface StepEvidence extends StepOrigin {
  outcome: ProcessOutcome;
}

export interface PairEvidence {
  sender: string;
  receiver: string;
  /** The principal argument the receiver was started with (`authenticated:<sender>`). */
  principal: string;
  /** How the receiver's endpoint line went; on failure nothing else ran. */
  startup: { ok: true } | { ok: false; kind: 'timeout' | 'failed'; stderrTail: string };
  /** The atomic helper's run, absent when no atomic row was selected. */
  atomic?: ProcessOutcome;
  /** The unauthenticated probe's client run, absent when the probe was not selected. */
  unauthenticatedProbe?: ProcessOutcome;
  /** Every transmitted step, in transmission order. */
  steps: StepEvidence[];
  /** The final `/receipts` run, absent when no wire step ran. */
  receipts?: ProcessOutcome;
}

// ---------------------------------------------------------------------------------------------------
// Verdicts

/** Who the evidence blames; `either` when it cannot tell the sender's fault from the receiver's. */
export type Party = 'sender' | 'receiver' | 'either';

export interface CheckFailure {
  /** The case, atomic row or probe id; null for a pair-level fault. */
  caseId: string | null;
  /** The rules' verbatim label (§5, §9). */
  label: string;
  party: Party;
  /** What was seen, with the difference: safe for reports (no tokens). */
  evidence: string;
}

export interface CaseVerdict {
  caseId: string;
  /** `not-run`: a pair-level fault (e.g. receiver startup) kept it from running; the pair fault says why. */
  status: 'passed' | 'failed' | 'not-run';
  failures: CheckFailure[];
}

export interface PairVerdict {
  cases: Map<string, CaseVerdict>;
  /** Faults that belong to no case; any of them fails the whole pair. */
  pairFaults: CheckFailure[];
}

// The pure API, module by module (what the run and the self-tests call):
//   load-elicitation-cases.ts  loadElicitationCaseFile(file) / parseElicitationCaseFile(text, file) → ElicitationCaseFile (ElicitationCaseFileError names file, path, expectation)
//   generate.ts                buildElicitationCaseFile(binding), serializeElicitationCaseFile(file), checkElicitationCaseBuild(file)
//   plan-steps.ts              selectedEntryIds(file, ids?) → Set; pairNeeds(file, selected) → {atomicHelper, unauthenticatedProbe};
//                              atomicHelperInput(file); wireSchedule(file, selected, published) → {origin, step}[]; needsReceipts(schedule);
//                              wireEntries(file, published); receiptsPlan(secrets); unauthenticatedProbePlan(endpoint)
//   pair-ledger.ts             new PairLedger(`<sender> client`); ledger.plan(origin, step, secrets) → SenderPlan;
//                              ledger.record(origin, step, outcome) → CheckFailure[]; ledger.hasFailed(caseId)
//   verify/atomic-checks.ts    checkAtomicOutcome(file.atomic, outcome, principal, binding) → {rows, published: PublishedCase[]}
//                              (a published row's steps are filed under its atomic row's id: PublishedCase.atomicId)
//   drive-pair.ts              drivePair(input, {runAtomicHelper, runClient}) → PairEvidence (the whole per-pair order, processes injected)
//   verify/verify-pair.ts      verifyElicitationPair(evidence, file, {selection?}) → PairVerdict (re-derives published rows itself)
