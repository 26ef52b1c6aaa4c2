// The rule table of the semantic lint: every normative statement of the draft spec that binds what
// our fixtures make a client send and that a JSON Schema cannot (or does not) express. A rule is
// named by its requirement ID where the spec gives one, else by `<document>#<section-slug>`. Each
// summary is our own wording; `source` says where the statement lives in the spec. The README's
// rule table is written from this list (a test keeps the two in step).

import { EFFECT_TYPES } from '../messages.ts';

export interface SemanticRule {
  /** A requirement ID (`AHP-EXT-001`) or `document.md#slug` where the spec gives none. */
  id: string;
  /** The spec file and section the statement comes from. */
  source: string;
  /** What a message must do, in one sentence. */
  summary: string;
}

export const SEMANTIC_RULES = {
  jsonRpcObject: {
    id: 'AHP-RPC-001',
    source: 'base/versioning.md, JSON-RPC',
    summary: 'Every message is one JSON-RPC 2.0 object (`jsonrpc: "2.0"`); a batch array is not a message.',
  },
  requestOrNotification: {
    id: 'AHP-RPC-002',
    source: 'base/versioning.md, JSON-RPC; base/events.md, Observe notification',
    summary: 'An interception is a `hooks/intercept` request with a string or number `id`; an observation is a `hooks/observe` notification, which has no `id` member.',
  },
  idEqualsEventId: {
    id: 'events.md#jsonrpc-id-equals-event-id',
    source: 'base/events.md, Intercept request',
    summary: 'The JSON-RPC `id` of a `hooks/intercept` request equals `params.event.id`.',
  },
  protocolVersion: {
    id: 'AHP-VER-001',
    source: 'base/versioning.md, Versioning',
    summary: 'Every request and notification carries `params.protocolVersion`, the snapshot identifier (`draft`, or a `YYYY-MM-DD` release), and one scenario file speaks one snapshot.',
  },
  capabilitiesEffects: {
    id: 'AHP-CAP-002',
    source: 'base/capabilities.md, Capabilities',
    summary: 'Every `hooks/intercept` request carries `params.capabilities.effects`, an array of effect names.',
  },
  optionBlocksMatchEffects: {
    id: 'capability-auth.md#per-request-advertisements',
    source: 'capability-auth.md, Capabilities (per-request advertisements)',
    summary: 'The `modify`, `flow` and `inject` option blocks of an advertisement appear exactly when their effect is advertised; every advertised modify target enables `replace` or `merge`; target sets, flow operations and injection delivery choices are not empty.',
  },
  experimentalEffects: {
    id: 'capabilities.md#experimental-effects',
    source: 'base/capabilities.md, Capabilities',
    summary: 'An advertised effect that is not a core effect uses a reverse-DNS name.',
  },
  eventIdUnique: {
    id: 'events.md#event-id-unique',
    source: 'base/events.md, Common event fields; execution-payloads.md, Identity (event identity is source-scoped)',
    summary: 'Distinct events of one scenario file (one harness run) never share an event `id` within one `source`; only deliveries of the same event (a retry, a chain call, its observation) repeat it.',
  },
  sameLogicalEvent: {
    id: 'observation-disposition.md#same-logical-event',
    source: 'observation-disposition.md; base/composition.md, Interceptor order',
    summary: "Every delivery of one boundary (each serial intercept call of a chain and each observation after settlement) carries that boundary's event `id` and `source`.",
  },
  sourceNotSecret: {
    id: 'events.md#source-not-secret',
    source: 'base/events.md, Common event fields',
    summary: '`event.source` carries no credential: no URI user info, no secret-named query parameter, no token-shaped value (JWT, common API-key prefixes).',
  },
  extensionKeys: {
    id: 'AHP-EXT-001',
    source: 'base/events.md, Extensions',
    summary: 'Every key of an `extensions` object (of the params or the event) is a reverse-DNS name.',
  },
  attachmentMediaType: {
    id: 'AHP-CONTENT-002',
    source: 'content-upload.md, canonical content',
    summary: 'An attachment is never text or JSON: its `mediaType` is not `text/*`, `application/json` or a `+json` type.',
  },
  selectionWithoutContent: {
    id: 'content-upload.md#metadata-and-omit-selection',
    source: 'content-upload.md, canonical content',
    summary: 'A content part selected as `metadata` or `omit` carries no `text` and no `body`.',
  },
} as const satisfies Record<string, SemanticRule>;

export type SemanticRuleKey = keyof typeof SEMANTIC_RULES;
export type SemanticRuleId = (typeof SEMANTIC_RULES)[SemanticRuleKey]['id'];

/** The core effect names of the draft; any other advertised name is an experimental extension effect. */
export const CORE_EFFECTS: ReadonlySet<string> = new Set(EFFECT_TYPES);

/** A reverse-DNS name as the extensions schema spells it: at least two dot-separated labels. */
export const REVERSE_DNS = /^(?:[A-Za-z][A-Za-z0-9_-]*\.)+[A-Za-z][A-Za-z0-9_-]*$/;
