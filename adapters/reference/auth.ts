// Endpoint authentication for the reference adapter: which deployment auth modes run where, and the
// validation of the `auth` config object into typed settings for both halves. Enforcement lives in
// lib/request-auth.ts (server), acquisition in lib/client-credentials.ts (client).
//
//   server  none → {mode}                bearer → {mode, token}
//           oauth | workload → {mode, signingKey, issuer, audience, purpose, clock}
//           mtls → {mode, caFile, certFile, keyFile}   (server identity; caFile verifies clients)
//   client  none → {mode}                bearer → {mode, token}
//           oauth → server fields + {tokenEndpoint, clientId, clientSecret}
//           workload → server fields + {assertion}
//           mtls → {mode, caFile, certFile, keyFile}   (client identity; caFile verifies the server)
//
// Authorisation is not part of the contract's `auth`: the server authorises a principal (JWT `sub`,
// client-certificate CN) only against the allow-list the harness hands it in the server config's
// `extensions["ahp-conformance/auth-allow-list"].principals` (our adapter.json declares
// `authAllowList`), read into `AuthConfig.allowList`. Without it every authenticated caller is
// authorised, as the contract alone asks.
//
// The `auth.mode` values are deployment test-control labels, not portable AHP authentication types:
// the manifest advertises only `bearer`/`oauth` (see `manifestAuthentication`). Auth option values
// may be credentials, so nothing here ever puts a value (or a file path) into an error message.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { AUTH_MODES, type AuthMode, type Transport } from '../../harness/config/define-config.ts';

export { AUTH_MODES, type AuthMode };

/** `auth` from an adapter config: the mode plus mode-specific options (token, clientId, caFile, ...). */
export interface AuthConfig {
  mode: AuthMode;
  /** Everything except `mode`, kept verbatim for the mode's implementation. Never logged. */
  options: Readonly<Record<string, unknown>>;
  /** Relative file options (caFile, certFile, keyFile) resolve against this folder (the config's). */
  baseDir: string;
  /** Server configs only: the harness's allow-list of principals, when it handed one over. */
  allowList?: readonly string[];
}

/** A bad `auth` object: the message names the key and the expectation, never the value. */
export class AuthConfigError extends Error {
  override readonly name = 'AuthConfigError';
}

export function isAuthMode(value: unknown): value is AuthMode {
  return typeof value === 'string' && (AUTH_MODES as readonly string[]).includes(value);
}

// ---- typed settings -------------------------------------------------------------------------------

export interface SignedTokenSettings {
  signingKey: string;
  issuer: string;
  audience: string;
  purpose: 'oauth' | 'workload';
  clock: number;
}

/** PEM material, read once at startup. */
export interface TlsMaterial {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

export type ServerAuth =
  | { mode: 'none' }
  | { mode: 'bearer'; token: string }
  /** `principals` undefined: no allow-list was given, every authenticated identity is authorised. */
  | { mode: 'oauth' | 'workload'; token: SignedTokenSettings; principals: readonly string[] | undefined }
  | { mode: 'mtls'; tls: TlsMaterial; principals: readonly string[] | undefined };

export type ClientAuth =
  | { mode: 'none' }
  | { mode: 'bearer'; token: string }
  | { mode: 'oauth'; token: SignedTokenSettings; tokenEndpoint: URL; clientId: string; clientSecret: string }
  | { mode: 'workload'; token: SignedTokenSettings; assertion: string }
  | { mode: 'mtls'; tls: TlsMaterial };

export type AuthPlan<T> =
  | { kind: 'supported'; auth: T }
  /** The combination does not exist (stdio relies on process trust only). */
  | { kind: 'inapplicable'; reason: string };

function stdioInapplicable(mode: AuthMode): { kind: 'inapplicable'; reason: string } {
  return { kind: 'inapplicable', reason: `auth mode ${mode} is inapplicable to stdio (process trust only)` };
}

/**
 * How the reference server runs `auth` over `transport`. Throws AuthConfigError for a bad `auth`
 * object (the server exits 2); stdio with any mode but `none` is inapplicable (the server exits 3).
 */
export function prepareServerAuth(transport: Transport, auth: AuthConfig): AuthPlan<ServerAuth> {
  if (auth.mode === 'none') return { kind: 'supported', auth: { mode: 'none' } };
  if (transport === 'stdio') return stdioInapplicable(auth.mode);
  const options = new Options(auth);
  switch (auth.mode) {
    case 'bearer':
      return { kind: 'supported', auth: { mode: 'bearer', token: options.string('token') } };
    case 'oauth':
    case 'workload':
      return { kind: 'supported', auth: { mode: auth.mode, token: options.signedToken(auth.mode), principals: auth.allowList } };
    case 'mtls':
      return { kind: 'supported', auth: { mode: 'mtls', tls: options.tls(), principals: auth.allowList } };
  }
}

/**
 * How the reference client runs `auth` against `endpoint`. Throws AuthConfigError for a bad `auth`
 * object (the client exits 2); stdio with any mode but `none` is inapplicable (rows `inapplicable`).
 */
export function prepareClientAuth(transport: Transport, auth: AuthConfig, endpoint: string | undefined): AuthPlan<ClientAuth> {
  if (auth.mode === 'none') return { kind: 'supported', auth: { mode: 'none' } };
  if (transport === 'stdio') return stdioInapplicable(auth.mode);
  const options = new Options(auth);
  switch (auth.mode) {
    case 'bearer':
      return { kind: 'supported', auth: { mode: 'bearer', token: options.string('token') } };
    case 'oauth':
      return {
        kind: 'supported',
        auth: {
          mode: 'oauth',
          token: options.signedToken('oauth'),
          tokenEndpoint: options.url('tokenEndpoint'),
          clientId: options.string('clientId'),
          clientSecret: options.string('clientSecret'),
        },
      };
    case 'workload':
      return { kind: 'supported', auth: { mode: 'workload', token: options.signedToken('workload'), assertion: options.string('assertion') } };
    case 'mtls':
      if (endpoint === undefined || new URL(endpoint).protocol !== 'https:') {
        throw new AuthConfigError('auth mode mtls needs an https: endpoint (TLS client certificates)');
      }
      return { kind: 'supported', auth: { mode: 'mtls', tls: options.tls() } };
  }
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

class Options {
  private readonly raw: Readonly<Record<string, unknown>>;

  constructor(private readonly auth: AuthConfig) {
    this.raw = auth.options;
  }

  private fail(key: string, expectation: string): never {
    throw new AuthConfigError(`"auth.${key}" ${expectation} (auth mode ${this.auth.mode})`);
  }

  string(key: string): string {
    const value = this.raw[key];
    if (typeof value !== 'string' || value === '') this.fail(key, 'must be a non-empty string');
    return value;
  }

  signedToken(mode: 'oauth' | 'workload'): SignedTokenSettings {
    if (this.raw.purpose !== mode) this.fail('purpose', `must be "${mode}"`);
    const clock = this.raw.clock;
    if (typeof clock !== 'number' || !Number.isSafeInteger(clock) || clock < 0) this.fail('clock', 'must be a non-negative integer (seconds since the epoch)');
    return { signingKey: this.string('signingKey'), issuer: this.string('issuer'), audience: this.string('audience'), purpose: mode, clock };
  }

  /** An absolute http(s) URL without credentials; plain http only on loopback. */
  url(key: string): URL {
    const text = this.string(key);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      this.fail(key, 'must be an absolute URL');
    }
    if (url.username || url.password) this.fail(key, 'must not embed credentials');
    if (url.protocol === 'https:') return url;
    if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return url;
    this.fail(key, 'must be an https: URL (plain http: only on loopback)');
  }

  private file(key: string): Buffer {
    const value = this.string(key);
    try {
      return readFileSync(path.resolve(this.auth.baseDir, value));
    } catch (error) {
      this.fail(key, `must name a readable PEM file (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
    }
  }

  tls(): TlsMaterial {
    return { ca: this.file('caFile'), cert: this.file('certFile'), key: this.file('keyFile') };
  }
}

// ---- discovery ------------------------------------------------------------------------------------

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
