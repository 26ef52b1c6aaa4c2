// Response envelopes and effect constructors shared by the fixture generators (core and lifecycle),
// so that every generated file spells an effect the same way. Typed loosely on purpose: malformed
// variants are built from the same shapes.

import type { JsonObject, JsonValue } from '../protocol/json.ts';
import type { DeliverAt } from '../protocol/messages.ts';

/** A well-formed intercept response envelope for `id`. */
export function respond(id: JsonValue, effects: JsonValue[]): JsonObject {
  return { jsonrpc: '2.0', id, result: { protocolVersion: 'draft', effects } };
}

export const deny = (reason = 'blocked by fixture policy'): JsonObject => ({ type: 'deny', reason });
export const allow = (): JsonObject => ({ type: 'allow' });
export const ask = (): JsonObject => ({ type: 'ask' });
export const merge = (value: JsonValue): JsonObject => ({ type: 'modify', target: 'input', operation: 'merge', value });
export const replace = (value: JsonValue): JsonObject => ({ type: 'modify', target: 'input', operation: 'replace', value });
export const message = (text: string): JsonObject => ({ type: 'message', text });
export const ret = (value: JsonValue): JsonObject => ({ type: 'return', value });
export const stop = (reason = 'fixture stop'): JsonObject => ({ type: 'flow', operation: 'stop', reason });
export const cont = (instruction?: string): JsonObject =>
  instruction === undefined ? { type: 'flow', operation: 'continue' } : { type: 'flow', operation: 'continue', instruction };
export const inject = (deliverAt: DeliverAt, text: string): JsonObject => ({
  type: 'inject',
  target: 'context',
  operation: 'append',
  deliverAt,
  value: contextMessages(text),
});

/** A canonical one-message, one-text-part list (the only value shape inject accepts). */
export function contextMessages(text: string): JsonValue[] {
  const slug = text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return [
    {
      id: `ctx-${slug}`,
      role: 'developer',
      parts: [{ id: `ctx-${slug}-part`, kind: 'text', mediaType: 'text/plain', selection: 'body', text }],
    },
  ];
}
