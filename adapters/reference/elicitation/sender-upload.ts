// The sender SDK's upload API (content-upload.md framing): POST the exact octets to
// `<endpoint>/upload` with the upload bearer, `application/octet-stream`, their SHA-256 in
// AHP-Content-SHA256 and an exact Content-Length; the caller supplies neither a ref nor a
// subscription header. The receipt of a 201 is checked against the bytes before anyone uses it.

import type { ContentUploadReceipt } from '../../../harness/protocol/messages.ts';
import { isJsonObject } from '../../../harness/protocol/json.ts';
import { sha256Hex } from '../../../harness/protocol/sha256-hex.ts';
import { post, type PostAnswer } from './http-post.ts';

export const STEP_TIMEOUT_MS = 25_000;

export function sdkUpload(endpoint: string, uploadToken: string | undefined, bytes: Buffer, sha256 = sha256Hex(bytes)): Promise<PostAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/octet-stream', 'ahp-content-sha256': sha256 };
  if (uploadToken !== undefined) headers['authorization'] = `Bearer ${uploadToken}`;
  return post(`${endpoint}/upload`, headers, bytes, STEP_TIMEOUT_MS);
}

/** The receipt of a 201 when it describes exactly `bytes`, else undefined. */
export function confirmedReceipt(answer: PostAnswer, bytes: Buffer): ContentUploadReceipt | undefined {
  if (answer.status !== 201) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(answer.text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(value) || Object.keys(value).length !== 3) return undefined;
  const { ref, size, sha256 } = value;
  if (typeof ref !== 'string' || ref === '' || size !== bytes.length || sha256 !== sha256Hex(bytes)) return undefined;
  return { ref, size: bytes.length, sha256 };
}
