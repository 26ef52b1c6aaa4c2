// What an event's `request`/`result` item makes available: its body octets (body selection) or only
// that it was selected as metadata or omitted. Selected bodies fail closed: a gap, an unknown ref or
// a size/SHA-256 that disagrees with the stored octets is a refusal, never an empty body.

import { sha256Hex } from '../../../harness/protocol/sha256-hex.ts';
import { isJsonObject, type JsonObject } from '../../../harness/protocol/json.ts';
import type { ElicitationBinding } from './binding.ts';
import type { UploadStore } from './upload-store.ts';

export type Selection = 'body' | 'metadata' | 'omit';

export type ItemView = { selection: 'body'; bytes: Buffer } | { selection: 'metadata' | 'omit' };

export type BodyRead = { ok: true; view: ItemView } | { ok: false; reason: string };

/** Reads an (envelope-validated) item; an absent item is an omitted one. */
export type BodyReader = (item: JsonObject | undefined) => BodyRead;

/** Where the bytes of a selected upload-binding body come from: the receiver's store, or a row's uploads. */
export type UploadLookup = (ref: string) => Buffer | undefined;

export function storeLookup(store: UploadStore): UploadLookup {
  return (ref) => store.get(ref)?.bytes;
}

export function bodyReader(binding: ElicitationBinding, lookup: UploadLookup): BodyReader {
  return (item) => {
    if (item === undefined) return { ok: true, view: { selection: 'omit' } };
    const selection = item['selection'];
    if (selection === 'metadata' || selection === 'omit') return { ok: true, view: { selection } };
    if (item['gap'] !== undefined) return { ok: false, reason: 'the selected body is a gap (fails closed)' };
    if (binding === 'inline') {
      const text = item['text'];
      return typeof text === 'string' ? { ok: true, view: { selection: 'body', bytes: Buffer.from(text, 'utf8') } } : { ok: false, reason: 'the selected text part has no text' };
    }
    const descriptor = item['body'];
    if (!isJsonObject(descriptor) || typeof descriptor['ref'] !== 'string') return { ok: false, reason: 'the selected item has no body reference' };
    const bytes = lookup(descriptor['ref']);
    if (bytes === undefined) return { ok: false, reason: 'the body reference names no uploaded content' };
    if (descriptor['size'] !== bytes.length) return { ok: false, reason: 'the body size differs from the uploaded content' };
    if (descriptor['sha256'] !== sha256Hex(bytes)) return { ok: false, reason: 'the body SHA-256 differs from the uploaded content' };
    return { ok: true, view: { selection: 'body', bytes } };
  };
}
