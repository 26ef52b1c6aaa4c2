// The catalogue runner family's data model (CATALOGUE-RULES.md): scenario files of notify, rawNotify
// and register steps, the receipts a catalogue receiver records and the report a catalogue client
// writes. Shared by the catalogue loader, the lineage tracker, the registration evaluator, our
// fixture generator and the verifier. The closed format schema
// fixtures/catalogue-scenario-file.schema.json is the authority on what a file may contain; these
// types describe what code may read after loading.

import type { JsonObject, JsonValue } from '../../protocol/json.ts';

// ---------------------------------------------------------------------------------------------------
// Files and rows (§3)

export interface CatalogueScenarioFile {
  version: 1;
  /** The protocol's files say `"catalogue"`; the only suite signal on the wire is the adapters' config. */
  suite?: 'catalogue';
  scenarios: CatalogueScenario[];
}

export const CATALOGUE_CATEGORIES = ['execution', 'lineage', 'registration'] as const;
export type CatalogueCategory = (typeof CATALOGUE_CATEGORIES)[number];

export interface CatalogueScenario {
  /** Unique within the file. */
  id: string;
  category: CatalogueCategory;
  /** Run in order; rows run in file order and share one connection, one receiver and one lineage. */
  steps: CatalogueStep[];
  expected: CatalogueExpected;
  /** Always empty: they exist so that lifecycle loaders can read the file, never for interceptions. */
  requests: Record<string, never>;
  responses: Record<string, never>;
  /** Our own fixtures say what a row shows and tag what it proves; the protocol's files do not. */
  description?: string;
  tags?: string[];
}

// ---------------------------------------------------------------------------------------------------
// Steps (§3, §5): a discriminated union on `op`

export const CATALOGUE_STEP_OPS = ['notify', 'rawNotify', 'register'] as const;
export type CatalogueStepOp = (typeof CATALOGUE_STEP_OPS)[number];

/** Send `message` through the SDK's public observe path (SDK validation and client lineage apply). */
export interface NotifyStep {
  op: 'notify';
  message: JsonObject;
}

/** Send the same bytes outside SDK dispatch: the SDK would refuse them, the receiver judges them. */
export interface RawNotifyStep {
  op: 'rawNotify';
  message: JsonObject;
}

/** Evaluate a registration locally against the discovered manifest (§5.1); nothing goes on the wire. */
export interface RegisterStep {
  op: 'register';
  /** Kept exactly as written: it may be deliberately invalid (even not an object). */
  registration: JsonValue;
  requirements: RegistrationRequirement[];
  context: RegistrationContext;
}

export type CatalogueStep = NotifyStep | RawNotifyStep | RegisterStep;
export type MessageStep = NotifyStep | RawNotifyStep;

export function isMessageStep(step: CatalogueStep): step is MessageStep {
  return step.op === 'notify' || step.op === 'rawNotify';
}

/** What the host needs from the registration to accept it: a subscription for `(event, mode)` with these effects and modify operations. */
export interface RegistrationRequirement {
  event: string;
  mode: 'intercept' | 'observe';
  effects?: string[];
  /** target → operation → whether the operation is needed (only `true` asks for anything). */
  modify?: Record<string, Record<string, boolean>>;
}

/** The host's trusted local context: whether a user can be asked, and the only place credentials come from. */
export interface RegistrationContext {
  interactive: boolean;
  environment: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------------
// Expected outcomes (§3)

export interface CatalogueExpected {
  /** One message per notify/rawNotify step, in step order, exactly as the steps hold them. */
  sent: JsonObject[];
  /** One outcome per register step. */
  registrations: RegistrationOutcome[];
  /** Verifier-only: what the receiver does with each sent message. Never part of a client's `actual`. */
  deliveries: Delivery[];
}

// Plain object types (not interfaces) so that outcomes are JSON values as they are.
export type RegistrationOutcome = { accepted: boolean };

export type DeliveryErrorKind = 'lineage' | 'schema';

export type Delivery = {
  accepted: boolean;
  /** `null` exactly when accepted. */
  errorKind: DeliveryErrorKind | null;
};

/** What a client reports per row: `expected` without `deliveries`. */
export type CatalogueActual = {
  sent: JsonObject[];
  registrations: RegistrationOutcome[];
};

export function expectedActual(expected: CatalogueExpected): CatalogueActual {
  return { sent: expected.sent, registrations: expected.registrations };
}

/** The messages a row sends, in step order. */
export function sentMessages(row: Pick<CatalogueScenario, 'steps'>): JsonObject[] {
  return row.steps.filter(isMessageStep).map((step) => step.message);
}

// ---------------------------------------------------------------------------------------------------
// Receipts (§4) and report (§5)

/** The receiver's one discovery exchange. */
export interface DiscoveryEntry {
  kind: 'discovery';
  request: JsonObject;
  response: JsonObject;
}

/** A notification the receiver accepted: `event` is `message.params.event`; `message` as received. */
export interface ObservedEntry {
  kind: 'observed';
  eventId: unknown;
  event: unknown;
  message: unknown;
}

/** A notification the receiver refused: `eventId` is `params.event.id` or null. */
export interface RejectedEntry {
  kind: 'rejected';
  eventId: unknown;
  message: unknown;
  errorKind: DeliveryErrorKind;
}

export type CatalogueReceipt = DiscoveryEntry | ObservedEntry | RejectedEntry;

/** The client's report. `receipts` only over stdio (the child's `GET /receipts`). */
export interface CatalogueReport {
  language: string;
  discovery: JsonObject;
  results: Array<{ id: string; status?: 'passed'; actual: CatalogueActual }>;
  receipts?: { entries: CatalogueReceipt[] };
}
