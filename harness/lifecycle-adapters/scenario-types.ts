// The lifecycle runner family's data model: scenario files (step scripts and observation chains), the
// receipts a lifecycle receiver records, and the report a lifecycle client writes. Shared by the
// lifecycle loader, the verifier, our fixture generator and the reference lifecycle adapter, so these
// types follow the protocol's lifecycle runner rules (LIFECYCLE-RULES.md: §2 rows, §4 steps, §5
// uploads, §6 receipts and report, §7.8 chains) field for field. The closed format schema
// fixtures/lifecycle-scenario-file.schema.json is the authority on what a file may contain; these
// types describe what code may read after loading.

import type { Transport } from '../config/define-config.ts';
import type { JsonObject } from '../protocol/json.ts';
import type { ContentUploadReceipt, InterceptRequest, ObserveNotification } from '../protocol/messages.ts';
import type { Decision } from '../oracle/types.ts';

// ---------------------------------------------------------------------------------------------------
// Files and rows

export interface LifecycleScenarioFile {
  version: 1;
  scenarios: LifecycleScenario[];
}

/** A row is either a step script or an observation chain (it has `chain` and `chainProof`). */
export type LifecycleScenario = StepScenario | ChainScenario;

/** What every row has, whichever kind it is. */
export interface ScenarioRowBase {
  /** Unique within the file; lowercase kebab/dot. */
  id: string;
  /** Request key (`a`, `b`, ...) → canonical `hooks/intercept` request; its `id` is the JSON-RPC id steps act on. */
  requests: Record<string, InterceptRequest>;
  /**
   * Request key → the scripted response the receiver answers with. Kept exactly as written: a
   * response may be deliberately invalid or carry another request's id (adversarial fixtures).
   */
  responses: Record<string, JsonObject>;
  /** Request key → one response per attempt: attempt n answers entry n, else `responses[key]`. */
  responseSequences?: Record<string, JsonObject[]>;
  /** The transports the row runs on; absent means both (see applicability.ts). */
  transports?: Transport[];
  /** Why the row does not run on the other transport; only with `transports`. */
  inapplicableReason?: string;
  /** Our own fixtures may tag and describe rows; canonical files do not. */
  tags?: string[];
  description?: string;
}

/** A step script: the client runs `steps` in order and reports `expected`-shaped `actual`. */
export interface StepScenario extends ScenarioRowBase {
  steps: LifecycleStep[];
  expected: LifecycleExpected;
  chain?: undefined;
  chainProof?: undefined;
}

/** An observation chain: the client runs `chain.subscriptions` serially; there are no steps. */
export interface ChainScenario extends ScenarioRowBase {
  steps: [];
  expected: ChainExpected;
  chain: Chain;
  chainProof: ChainProof;
}

export function isChainScenario(row: LifecycleScenario): row is ChainScenario {
  return row.chain !== undefined;
}

// ---------------------------------------------------------------------------------------------------
// Steps (§4, §5): a discriminated union on `op`

/** Open the SDK's pending interception for `requests[key]` and transmit it without awaiting the reply. */
export interface SendStep {
  op: 'send';
  key: string;
  /** Names the response this attempt will get; unique per row, consumed by a later `receive`. */
  slot: string;
  /** A raw replay outside SDK dispatch (only the duplicate-attempt sends); its reply still goes to the SDK. */
  bypassSDK?: boolean;
}

/** Control `POST /wait {id, count}`: block until the receiver holds `count` attempts of the request. */
export interface WaitStep {
  op: 'wait';
  key: string;
  count: number;
}

/** Control `POST /release {id}`: sticky release of the request's reply. */
export interface ReleaseStep {
  op: 'release';
  key: string;
}

/** Await the slot's reply and hand it to the SDK (staged if still open, else the slot is `ignored`). */
export interface ReceiveStep {
  op: 'receive';
  slot: string;
}

/** Logical interruption of the request. */
export interface CancelStep {
  op: 'cancel';
  key: string;
}

/** Settle from the staged response: effects are evaluated now, and published if still possible. */
export interface AcceptStep {
  op: 'accept';
  key: string;
}

/** Fail-open fallback; never publishes after a cancel. */
export interface FailOpenStep {
  op: 'failOpen';
  key: string;
}

/** The upload settings of a step (they replace the client config's `upload`, never merge with it). */
export interface UploadConfig {
  auth: { type: 'bearer'; /** Environment variable holding the upload token. */ tokenEnv: string };
  timeoutMs: number;
  maxBytes: number;
  /** Filled in by the runner over HTTP (the receiver's `uploadEndpoint`). */
  endpoint?: string;
}

interface UploadStepFields {
  op: 'upload';
  /** Local label selecting test permission policy (`body`, `metadata`); never sent. */
  subscription: string;
  /** Local alias later bodies use as `{ref: alias}`; bound to the receiver-assigned ref on a 201. */
  ref: string;
  /** The declared Content-Length, sent as is even when it does not match the bytes (negative fixtures). */
  size: number;
  /** The declared `AHP-Content-SHA256`, sent as is. */
  sha256: string;
  upload?: UploadConfig;
}

/** A raw upload of the step's bytes: exactly one of `bodyBase64` (strict base64) or `body` (UTF-8 text). */
export type UploadStep = UploadStepFields &
  ({ bodyBase64: string; body?: undefined } | { body: string; bodyBase64?: undefined });

/** Send the §7.6 `hooks/observe` notification for `requests[key]`'s event, then wait until it is observed. */
export interface ObserveStep {
  op: 'observe';
  key: string;
  /** Local label of the observing subscription (`body`, `metadata`), reported in `observations`. */
  subscription: string;
  /** Replaces the event's `items` in the notification (canonical content items, body refs as aliases). */
  items?: JsonObject[];
}

/** Stdio only: control `POST /emit {response}` writes an unsolicited frame the client must discard. */
export interface EmitStep {
  op: 'emit';
  response: JsonObject;
}

export type LifecycleStep =
  | SendStep
  | WaitStep
  | ReleaseStep
  | ReceiveStep
  | CancelStep
  | AcceptStep
  | FailOpenStep
  | UploadStep
  | ObserveStep
  | EmitStep;

export type LifecycleStepOp = LifecycleStep['op'];

// A record keyed by the union, so that an op added to or dropped from the union fails to compile here.
const STEP_OPS: Record<LifecycleStepOp, true> = {
  send: true,
  wait: true,
  release: true,
  receive: true,
  cancel: true,
  accept: true,
  failOpen: true,
  upload: true,
  observe: true,
  emit: true,
};
/** Every step op, in the order of LIFECYCLE-RULES §4 (and of the format schema's step branches). */
export const LIFECYCLE_STEP_OPS = Object.keys(STEP_OPS) as readonly LifecycleStepOp[];

/** The steps that name a request by `key`. */
export type KeyedStep = Extract<LifecycleStep, { key: string }>;

// ---------------------------------------------------------------------------------------------------
// Expected (= the client's `actual`) for step scripts

export interface LifecycleExpected {
  /** Request ids that were published, in event order. */
  published: string[];
  /** Request ids whose cancellation took effect (also after publication), in event order. */
  cancelled: string[];
  /** Slot names whose reply arrived too late, and `unsolicited:<id>` for each discarded emitted frame. */
  ignored: string[];
  /** Request id → published application state. */
  states: Record<string, PublishedState>;
  /** One entry per `observe` step, in step order. */
  observations: ObservationRecord[];
  /** The receiver's HTTP status for each `upload` step, in step order. */
  uploadStatuses: number[];
}

/**
 * The core contract's result at a published tool boundary: allow (with modify and message) executes
 * with the settled input and its messages; deny, ask and stop do not execute and keep the original
 * input; stop adds `flow`.
 */
export interface PublishedState {
  decision: Decision;
  executed: boolean;
  input: JsonObject;
  messages: string[];
  flow?: 'stop';
}

export interface ObservationRecord {
  eventId: string;
  subscription: string;
  /** The `tool.input` the notification carried. */
  input: JsonObject;
}

// ---------------------------------------------------------------------------------------------------
// Observation chains (§7.8)

export interface Chain {
  /** Run serially in declaration order, every call with the fixture request id. */
  subscriptions: ChainSubscription[];
  /** Interrupt while the first intercept is pending: settles before its reply, no observers run. */
  interrupt: boolean;
  /** Receivers gate observers until `<id>:observers` is released (records `observer-blocked`). */
  holdObservers: boolean;
}

export interface ChainSubscription {
  id: string;
  /** Local backend label; subscriptions sharing one share a receiver. */
  backend: string;
  mode: 'intercept' | 'observe';
  failurePolicy: 'fail-open' | 'fail-closed';
  /** The content view this subscription gets. */
  content: 'body' | 'metadata' | 'omit';
}

/** Expected (= the client's `actual`) for chain rows. */
export interface ChainExpected {
  /** Intercept subscriptions called, in declaration order. */
  called: string[];
  /** Called subscriptions whose reply failed (invalid or unadvertised), in declaration order. */
  failures: string[];
  /** Subscriptions that received an observation, in declaration order. */
  observations: string[];
  /** The final effective tool input. */
  input: JsonObject;
}

/** The exact wire messages the receivers must have recorded for a chain row. */
export interface ChainProof {
  /** One intercept request per call, in order (`params.state.permission` is recomputed by the verifier). */
  requests: InterceptRequest[];
  /** The observation notifications, compared as a multiset. */
  observations: ObserveNotification[];
}

// ---------------------------------------------------------------------------------------------------
// Receipts (§6): what a lifecycle receiver records, and the client's control marks

/** A JSON-RPC request id as receipts carry it. */
export type RequestId = string | number;

/** Receiver: an intercept attempt arrived (recorded before the reply is held). Extra keys are tolerated. */
export interface ReceivedReceipt {
  kind: 'received';
  id: RequestId;
  /** The exact wire request. */
  message: JsonObject;
  [extra: string]: unknown;
}

/** Receiver: a reply is about to be written. */
export interface RepliedReceipt {
  kind: 'replied';
  id: RequestId;
}

/** Receiver: one upload request, with its declared size and digest. Extra keys are tolerated. */
export interface UploadReceiptEntry {
  kind: 'upload';
  status: number;
  /** The declared Content-Length. */
  size: number;
  /** The declared `AHP-Content-SHA256` header. */
  sha256: string;
  /** The receiver-assigned reference (201 only). */
  ref?: string;
  [extra: string]: unknown;
}

/** Receiver: an observation notification arrived. Exactly these keys; `event` = `message.params.event`. */
export interface ObservedReceipt {
  kind: 'observed';
  eventId: string;
  event: JsonObject;
  message: JsonObject;
}

/** Receiver (stdio): an unsolicited frame was written on `POST /emit`. Exactly these keys. */
export interface EmittedReceipt {
  kind: 'emitted';
  id: RequestId;
}

/** The client milestones `POST /mark` records (§6). */
export const MARK_KINDS = ['acquired', 'discarded', 'accepted', 'cancelled', 'chain-settled'] as const;
export type MarkKind = (typeof MARK_KINDS)[number];

/**
 * Client marks (`POST /mark`). `acquired` and `discarded` have exactly these keys; `accepted`,
 * `cancelled` and `chain-settled` at least these.
 */
export interface MarkReceipt {
  kind: MarkKind;
  id: RequestId;
  scenario: string;
}

/** Receiver, only under `holdObservers`: an observer was held at the gate. */
export interface ObserverBlockedReceipt {
  kind: 'observer-blocked';
  /** The event id. */
  id: string;
}

export type ReceiptEntry =
  | ReceivedReceipt
  | RepliedReceipt
  | UploadReceiptEntry
  | ObservedReceipt
  | EmittedReceipt
  | MarkReceipt
  | ObserverBlockedReceipt;

export type ReceiptKind = ReceiptEntry['kind'];

// Keyed by the union, like STEP_OPS: no other kind may appear in a receipt log (§6).
const KINDS: Record<ReceiptKind, true> = {
  received: true,
  replied: true,
  upload: true,
  observed: true,
  emitted: true,
  acquired: true,
  discarded: true,
  accepted: true,
  cancelled: true,
  'chain-settled': true,
  'observer-blocked': true,
};
/** Every receipt kind of §6; anything else in a log fails verification. */
export const RECEIPT_KINDS = Object.keys(KINDS) as readonly ReceiptKind[];

/** `GET /receipts`: every entry in append order. */
export interface ReceiptLog {
  entries: ReceiptEntry[];
}

// ---------------------------------------------------------------------------------------------------
// The lifecycle client's report (§5, §6)

export interface LifecycleReport {
  /** `"typescript"` for a TypeScript client. */
  language: string;
  /** Exactly one result per selected row. */
  results: LifecycleResult[];
  /** Stdio: the spawned receiver's `GET /receipts` object verbatim. Ignored over HTTP. */
  receipts?: ReceiptLog;
  /** Uploads the SDK made itself during delivery (optional feature). */
  contentUploads?: ContentUploadConfirmation[];
}

export interface LifecycleResult {
  id: string;
  /** Missing counts as passed; any other value fails. */
  status?: string;
  /** Must equal the row's `expected`. */
  actual: LifecycleExpected | ChainExpected;
}

/** One SDK-driven upload: which delivery carried it and which fixture source it came from. */
export interface ContentUploadConfirmation {
  method: 'hooks/intercept' | 'hooks/observe';
  eventId: string;
  descriptor: ContentUploadReceipt;
  /** The fixture alias, or the receiver ref bound to it. */
  sourceRef: string;
}

// ---------------------------------------------------------------------------------------------------
// Content sources (§2): the confirmed upload bytes the client config carries

export interface ContentSource {
  /** `ref` is the fixture alias; size and digest are those of `bytes`. */
  descriptor: ContentUploadReceipt;
  /** The bytes, base64. */
  bytes: string;
}
