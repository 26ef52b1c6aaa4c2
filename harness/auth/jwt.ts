// HS256 JWTs of the synthetic local trust: minting (harness, local OAuth issuer, workload assertions)
// and verification (the reference server; any TypeScript adapter may reuse it). Verification checks the
// signature with the purpose's own key, then `iss`, `aud`, `purpose`, `sub`, `exp`, `nbf` and `iat`
// against the FIXED fixture clock, never wall time. Results carry a reason label, never the token.

import { errors, jwtVerify, SignJWT } from 'jose';

import { AUDIENCE, FIXTURE_CLOCK, ISSUER, OAUTH_CLIENT_ID, STATIC_BEARER, signingKeyFor, TOKEN_LIFETIME_SECONDS, TOKEN_PURPOSES, type TokenPurpose } from './constants.ts';

export { TOKEN_PURPOSES, type TokenPurpose };

/** The claims every interop token carries (`nbf` only when a probe sets it). */
export interface TokenClaims {
  iss: string;
  sub: string;
  aud: string | string[];
  purpose: string;
  iat: number;
  exp: number;
  nbf?: number;
}

/** Per-claim overrides for negative probes, plus the key to sign with (default: the purpose's key). */
export interface MintOverrides {
  iss?: string;
  sub?: string;
  aud?: string;
  /** The `purpose` claim (default: the purpose minted for). */
  purpose?: string;
  iat?: number;
  exp?: number;
  nbf?: number;
  /** Sign with this key instead of the purpose's own. */
  signingKey?: string;
  /** Claims to leave out entirely. */
  omit?: ReadonlyArray<keyof TokenClaims>;
}

const encoder = new TextEncoder();

/** The claims of a well-formed token for `purpose` at the fixture clock. */
export function standardClaims(purpose: TokenPurpose, clock = FIXTURE_CLOCK): TokenClaims {
  return { iss: ISSUER, sub: OAUTH_CLIENT_ID, aud: AUDIENCE, purpose, iat: clock, exp: clock + TOKEN_LIFETIME_SECONDS };
}

/** Mints `{alg:"HS256",typ:"JWT"}` with the standard claims for `purpose`, adjusted by `overrides`. */
export async function mintToken(purpose: TokenPurpose, overrides: MintOverrides = {}): Promise<string> {
  const { signingKey = signingKeyFor(purpose), omit = [], ...claimOverrides } = overrides;
  const claims: Record<string, unknown> = { ...standardClaims(purpose), ...claimOverrides };
  for (const name of omit) delete claims[name];
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(encoder.encode(signingKey));
}

/** What a verifier is configured with: exactly the server's `auth` fields for oauth/workload. */
export interface TokenVerifierSettings {
  signingKey: string;
  issuer: string;
  audience: string;
  purpose: string;
  /** Fixed clock, seconds since the epoch. */
  clock: number;
  /** When set, `sub` must equal one of these; otherwise any non-empty `sub` passes. */
  subjects?: readonly string[];
}

export const TOKEN_REJECTIONS = [
  'malformed',
  'algorithm',
  'header',
  'signature',
  'missing-claim',
  'issuer',
  'audience',
  'purpose',
  'subject',
  'expired',
  'not-yet-valid',
  'issued-in-future',
] as const;
export type TokenRejection = (typeof TOKEN_REJECTIONS)[number];

export type TokenVerification = { ok: true; claims: TokenClaims } | { ok: false; reason: TokenRejection };

const REQUIRED_CLAIMS = ['iss', 'sub', 'aud', 'purpose', 'iat', 'exp'] as const;

/** Verifies `token` against `settings`. Never throws; never includes the token in its result. */
export async function verifyToken(token: string, settings: TokenVerifierSettings): Promise<TokenVerification> {
  const fail = (reason: TokenRejection): TokenVerification => ({ ok: false, reason });
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) return fail('malformed');
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, encoder.encode(settings.signingKey), {
      algorithms: ['HS256'],
      typ: 'JWT',
      issuer: settings.issuer,
      audience: settings.audience,
      currentDate: new Date(settings.clock * 1000),
      clockTolerance: 0,
      requiredClaims: [...REQUIRED_CLAIMS],
    }));
  } catch (error) {
    return fail(rejectionOf(error));
  }
  if (payload.purpose !== settings.purpose) return fail('purpose');
  const sub = payload.sub;
  if (typeof sub !== 'string' || sub === '') return fail('subject');
  if (settings.subjects && !settings.subjects.includes(sub)) return fail('subject');
  const { iat, exp, nbf } = payload;
  if (typeof iat !== 'number' || typeof exp !== 'number' || !Number.isFinite(iat) || !Number.isFinite(exp)) return fail('missing-claim');
  if (iat > settings.clock) return fail('issued-in-future');
  // jose has already checked both (iss equals the issuer; aud is or contains the audience).
  const claims: TokenClaims = { iss: settings.issuer, sub, aud: payload.aud as string | string[], purpose: settings.purpose, iat, exp };
  if (typeof nbf === 'number') claims.nbf = nbf;
  return { ok: true, claims };
}

function rejectionOf(error: unknown): TokenRejection {
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'signature';
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'algorithm';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return 'missing-claim';
    switch (error.claim) {
      case 'iss':
        return 'issuer';
      case 'aud':
        return 'audience';
      case 'sub':
        return 'subject';
      case 'nbf':
        return 'not-yet-valid';
      case 'iat':
        return 'issued-in-future';
      case 'exp':
        return 'expired';
      case 'typ':
        return 'header';
      default:
        return 'malformed';
    }
  }
  return 'malformed';
}

/** `token` with one bit of its signature flipped (header and payload unchanged). */
export function withBadSignature(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const bytes = Buffer.from(signature, 'base64url');
  bytes[0] = bytes[0]! ^ 0x01;
  return `${header}.${payload}.${bytes.toString('base64url')}`;
}

function otherPurpose(purpose: TokenPurpose): TokenPurpose {
  return purpose === 'oauth' ? 'workload' : 'oauth';
}

/** Negative token probes for a server expecting `purpose` tokens, each with the rejection it must get. */
export const NEGATIVE_TOKEN_CASES = [
  'wrong-issuer',
  'wrong-audience',
  'wrong-purpose',
  'expired',
  'not-yet-valid',
  'bad-signature',
  'other-purpose-key',
  'other-purpose-token',
  'static-bearer',
] as const;
export type NegativeTokenCase = (typeof NEGATIVE_TOKEN_CASES)[number];

export interface NegativeToken {
  case: NegativeTokenCase;
  token: string;
  /** What `verifyToken` reports for it. */
  reason: TokenRejection;
}

export async function negativeToken(purpose: TokenPurpose, which: NegativeTokenCase): Promise<NegativeToken> {
  const clock = FIXTURE_CLOCK;
  const other = otherPurpose(purpose);
  const make = async (token: Promise<string> | string, reason: TokenRejection): Promise<NegativeToken> => ({ case: which, token: await token, reason });
  switch (which) {
    case 'wrong-issuer':
      return make(mintToken(purpose, { iss: 'urn:ahp:interop:other-issuer' }), 'issuer');
    case 'wrong-audience':
      return make(mintToken(purpose, { aud: 'urn:ahp:interop:other-server' }), 'audience');
    case 'wrong-purpose':
      // This purpose's key, but the other purpose's claim.
      return make(mintToken(purpose, { purpose: other }), 'purpose');
    case 'expired':
      return make(mintToken(purpose, { iat: clock - 2 * TOKEN_LIFETIME_SECONDS, exp: clock - TOKEN_LIFETIME_SECONDS }), 'expired');
    case 'not-yet-valid':
      return make(mintToken(purpose, { nbf: clock + 60 }), 'not-yet-valid');
    case 'bad-signature':
      return make(withBadSignature(await mintToken(purpose)), 'signature');
    case 'other-purpose-key':
      // Claims this purpose, signed with the other purpose's key.
      return make(mintToken(purpose, { signingKey: signingKeyFor(other) }), 'signature');
    case 'other-purpose-token':
      // A perfectly valid token of the other purpose.
      return make(mintToken(other), 'signature');
    case 'static-bearer':
      return make(STATIC_BEARER, 'malformed');
  }
}

/** Every negative probe for `purpose`, in NEGATIVE_TOKEN_CASES order. */
export function negativeTokens(purpose: TokenPurpose): Promise<NegativeToken[]> {
  return Promise.all(NEGATIVE_TOKEN_CASES.map((which) => negativeToken(purpose, which)));
}
