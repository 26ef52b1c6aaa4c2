// Endpoint authentication for the reference adapter. Only `none` is implemented today; every other
// deployment mode (bearer, oauth, mtls, workload) slots in here without touching server.ts or
// client.ts: extend `serverAuthSupport`/`clientAuthSupport`, `checkRequestAuth` and
// `clientRequestHeaders`.
//
// The `auth.mode` values are deployment test-control labels, not portable AHP authentication types:
// the manifest advertises only `bearer`/`oauth` (see `manifestAuthentication`). Auth option values
// may be credentials, so nothing here ever puts them into an error message, a log or a report.

import type { IncomingHttpHeaders } from 'node:http';

import { AUTH_MODES, type AuthMode, type Transport } from '../../harness/config/define-config.ts';

export { AUTH_MODES, type AuthMode };

/** `auth` from an adapter config: the mode plus mode-specific options (token, clientId, caFile, ...). */
export interface AuthConfig {
  mode: AuthMode;
  /** Everything except `mode`, kept verbatim for the mode's implementation. Never logged. */
  options: Readonly<Record<string, unknown>>;
}

export type AuthSupport =
  | { kind: 'supported' }
  /** The mode applies to this transport but this adapter does not implement it (yet). */
  | { kind: 'unsupported'; reason: string }
  /** The combination does not exist (stdio relies on process trust only). */
  | { kind: 'inapplicable'; reason: string };

export function isAuthMode(value: unknown): value is AuthMode {
  return typeof value === 'string' && (AUTH_MODES as readonly string[]).includes(value);
}

/** Whether the reference server can run with this auth mode over this transport. */
export function serverAuthSupport(_transport: Transport, auth: AuthConfig): AuthSupport {
  if (auth.mode === 'none') return { kind: 'supported' };
  return { kind: 'unsupported', reason: `auth mode ${auth.mode} not supported by the reference server yet` };
}

/** Whether the reference client can run with this auth mode over this transport. */
export function clientAuthSupport(transport: Transport, auth: AuthConfig): AuthSupport {
  if (auth.mode === 'none') return { kind: 'supported' };
  if (transport === 'stdio') {
    return { kind: 'inapplicable', reason: `auth mode ${auth.mode} is inapplicable to stdio (process trust only)` };
  }
  return { kind: 'unsupported', reason: `auth mode ${auth.mode} not supported by the reference client yet` };
}

/** What the server knows about one incoming HTTP request when deciding whether it is authorised. */
export interface RequestAuthContext {
  transport: Transport;
  /** Parsed headers (HTTP only). */
  headers?: IncomingHttpHeaders;
  /** Raw header name/value list (HTTP only), needed to reject duplicate Authorization fields. */
  rawHeaders?: readonly string[];
}

export type RequestAuthResult =
  | { ok: true }
  /** `status` is the HTTP status to answer with; `challenge` a WWW-Authenticate value, if any. */
  | { ok: false; status: 400 | 401 | 403; reason: string; challenge?: string };

/**
 * The server-side hook every AHP request passes through before dispatch (intercept and discovery).
 * `none` ignores whatever credentials arrive.
 */
export function checkRequestAuth(auth: AuthConfig, _context: RequestAuthContext): RequestAuthResult {
  switch (auth.mode) {
    case 'none':
      return { ok: true };
    default:
      // Unreachable while serverAuthSupport refuses these modes at startup; fail closed regardless.
      return { ok: false, status: 401, reason: `auth mode ${auth.mode} is not implemented` };
  }
}

/** Headers the client adds to every AHP HTTP request (credentials, once modes exist). */
export function clientRequestHeaders(auth: AuthConfig): Record<string, string> {
  switch (auth.mode) {
    case 'none':
      return {};
    default:
      throw new Error(`auth mode ${auth.mode} is not implemented by the reference client`);
  }
}

/**
 * Portable AHP authentication for the manifest. Absent (empty) registration authentication permits
 * discovery; workload tokens travel as bearer credential references; TLS client certificates are out
 * of band, so mTLS-only deployments leave it empty. Never advertises `mtls` or `workload`.
 */
export function manifestAuthentication(mode: AuthMode): Array<'bearer' | 'oauth'> {
  switch (mode) {
    case 'bearer':
    case 'workload':
      return ['bearer'];
    case 'oauth':
      return ['oauth'];
    case 'none':
    case 'mtls':
      return [];
  }
}
