// The elicitation family's wire shapes as the self-tests of the reference adapter build them
// (ELICITATION-RULES §6): the F/A/U bodies, their exact bytes, and hooks/intercept envelopes for
// either binding. The harness's own case model lives in harness/families/elicitation/; this is only
// what the adapter's tests need to speak to it directly.

import { createHash } from 'node:crypto';

import type { JsonObject, JsonValue } from '../../../harness/protocol/json.ts';

export type Binding = 'upload' | 'inline';
export type Stage = 'request' | 'result';
export type Selection = 'body' | 'metadata' | 'omit';

export interface Descriptor {
  ref: string;
  size: number;
  sha256: string;
}

export const FORM_REQUEST: JsonObject = {
  mode: 'form',
  message: 'Choose café ☕',
  requestedSchema: {
    type: 'object',
    properties: { answer: { type: 'string' }, tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } },
    required: ['answer'],
  },
  _meta: { trace: 'unchanged' },
};

export const FORM_ACCEPT: JsonObject = { action: 'accept', content: { answer: 'café', tags: ['a', 'b'], fraction: 1.25 }, _meta: { keep: { nested: ['x', 1] } } };

export const URL_REQUEST: JsonObject = {
  mode: 'url',
  message: 'Authorize externally',
  url: 'https://example.test/authorize?request=42',
  elicitationId: 'external-42',
  _meta: { flow: 'unchanged' },
};

/** UTF-8 JSON with a one-space indent and a trailing newline. */
export function bodyBytes(value: JsonValue): Buffer {
  return Buffer.from(`${JSON.stringify(value, null, 1)}\n`, 'utf8');
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function descriptorOf(ref: string, bytes: Buffer): Descriptor {
  return { ref, size: bytes.length, sha256: sha256(bytes) };
}

export interface EnvelopeSpec {
  binding: Binding;
  stage: Stage;
  /** Case name: event ids are `<name>:<stage>`, the session id is the name. */
  name: string;
  selection?: Selection;
  /** Upload binding, body selection: the descriptor. */
  body?: Descriptor;
  /** Inline binding, body selection: the text. */
  text?: string;
  mode?: 'form' | 'url';
  action?: 'accept' | 'decline' | 'cancel';
  capabilities?: JsonObject;
}

export function envelope(spec: EnvelopeSpec): JsonObject {
  const { binding, stage, name } = spec;
  const selection = spec.selection ?? 'body';
  const id = `${name}:${stage}`;
  const elicitation: JsonObject = { server: 'asserted-not-authenticated', mode: spec.mode ?? 'form' };
  if (stage === 'result') elicitation['action'] = spec.action ?? 'accept';
  if (selection !== 'omit') {
    const item: JsonObject =
      binding === 'upload'
        ? { id: `${id}:item`, kind: `elicitation.${stage}`, mediaType: 'application/json', selection }
        : { id: `${id}:item`, kind: 'text', mediaType: 'text/plain', selection };
    if (selection === 'body' && spec.body !== undefined) item['body'] = { ...spec.body };
    if (selection === 'body' && spec.text !== undefined) item['text'] = spec.text;
    elicitation[stage] = item;
  }
  const event: JsonObject = {
    id,
    source: 'urn:spoofed:human',
    time: '2026-09-15T12:00:00Z',
    type: `user.elicitation.${stage}`,
    session: { id: name },
    elicitation,
  };
  if (stage === 'result') event['parentEventId'] = `${name}:request`;
  return { jsonrpc: '2.0', id, method: 'hooks/intercept', params: { protocolVersion: 'draft', event, capabilities: spec.capabilities ?? { effects: [] } } };
}

/** The event object inside an envelope, for mutations. */
export function eventOf(message: JsonObject): JsonObject {
  return (message['params'] as JsonObject)['event'] as JsonObject;
}

/** The `request`/`result` item inside an envelope, for mutations. */
export function itemOf(message: JsonObject, stage: Stage): JsonObject {
  return (eventOf(message)['elicitation'] as JsonObject)[stage] as JsonObject;
}

/** The answer every accepted intercept gets. */
export function acceptedResponse(id: string): JsonObject {
  return { jsonrpc: '2.0', id, result: { protocolVersion: 'draft', effects: [] } };
}
