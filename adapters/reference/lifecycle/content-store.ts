// The upload receiver's immutable content (content-upload.md, LIFECYCLE-RULES §3): bytes stored
// under receiver-assigned opaque refs inside a credential-derived scope. A ref is bound to its
// bytes once, for good: identical bytes uploaded again in the same scope get the same ref (which
// the binding allows), changed bytes always get a fresh one, and nothing ever rebinds a ref. Refs
// are random, so they say nothing about the content, the caller or the order of uploads.

import { randomBytes } from 'node:crypto';

import { sha256Hex } from '../../../harness/protocol/sha256-hex.ts';
import type { ContentUploadReceipt } from '../../../harness/protocol/messages.ts';

interface StoredContent {
  readonly bytes: Buffer;
  readonly receipt: ContentUploadReceipt;
}

/** The scope an upload credential authorises: derived from the verified credential, never from the request. */
export function scopeOfCredential(token: string): string {
  return sha256Hex(Buffer.from(`ahp-upload-scope\0${token}`, 'utf8'));
}

export class ContentStore {
  /** scope → ref → content. */
  private readonly byRef = new Map<string, Map<string, StoredContent>>();
  /** scope → `<size>:<sha256>` → ref, so identical bytes share their ref. */
  private readonly byDigest = new Map<string, Map<string, string>>();

  /** Stores a private copy of `bytes` (unless identical bytes are already there) and returns the receipt. */
  store(scope: string, bytes: Uint8Array): ContentUploadReceipt {
    const sha256 = sha256Hex(bytes);
    const digestKey = `${bytes.length}:${sha256}`;
    const digests = this.scopeMap(this.byDigest, scope);
    const refs = this.scopeMap(this.byRef, scope);
    const known = digests.get(digestKey);
    if (known !== undefined) return { ...refs.get(known)!.receipt };
    const ref = `content-${randomBytes(12).toString('hex')}`;
    const receipt: ContentUploadReceipt = { ref, size: bytes.length, sha256 };
    refs.set(ref, { bytes: Buffer.from(bytes), receipt });
    digests.set(digestKey, ref);
    return { ...receipt };
  }

  /** Whether `ref` names stored bytes in `scope` (refs of other scopes do not exist here). */
  has(scope: string, ref: string): boolean {
    return this.byRef.get(scope)?.has(ref) ?? false;
  }

  private scopeMap<V>(maps: Map<string, Map<string, V>>, scope: string): Map<string, V> {
    let map = maps.get(scope);
    if (map === undefined) maps.set(scope, (map = new Map()));
    return map;
  }
}
