// Text an adapter wrote (its log) may quote a credential it was given. Before any of it is shown in a
// verdict, every secret the run knows of is replaced, and so is anything shaped like one (a bearer
// value, a JWT, a PEM private key, a fixture `TEST-ONLY-` secret), so a message never leaks a
// credential the harness did not know it had handed out.

import { STATIC_SECRETS } from '../auth/constants.ts';

/** The keys of an adapter config's `auth` object whose values are secrets (auth-settings.ts). */
const SECRET_KEYS = ['token', 'signingKey', 'clientSecret', 'assertion'];

/** The secret values of an `auth` settings object (non-secret fields such as files and issuers are left). */
export function secretsOfAuthSettings(settings: Readonly<Record<string, unknown>> | undefined): string[] {
  if (settings === undefined) return [];
  return SECRET_KEYS.map((key) => settings[key]).filter((value): value is string => typeof value === 'string' && value !== '');
}

const PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, '[redacted private key]'],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]'],
  [/\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, '[redacted token]'],
  [/TEST-ONLY-[A-Za-z0-9._-]+/g, '[redacted test secret]'],
];

/** `text` with every known secret (`known` plus the fixture's static ones) and every secret-shaped string replaced. */
export function redactSecrets(text: string, known: readonly string[] = []): string {
  let out = text;
  // Longest first, so a secret that contains another is replaced whole.
  for (const secret of [...new Set([...known, ...STATIC_SECRETS])].filter((s) => s.length >= 6).sort((a, b) => b.length - a.length)) {
    for (const form of [secret, JSON.stringify(secret).slice(1, -1)]) out = out.split(form).join('[redacted secret]');
  }
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
