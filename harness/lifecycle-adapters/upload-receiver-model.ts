// What an honest lifecycle receiver answers to one upload step (LIFECYCLE-RULES §3 "Upload", §5), and
// the alias bindings an honest client keeps: pure, for the fixture simulator. Framing is judged before
// credentials (a declared size or digest that does not match the bytes is 400 whatever the token),
// then the credential (only the independent upload token is authorized: 401 otherwise), then the
// bytes are stored and confirmed (201). Only a 201 binds or rebinds an alias.

import { UPLOAD_TOKEN_ENV } from '../auth/constants.ts';
import { sha256Hex } from '../protocol/sha256-hex.ts';
import { uploadStepBytes } from './content-sources.ts';
import type { UploadStep } from './scenario-types.ts';

export type UploadOutcome =
  | { status: 201; reason: 'stored' }
  | { status: 400; reason: 'size mismatch' | 'digest mismatch' }
  | { status: 401; reason: 'credential refused' };

/** The bytes an upload step really sends, with their true size and digest. */
export interface UploadBytes {
  bytes: Buffer;
  size: number;
  sha256: string;
}

export function uploadBytes(step: UploadStep): UploadBytes | undefined {
  const bytes = uploadStepBytes(step);
  return bytes === undefined ? undefined : { bytes, size: bytes.length, sha256: sha256Hex(bytes) };
}

/**
 * The receiver's status for `step`, whose bytes are `sent`. The client config's default upload uses
 * the authorized token; a step's own `upload` replaces it and names its token variable.
 */
export function receiverUploadOutcome(step: UploadStep, sent: UploadBytes): UploadOutcome {
  if (step.size !== sent.size) return { status: 400, reason: 'size mismatch' };
  if (step.sha256 !== sent.sha256) return { status: 400, reason: 'digest mismatch' };
  const tokenEnv = step.upload?.auth.tokenEnv ?? UPLOAD_TOKEN_ENV;
  if (tokenEnv !== UPLOAD_TOKEN_ENV) return { status: 401, reason: 'credential refused' };
  return { status: 201, reason: 'stored' };
}

/** What one alias is bound to after a 201. */
export interface AliasBinding {
  /** A model of the receiver-assigned ref: one per distinct content (identical bytes may share one). */
  ref: string;
  size: number;
  sha256: string;
}

/**
 * The receiver's stored content and the client's alias table. Refs are modelled as one per distinct
 * digest, the "identical bytes may share one" choice; changed bytes always get a new ref, which is
 * the property the verifier relies on.
 */
export class UploadLedger {
  private readonly refByDigest = new Map<string, string>();
  private readonly aliases = new Map<string, AliasBinding>();

  /** Records a confirmed upload under `alias` and returns its binding (a rebind replaces the old one). */
  confirm(alias: string, sent: UploadBytes): { binding: AliasBinding; sharedRef: boolean; previous?: AliasBinding } {
    let ref = this.refByDigest.get(sent.sha256);
    const sharedRef = ref !== undefined;
    if (ref === undefined) {
      ref = `receiver-ref-${this.refByDigest.size + 1}`;
      this.refByDigest.set(sent.sha256, ref);
    }
    const previous = this.aliases.get(alias);
    const binding = { ref, size: sent.size, sha256: sent.sha256 };
    this.aliases.set(alias, binding);
    return previous === undefined ? { binding, sharedRef } : { binding, sharedRef, previous };
  }

  binding(alias: string): AliasBinding | undefined {
    return this.aliases.get(alias);
  }
}
