// The wire pieces of our lifecycle fixtures: the synthetic host's requests, content items, upload steps
// and the step sequences rows share. Deterministic (no clock, no randomness); every value is ours.

import type { JsonObject } from '../../protocol/json.ts';
import type { InterceptCapabilities, InterceptEvent, InterceptRequest } from '../../protocol/messages.ts';
import type { LifecycleStep, UploadStep } from '../../lifecycle-adapters/scenario-types.ts';
import { sha256Hex } from '../../protocol/sha256-hex.ts';
import { UNAUTHORIZED_UPLOAD_TOKEN_ENV } from '../../auth/constants.ts';

const HOST_SOURCE = 'urn:ahp-conformance:lifecycle-host';
const HOST_TIME = '2026-03-02T09:30:00Z';
const SESSION = { id: 'lifecycle-session' };

/** The tool input every tool.before row proposes. */
export const PROPOSED_INPUT: JsonObject = { path: 'notes/plan.md', text: 'first draft' };

/** Everything a tool.before boundary may advertise: flow stop only, input modify both ways, inject now or next turn. */
export const FULL_TOOL_CAPABILITIES: InterceptCapabilities = {
  effects: ['allow', 'deny', 'ask', 'modify', 'message', 'return', 'flow', 'inject'],
  modify: { input: { replace: true, merge: true } },
  flow: { operations: ['stop'] },
  inject: { context: { append: true, deliverAt: ['now', 'next_turn'] } },
};

/** What chain requests advertise: no return and no inject, so a reply carrying either one fails. */
export const CHAIN_TOOL_CAPABILITIES: InterceptCapabilities = {
  effects: ['allow', 'deny', 'ask', 'modify', 'message', 'flow'],
  modify: { input: { replace: true, merge: true } },
  flow: { operations: ['stop'] },
};

/**
 * The id of request `key` of row `rowId`: both its JSON-RPC id and its `params.event.id`, which the
 * spec requires to be equal (base/events.md; the semantic lint's events.md#jsonrpc-id-equals-event-id).
 * Unique across the file because row ids are.
 */
export function requestId(rowId: string, key: string): string {
  return `${rowId}:${key}`;
}

export interface ToolRequestOptions {
  input?: JsonObject;
  items?: JsonObject[];
  capabilities?: InterceptCapabilities;
}

export function toolBeforeRequest(rowId: string, key: string, options: ToolRequestOptions = {}): InterceptRequest {
  const id = requestId(rowId, key);
  const event: InterceptEvent = {
    ...eventHeader(id, 'tool.before'),
    call: { id: `${rowId}:call-${key}` },
    path: 'native',
    tool: { origin: 'native', name: 'files.write', kind: 'edit', input: options.input ?? PROPOSED_INPUT },
  };
  if (options.items !== undefined) event.items = options.items;
  return interceptEnvelope(event, options.capabilities ?? FULL_TOOL_CAPABILITIES);
}

/** Identity, origin and time every event of the synthetic host shares. */
function eventHeader(id: string, type: string): InterceptEvent {
  return { id, source: HOST_SOURCE, type, time: HOST_TIME, session: SESSION };
}

/** Every fixture request starts from no permission and no candidate; its JSON-RPC id is its event id. */
function interceptEnvelope(event: InterceptEvent, capabilities: InterceptCapabilities): InterceptRequest {
  return {
    jsonrpc: '2.0',
    id: event.id,
    method: 'hooks/intercept',
    params: { protocolVersion: 'draft', event, capabilities, state: { permission: 'none', candidate: null } },
  };
}

/** A turn.finish.before request with one continuation left: the only boundary where `flow: continue` is valid. */
export function turnFinishRequest(rowId: string, key: string): InterceptRequest {
  const event: InterceptEvent = {
    ...eventHeader(requestId(rowId, key), 'turn.finish.before'),
    turn: { id: `${rowId}:turn-${key}` },
    outcome: 'completed',
    continuationCount: 0,
    items: [
      {
        id: `${rowId}:answer`,
        role: 'assistant',
        parts: [{ id: `${rowId}:answer-text`, kind: 'text', mediaType: 'text/plain', selection: 'body', text: 'The plan is drafted.' }],
      },
    ],
  };
  return interceptEnvelope(event, {
    effects: ['flow', 'message'],
    flow: { operations: ['stop', 'continue'], remainingContinuations: 1, continuationCount: 0, maxContinuations: 1 },
  });
}

// ----- content items -------------------------------------------------------------------------------

export function attachmentBody(id: string, alias: string, mediaType = 'application/octet-stream', category?: string): JsonObject {
  const item: JsonObject = { id, kind: 'attachment', mediaType, selection: 'body', body: { ref: alias } };
  if (category !== undefined) item.category = category;
  return item;
}

/** The same logical item as a subscription without content permission sees it. */
export function attachmentGap(id: string, mediaType = 'application/octet-stream'): JsonObject {
  return { id, kind: 'attachment', mediaType, selection: 'body', gap: { reason: 'no content permission for this subscription', path: `items.${id}` } };
}

/** The same logical item with metadata only (size and digest, no reference). */
export function attachmentMetadata(id: string, bytes: Buffer, mediaType = 'application/octet-stream'): JsonObject {
  return { id, kind: 'attachment', mediaType, selection: 'metadata', size: bytes.length, sha256: sha256Hex(bytes) };
}

export function textMetadata(id: string): JsonObject {
  return { id, kind: 'text', mediaType: 'text/plain', selection: 'metadata' };
}

// ----- uploads -------------------------------------------------------------------------------------

export interface UploadOptions {
  /** The local subscription label (`body` unless said otherwise). */
  subscription?: string;
  /** Declared values that differ from the bytes (receiver negatives). */
  declaredSize?: number;
  declaredSha256?: string;
  /** Upload with the well-formed token the receiver refuses. */
  unauthorized?: boolean;
}

export function uploadStep(alias: string, bytes: Buffer, options: UploadOptions = {}): UploadStep {
  const step: UploadStep = {
    op: 'upload',
    subscription: options.subscription ?? 'body',
    ref: alias,
    bodyBase64: bytes.toString('base64'),
    size: options.declaredSize ?? bytes.length,
    sha256: options.declaredSha256 ?? sha256Hex(bytes),
  };
  if (options.unauthorized === true) {
    step.upload = { auth: { type: 'bearer', tokenEnv: UNAUTHORIZED_UPLOAD_TOKEN_ENV }, timeoutMs: 5000, maxBytes: 1048576 };
  }
  return step;
}

// ----- step sequences ------------------------------------------------------------------------------

/** A step in words (`send a`, `replay a again`, `wait a 2`, `receive a`, ...) that `script` parses. */
export type StepWords = string;

const KEYED_OPS = new Set(['release', 'cancel', 'accept', 'failOpen']);

/** Parses one step in words; anything else is a programming error in a row, so it throws. */
function parseStep(words: StepWords): LifecycleStep {
  const [op, first, second, ...rest] = words.trim().split(/\s+/);
  const wrong = (): never => {
    throw new Error(`lifecycle step notation: cannot read ${JSON.stringify(words)}`);
  };
  if (first === undefined || rest.length > 0) return wrong();
  switch (op) {
    case 'send':
      return { op: 'send', key: first, slot: second ?? first };
    case 'replay':
      // A raw duplicate attempt outside SDK dispatch; its reply still goes to the SDK.
      return { op: 'send', key: first, slot: second ?? wrong(), bypassSDK: true };
    case 'wait':
      if (second !== undefined && !/^[1-9][0-9]*$/.test(second)) return wrong();
      return { op: 'wait', key: first, count: second === undefined ? 1 : Number(second) };
    case 'receive':
      return second === undefined ? { op: 'receive', slot: first } : wrong();
    default:
      if (op === undefined || !KEYED_OPS.has(op) || second !== undefined) return wrong();
      return { op, key: first } as LifecycleStep;
  }
}

/**
 * A step list from words and ready-made steps: `script('send a', 'wait a', 'cancel a', ...publish('b'),
 * uploadStep(...))`. `send a` uses slot `a`; `replay a again` is a raw duplicate attempt in slot
 * `again`; `wait a` waits for one attempt.
 */
export function script(...parts: Array<StepWords | LifecycleStep | LifecycleStep[]>): LifecycleStep[] {
  return parts.flatMap((part) => (typeof part === 'string' ? [parseStep(part)] : Array.isArray(part) ? part : [part]));
}

/** Send request `key`, rendezvous with its receipt, release it and stage its reply (slot named after the key). */
export function sendAndStage(key: string): LifecycleStep[] {
  return script(`send ${key}`, `wait ${key}`, `release ${key}`, `receive ${key}`);
}

/** sendAndStage, then accept: an ordinary publication. */
export function publish(key: string): LifecycleStep[] {
  return [...sendAndStage(key), { op: 'accept', key }];
}
