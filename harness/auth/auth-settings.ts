// The `auth` objects the harness writes into adapter configs, by mode. Real SDK adapters depend on
// these exact shapes (adapter contract v1):
//
//   server  none → {mode}                bearer → {mode, token}
//           oauth | workload → {mode, signingKey, issuer, audience, purpose, clock}
//           mtls → {mode, caFile, certFile, keyFile}      (server identity; the CA verifies clients)
//   client  none → {mode}                bearer → {mode, token}
//           oauth → server fields + {tokenEndpoint, clientId, clientSecret}
//           workload → server fields + {assertion}      (a purpose "workload" token)
//           mtls → {mode, caFile, certFile, keyFile}      (client identity; the CA verifies the server)
//
// `secretsOf` lists every secret string of a run for the credential-hygiene scan.

import { readFileSync } from 'node:fs';

import type { AuthMode } from '../config/define-config.ts';
import { AUDIENCE, FIXTURE_CLOCK, ISSUER, OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET, SIGNING_KEYS, STATIC_BEARER, type TokenPurpose } from './constants.ts';
import { mintToken } from './jwt.ts';
import type { CertificateFiles, TestPki } from './pki.ts';

export interface NoneAuth {
  mode: 'none';
}
export interface BearerAuth {
  mode: 'bearer';
  token: string;
}
export interface SignedTokenServerAuth<M extends TokenPurpose = TokenPurpose> {
  mode: M;
  signingKey: string;
  issuer: string;
  audience: string;
  purpose: M;
  clock: number;
}
export interface MtlsAuth {
  mode: 'mtls';
  caFile: string;
  certFile: string;
  keyFile: string;
}
export interface OAuthClientAuth extends SignedTokenServerAuth<'oauth'> {
  tokenEndpoint: string;
  clientId: string;
  clientSecret: string;
}
export interface WorkloadClientAuth extends SignedTokenServerAuth<'workload'> {
  assertion: string;
}

export type ServerAuthSettings = NoneAuth | BearerAuth | SignedTokenServerAuth<'oauth'> | SignedTokenServerAuth<'workload'> | MtlsAuth;
export type ClientAuthSettings = NoneAuth | BearerAuth | OAuthClientAuth | WorkloadClientAuth | MtlsAuth;

/** What the builders need beyond the constants: the run's PKI (mtls) and its issuer (oauth client). */
export interface AuthMaterial {
  pki?: { caFile: string; server: CertificateFiles; client: CertificateFiles };
  /** The local OAuth issuer's token endpoint (see oauth-issuer.ts). */
  tokenEndpoint?: string;
}

export class AuthMaterialError extends Error {
  override readonly name = 'AuthMaterialError';
}

function need<T>(value: T | undefined, mode: AuthMode, what: string): T {
  if (value === undefined) throw new AuthMaterialError(`auth mode "${mode}" needs ${what} in the auth material`);
  return value;
}

function signedTokenServer<M extends TokenPurpose>(purpose: M): SignedTokenServerAuth<M> {
  return { mode: purpose, signingKey: SIGNING_KEYS[purpose], issuer: ISSUER, audience: AUDIENCE, purpose, clock: FIXTURE_CLOCK };
}

/** The server config's `auth` for `mode`. */
export function serverAuthSettings(mode: AuthMode, material: AuthMaterial = {}): ServerAuthSettings {
  switch (mode) {
    case 'none':
      return { mode };
    case 'bearer':
      return { mode, token: STATIC_BEARER };
    case 'oauth':
      return signedTokenServer('oauth');
    case 'workload':
      return signedTokenServer('workload');
    case 'mtls': {
      const pki = need(material.pki, mode, 'a test PKI');
      return { mode, caFile: pki.caFile, certFile: pki.server.certFile, keyFile: pki.server.keyFile };
    }
  }
}

/** The client config's `auth` for `mode` (async: the workload assertion is signed here). */
export async function clientAuthSettings(mode: AuthMode, material: AuthMaterial = {}): Promise<ClientAuthSettings> {
  switch (mode) {
    case 'none':
      return { mode };
    case 'bearer':
      return { mode, token: STATIC_BEARER };
    case 'oauth':
      return {
        ...signedTokenServer('oauth'),
        tokenEndpoint: need(material.tokenEndpoint, mode, 'the local OAuth issuer (tokenEndpoint)'),
        clientId: OAUTH_CLIENT_ID,
        clientSecret: OAUTH_CLIENT_SECRET,
      };
    case 'workload':
      return { ...signedTokenServer('workload'), assertion: await mintToken('workload') };
    case 'mtls': {
      const pki = need(material.pki, mode, 'a test PKI');
      return { mode, caFile: pki.caFile, certFile: pki.client.certFile, keyFile: pki.client.keyFile };
    }
  }
}

/** Anything that holds secrets of a run. */
export type SecretSource =
  | ServerAuthSettings
  | ClientAuthSettings
  /** The local OAuth issuer (its issued tokens). */
  | { tokens(): string[] }
  /** The test PKI (its private keys). */
  | Pick<TestPki, 'privateKeysPem'>
  | string;

/** Strings shorter than this are not treated as secrets (they would match by accident). */
const MIN_SECRET_LENGTH = 12;

/**
 * Every secret string held by `sources`: bearer tokens, client secrets, signing keys, workload
 * assertions, issued tokens, and private keys (the PEM text, its base64 body, and the key file's
 * contents for settings naming a `keyFile`). For a JWT its signature segment is listed too. Sorted,
 * without duplicates.
 */
export function secretsOf(...sources: SecretSource[]): string[] {
  const found = new Set<string>();
  const add = (value: unknown): void => {
    if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH) return;
    found.add(value);
    const jwt = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.([A-Za-z0-9_-]{16,})$/.exec(value);
    if (jwt) found.add(jwt[1]!);
    if (value.includes('PRIVATE KEY-----')) {
      const body = value.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
      add(body);
    }
  };
  for (const source of sources) {
    if (typeof source === 'string') add(source);
    else if ('tokens' in source) source.tokens().forEach(add);
    else if ('privateKeysPem' in source) source.privateKeysPem().forEach(add);
    else {
      const settings = source as unknown as Record<string, unknown>;
      for (const key of ['token', 'signingKey', 'clientSecret', 'assertion'] as const) add(settings[key]);
      if (typeof settings.keyFile === 'string') {
        try {
          add(readFileSync(settings.keyFile, 'utf8').trim());
        } catch {
          // A key file already removed cannot leak any more; nothing to add.
        }
      }
    }
  }
  return [...found].sort();
}
