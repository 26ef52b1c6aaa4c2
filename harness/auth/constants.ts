// The synthetic local trust of an interop run: facts of the protocol's interop fixtures, so every SDK
// agrees on them. Everything here is TEST-ONLY and public: none of these values is, or may ever be
// used as, a real credential. Signed-token purposes use distinct keys, a fixed issuer/audience and a
// fixed fixture clock (never wall time).

/** The fixed fixture clock, in seconds since the epoch (2030-01-01T00:00:00Z). */
export const FIXTURE_CLOCK = 1893456000;

/** Lifetime of every minted token, in seconds: `exp = iat + TOKEN_LIFETIME_SECONDS`. */
export const TOKEN_LIFETIME_SECONDS = 3600;

export const ISSUER = 'urn:ahp:interop:local-issuer';
export const AUDIENCE = 'urn:ahp:interop:local-server';

/** The static bearer token of `auth.mode: "bearer"`. */
export const STATIC_BEARER = 'TEST-ONLY-ahp-interop-static-bearer';

export const OAUTH_CLIENT_ID = 'ahp-interop-client';
export const OAUTH_CLIENT_SECRET = 'TEST-ONLY-ahp-interop-client-secret';

/** Signed-token purposes; each has its own signing key. */
export const TOKEN_PURPOSES = ['oauth', 'workload'] as const;
export type TokenPurpose = (typeof TOKEN_PURPOSES)[number];

/** `TEST-ONLY-ahp-interop-<purpose>-signing-key`. */
export function signingKeyFor(purpose: TokenPurpose): string {
  return `TEST-ONLY-ahp-interop-${purpose}-signing-key`;
}

export const SIGNING_KEYS: Readonly<Record<TokenPurpose, string>> = {
  oauth: signingKeyFor('oauth'),
  workload: signingKeyFor('workload'),
};

/** The principal name of the trusted test client (JWT `sub`, client certificate CN). */
export const CLIENT_PRINCIPAL = OAUTH_CLIENT_ID;

/**
 * The lifecycle receiver's independent upload credential (server config `uploadAuth.token`) and the
 * credential it must refuse, handed to lifecycle clients only through these environment variables
 * (LIFECYCLE-RULES §2): content authorization is independent of endpoint authentication.
 */
export const UPLOAD_TOKEN = 'TEST-ONLY-independent-upload-token';
export const UNAUTHORIZED_UPLOAD_TOKEN = 'TEST-ONLY-unauthorized-upload-token';
export const UPLOAD_TOKEN_ENV = 'AHP_INTEROP_UPLOAD_TOKEN';
export const UNAUTHORIZED_UPLOAD_TOKEN_ENV = 'AHP_INTEROP_UNAUTHORIZED_UPLOAD_TOKEN';

/** Every fixed secret string of the interop fixtures (the per-run ones come from `secretsOf`). */
export const STATIC_SECRETS: readonly string[] = [
  STATIC_BEARER,
  OAUTH_CLIENT_SECRET,
  SIGNING_KEYS.oauth,
  SIGNING_KEYS.workload,
  UPLOAD_TOKEN,
  UNAUTHORIZED_UPLOAD_TOKEN,
];
