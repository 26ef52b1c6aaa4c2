// The receiver's uploaded bodies: exact octets under refs it allocates. Every upload gets a fresh
// random ref, also for bytes it already holds (the rules allow identical bytes to share a ref but
// never require it), and a ref is never rebound, so a confirmed ref always names the bytes its
// receipt describes.

import { randomBytes } from 'node:crypto';

import type { ContentUploadReceipt } from '../../../harness/protocol/messages.ts';
import { sha256Hex } from '../../../harness/protocol/sha256-hex.ts';

export interface StoredUpload {
  readonly bytes: Buffer;
  readonly receipt: ContentUploadReceipt;
}

export class UploadStore {
  private readonly byRef = new Map<string, StoredUpload>();

  /** Keeps a private copy of `bytes` and returns its receipt. */
  store(bytes: Uint8Array): ContentUploadReceipt {
    const receipt: ContentUploadReceipt = { ref: `upload-${randomBytes(12).toString('hex')}`, size: bytes.length, sha256: sha256Hex(bytes) };
    this.byRef.set(receipt.ref, { bytes: Buffer.from(bytes), receipt });
    return { ...receipt };
  }

  get(ref: string): StoredUpload | undefined {
    return this.byRef.get(ref);
  }
}
