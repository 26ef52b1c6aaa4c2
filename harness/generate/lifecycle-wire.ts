// The wire pieces of our lifecycle fixtures: the synthetic host's requests, content items, upload steps
// and the step sequences rows share. Deterministic (no clock, no randomness); every value is ours.

import { createHash } from 'node:crypto';

import type { JsonObject } from '../protocol/json.ts';
import type { InterceptCapabilities, InterceptEvent, InterceptRequest } from '../protocol/messages.ts';
import type { LifecycleStep, UploadStep } from '../lifecycle/scenario-types.ts';
import { UNAUTHORIZED_UPLOAD_TOKEN_ENV } from '../lifecycle/upload-receiver-model.ts';

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

/** JSON-RPC id and event id of request `key` of row `rowId`; they differ on purpose (correlation is by JSON-RPC id). */
export function requestIds(rowId: string, key: string): { rpc: string; event: string } {
  return { rpc: `${rowId}:rpc-${key}`, event: `${rowId}:event-${key}` };
}

export interface ToolRequestOptions {
  input?: JsonObject;
  items?: JsonObject[];
  capabilities?: InterceptCapabilities;
}

export function toolBeforeRequest(rowId: string, key: string, options: ToolRequestOptions = {}): InterceptRequest {
  const ids = requestIds(rowId, key);
  const event: InterceptEvent = {
    id: ids.event,
    source: HOST_SOURCE,
    type: 'tool.before',
    time: HOST_TIME,
    session: SESSION,
    call: { id: `${rowId}:call-${key}` },
    path: 'native',
    tool: { origin: 'native', name: 'files.write', kind: 'edit', input: options.input ?? PROPOSED_INPUT },
  };
  if (options.items !== undefined) event.items = options.items;
  return {
    jsonrpc: '2.0',
    id: ids.rpc,
    method: 'hooks/intercept',
    params: {
      protocolVersion: 'draft',
      event,
      capabilities: options.capabilities ?? FULL_TOOL_CAPABILITIES,
      state: { permission: 'none', candidate: null },
    },
  };
}

/** A turn.finish.before request with one continuation left: the only boundary where `flow: continue` is valid. */
export function turnFinishRequest(rowId: string, key: string): InterceptRequest {
  const ids = requestIds(rowId, key);
  const event: InterceptEvent = {
    id: ids.event,
    source: HOST_SOURCE,
    type: 'turn.finish.before',
    time: HOST_TIME,
    session: SESSION,
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
  return {
    jsonrpc: '2.0',
    id: ids.rpc,
    method: 'hooks/intercept',
    params: {
      protocolVersion: 'draft',
      event,
      capabilities: {
        effects: ['flow', 'message'],
        flow: { operations: ['stop', 'continue'], remainingContinuations: 1, continuationCount: 0, maxContinuations: 1 },
      },
      state: { permission: 'none', candidate: null },
    },
  };
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
  return { id, kind: 'attachment', mediaType, selection: 'metadata', size: bytes.length, sha256: sha256(bytes) };
}

export function textMetadata(id: string): JsonObject {
  return { id, kind: 'text', mediaType: 'text/plain', selection: 'metadata' };
}

// ----- uploads -------------------------------------------------------------------------------------

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

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
    sha256: options.declaredSha256 ?? sha256(bytes),
  };
  if (options.unauthorized === true) {
    step.upload = { auth: { type: 'bearer', tokenEnv: UNAUTHORIZED_UPLOAD_TOKEN_ENV }, timeoutMs: 5000, maxBytes: 1048576 };
  }
  return step;
}

// ----- step sequences ------------------------------------------------------------------------------

/** Send request `key`, rendezvous with its receipt, release it and stage its reply (slot named after the key). */
export function sendAndStage(key: string): LifecycleStep[] {
  return [
    { op: 'send', key, slot: key },
    { op: 'wait', key, count: 1 },
    { op: 'release', key },
    { op: 'receive', slot: key },
  ];
}

/** sendAndStage, then accept: an ordinary publication. */
export function publish(key: string): LifecycleStep[] {
  return [...sendAndStage(key), { op: 'accept', key }];
}
