// The credential-hygiene scan: looks for every secret of a run in the artifacts it left (files,
// folders, captured output) and reports each hit as (where, which kind of secret, its length) —
// never the secret itself, so a failing scan does not leak what it found.

import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { OAUTH_CLIENT_SECRET, SIGNING_KEYS, STATIC_BEARER } from '../../auth/constants.ts';

export interface SecretHit {
  /** File path, or the label of a scanned text. */
  where: string;
  kind: string;
  length: number;
}

const NAMED: ReadonlyMap<string, string> = new Map([
  [STATIC_BEARER, 'static bearer token'],
  [OAUTH_CLIENT_SECRET, 'OAuth client secret'],
  [SIGNING_KEYS.oauth, 'oauth signing key'],
  [SIGNING_KEYS.workload, 'workload signing key'],
]);

/** A printable description of what kind of secret `secret` is (never its value). */
export function secretKind(secret: string): string {
  const named = NAMED.get(secret);
  if (named) return named;
  if (secret.includes('PRIVATE KEY-----')) return 'private key (PEM)';
  if (/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(secret)) return 'signed token (JWT)';
  if (/^[A-Za-z0-9+/=]{64,}$/.test(secret)) return 'private key (base64 body)';
  if (/^[A-Za-z0-9_-]{16,}$/.test(secret)) return 'token signature';
  return 'run secret';
}

/**
 * The strings that betray `secret` in an artifact: the secret itself, its JSON-escaped form, and for
 * a PEM private key each base64 line of its body (a key re-encoded with other line breaks or escaped
 * newlines still contains them).
 */
export function needlesOf(secret: string): string[] {
  const needles = new Set([secret, JSON.stringify(secret).slice(1, -1)]);
  if (secret.includes('PRIVATE KEY-----')) {
    for (const line of secret.split(/\r?\n/)) if (/^[A-Za-z0-9+/=]{32,}$/.test(line.trim())) needles.add(line.trim());
  }
  return [...needles].filter((needle) => needle !== '');
}

/** The secrets contained in `text`, as hits labelled `where`. */
export function scanText(where: string, text: string, secrets: readonly string[]): SecretHit[] {
  return secrets
    .filter((secret) => needlesOf(secret).some((needle) => text.includes(needle)))
    .map((secret) => ({ where, kind: secretKind(secret), length: secret.length }));
}

export interface ScanResult {
  /** Every regular file that was read. */
  scanned: string[];
  hits: SecretHit[];
}

/**
 * Scans every regular file under `roots` (files or folders, recursively; symlinks are not followed)
 * for `secrets`. `skip(path)` leaves a file or folder out. Missing roots are ignored.
 */
export function scanFiles(roots: readonly string[], secrets: readonly string[], skip: (file: string) => boolean = () => false): ScanResult {
  const result: ScanResult = { scanned: [], hits: [] };
  const visit = (file: string): void => {
    if (skip(file)) return;
    let stat;
    try {
      stat = lstatSync(file);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const entry of readdirSync(file).sort()) visit(path.join(file, entry));
    } else if (stat.isFile()) {
      result.scanned.push(file);
      result.hits.push(...scanText(file, readFileSync(file).toString('latin1'), secrets));
    }
  };
  for (const root of roots) visit(root);
  return result;
}

/** One line per hit: `<where>: contains a <kind> (<n> chars)`. */
export function describeHits(hits: readonly SecretHit[]): string[] {
  return hits.map((hit) => `${hit.where}: contains a ${hit.kind} (${hit.length} chars)`);
}
