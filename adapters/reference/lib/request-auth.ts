// Resource-side endpoint authentication of the reference server, applied to every AHP HTTP request
// (POST /intercept, GET/POST /capabilities) BEFORE dispatch, so a refused request is never recorded
// as a receipt. Never applied to the control server.
//
// - none: ignores whatever credentials arrive (also several Authorization fields).
// - every other mode: more than one Authorization field (rawHeaders, any case) → 401, whatever the
//   values; a single field must be `Bearer <token68>` (bearer/oauth/workload).
// - bearer: constant-time comparison with the configured token.
// - oauth/workload: an HS256 JWT verified with the configured key, issuer, audience and purpose at
//   the fixed clock (harness/auth/jwt.ts); a static bearer or the other purpose's token fails.
//   Given an allow-list (auth.ts), a valid token whose `sub` is not on it → 403.
// - mtls: the TLS layer has already refused unverified client certificates (requestCert +
//   rejectUnauthorized); given an allow-list, the verified certificate's CN must be on it (403).
//
// Results carry a short reason label, never a credential. Counters feed GET /auth-stats.

import type { IncomingMessage } from 'node:http';
import { TLSSocket } from 'node:tls';

import { secretsEqual } from '../../../harness/auth/constant-time.ts';
import type { ServerAuth } from '../auth.ts';

export type RequestAuthResult =
  | { ok: true }
  /** `status` is the HTTP status to answer with; `challenge` a WWW-Authenticate value, if any. */
  | { ok: false; status: 401 | 403; reason: string; challenge?: string };

export interface AuthStats {
  /** Requests refused by `checkRequestAuth` (401/403). */
  authRejections: number;
  /** TLS handshakes on the AHP endpoint that failed (mtls: above all no or an unverifiable client certificate). */
  tlsRejections: number;
}

export function newAuthStats(): AuthStats {
  return { authRejections: 0, tlsRejections: 0 };
}

const TOKEN68 = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const CHALLENGE = 'Bearer realm="ahp"';

function unauthorized(reason: string, error: 'invalid_request' | 'invalid_token' | null): RequestAuthResult {
  return { ok: false, status: 401, reason, challenge: error ? `${CHALLENGE}, error="${error}"` : CHALLENGE };
}

const forbidden = (reason: string): RequestAuthResult => ({ ok: false, status: 403, reason });

/** Every Authorization field of the request, in order, from the raw header list. */
export function authorizationFields(rawHeaders: readonly string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() === 'authorization') values.push(rawHeaders[i + 1]!);
  }
  return values;
}

export async function checkRequestAuth(auth: ServerAuth, request: Pick<IncomingMessage, 'rawHeaders' | 'socket'>): Promise<RequestAuthResult> {
  if (auth.mode === 'none') return { ok: true };

  const fields = authorizationFields(request.rawHeaders);
  if (fields.length > 1) return unauthorized('duplicate Authorization fields', 'invalid_request');

  if (auth.mode === 'mtls') {
    const socket = request.socket;
    if (!(socket instanceof TLSSocket) || !socket.authorized) return unauthorized('no verified client certificate', null);
    const subject = socket.getPeerCertificate().subject as Record<string, string | string[]> | undefined;
    const cn = subject?.CN;
    const names = Array.isArray(cn) ? cn : cn === undefined ? [] : [cn];
    if (auth.principals && (names.length !== 1 || !auth.principals.includes(names[0]!))) return forbidden('client certificate principal is not authorised');
    return { ok: true };
  }

  const field = fields[0];
  if (field === undefined) return unauthorized('missing credential', null);
  const match = TOKEN68.exec(field);
  if (!match) return unauthorized('malformed Authorization field (expected Bearer)', 'invalid_request');
  const presented = match[1]!;

  if (auth.mode === 'bearer') {
    return secretsEqual(presented, auth.token) ? { ok: true } : unauthorized('invalid bearer token', 'invalid_token');
  }

  // oauth / workload: a signed token of exactly this purpose. Any principal check happens after the
  // token itself verified, so a wrong `sub` on a valid token is a 403, everything else a 401.
  // Loaded on first use: only the signed-token modes need jose.
  const { verifyToken } = await import('../../../harness/auth/jwt.ts');
  const verified = await verifyToken(presented, auth.token);
  if (!verified.ok) return unauthorized(`invalid ${auth.mode} token (${verified.reason})`, 'invalid_token');
  if (auth.principals && !auth.principals.includes(verified.claims.sub)) return forbidden('token subject is not an authorised principal');
  return { ok: true };
}
