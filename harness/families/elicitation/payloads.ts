// The MCP bodies the cases are built from (rules §6: F, A, U; §7.2: S) and the one byte encoding of a
// body: JSON with a one-space indent, non-ASCII kept as UTF-8, plus a trailing LF. Any fixed encoding
// would do (the rules only ask a runner to be self-consistent); this one matches the protocol's runner
// so that a body the SDKs already saw there reads the same here.

import type { JsonObject, JsonValue } from '../../protocol/json.ts';
import { cloneJson } from '../../protocol/json.ts';
import { sha256Hex } from '../../protocol/sha256-hex.ts';
import type { UploadDescriptor } from './case-types.ts';

/** The form request (F): a string answer and a multi-select of `a`/`b`. */
export function formRequest(): JsonObject {
  return {
    mode: 'form',
    message: 'Choose café ☕',
    requestedSchema: {
      type: 'object',
      properties: { answer: { type: 'string' }, tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } },
      required: ['answer'],
    },
    _meta: { trace: 'unchanged' },
  };
}

/** The accepted form result (A): an undeclared `fraction` field rides along and must be allowed. */
export function acceptResult(): JsonObject {
  return { action: 'accept', content: { answer: 'café', tags: ['a', 'b'], fraction: 1.25 }, _meta: { keep: { nested: ['x', 1] } } };
}

/** The URL request (U). */
export function urlRequest(): JsonObject {
  return {
    mode: 'url',
    message: 'Authorize externally',
    url: 'https://example.test/authorize?request=42',
    elicitationId: 'external-42',
    _meta: { flow: 'unchanged' },
  };
}

/** The value an atomic `return` stages (S). */
export function returnedResult(): JsonObject {
  return { action: 'accept', content: { answer: 'returned by hook', tags: ['b'] }, _meta: { preserved: true } };
}

/** A copy of `value` with `change` applied, so that case builders never share nested objects. */
export function edited<T extends JsonValue>(value: T, change: (copy: T) => void): T {
  const copy = cloneJson(value);
  change(copy);
  return copy;
}

/** The octets of a body as every case sends them. */
export function bodyOctets(value: JsonValue): Buffer {
  return Buffer.from(`${JSON.stringify(value, null, 1)}\n`, 'utf8');
}

export function toBase64(bytes: Uint8Array | string): string {
  return Buffer.from(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes).toString('base64');
}

export function fromBase64(text: string): Buffer {
  return Buffer.from(text, 'base64');
}

/** `{ref, size, sha256}` of `bytes` under `ref`. */
export function descriptorOf(ref: string, bytes: Uint8Array): UploadDescriptor {
  return { ref, size: bytes.length, sha256: sha256Hex(bytes) };
}

/** The sha256 a `bad-digest` case declares. */
export const ZERO_DIGEST = '0'.repeat(64);
