// Unit tests of the synthetic local trust in harness/auth/: the fixture constants, HS256 minting and
// verification (every negative), the local OAuth issuer, the test PKI and the adapter auth settings.

import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import {
  clientAuthSettings,
  AuthMaterialError,
  secretsOf,
  serverAuthSettings,
  type ClientAuthSettings,
} from '../../harness/auth/auth-settings.ts';
import {
  AUDIENCE,
  CLIENT_PRINCIPAL,
  FIXTURE_CLOCK,
  ISSUER,
  OAUTH_CLIENT_ID,
  OAUTH_CLIENT_SECRET,
  SIGNING_KEYS,
  STATIC_BEARER,
  STATIC_SECRETS,
  TOKEN_PURPOSES,
} from '../../harness/auth/constants.ts';
import { mintToken, NEGATIVE_TOKEN_CASES, negativeToken, verifyToken, withBadSignature, type TokenVerifierSettings } from '../../harness/auth/jwt.ts';
import { MAX_TOKEN_REQUEST_BYTES, startOAuthIssuer, type OAuthIssuer } from '../../harness/auth/oauth-issuer.ts';
import { disposeTestPki, testPki, UNAUTHORISED_CLIENT_PRINCIPAL, type TestPki } from '../../harness/auth/pki.ts';
import { AUTH_MODES } from '../../harness/config/define-config.ts';

const verifier = (purpose: 'oauth' | 'workload', overrides: Partial<TokenVerifierSettings> = {}): TokenVerifierSettings => ({
  signingKey: SIGNING_KEYS[purpose],
  issuer: ISSUER,
  audience: AUDIENCE,
  purpose,
  clock: FIXTURE_CLOCK,
  ...overrides,
});

const decodeSegment = (token: string, index: number): unknown => JSON.parse(Buffer.from(token.split('.')[index]!, 'base64url').toString('utf8'));

describe('fixture constants', () => {
  test('are the interop fixture facts every SDK shares', () => {
    expect({ FIXTURE_CLOCK, ISSUER, AUDIENCE, STATIC_BEARER, OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET, SIGNING_KEYS }).toEqual({
      FIXTURE_CLOCK: 1893456000,
      ISSUER: 'urn:ahp:interop:local-issuer',
      AUDIENCE: 'urn:ahp:interop:local-server',
      STATIC_BEARER: 'TEST-ONLY-ahp-interop-static-bearer',
      OAUTH_CLIENT_ID: 'ahp-interop-client',
      OAUTH_CLIENT_SECRET: 'TEST-ONLY-ahp-interop-client-secret',
      SIGNING_KEYS: { oauth: 'TEST-ONLY-ahp-interop-oauth-signing-key', workload: 'TEST-ONLY-ahp-interop-workload-signing-key' },
    });
    expect(STATIC_SECRETS).toEqual([
      'TEST-ONLY-ahp-interop-static-bearer',
      'TEST-ONLY-ahp-interop-client-secret',
      'TEST-ONLY-ahp-interop-oauth-signing-key',
      'TEST-ONLY-ahp-interop-workload-signing-key',
      'TEST-ONLY-independent-upload-token',
      'TEST-ONLY-unauthorized-upload-token',
    ]);
  });
});

describe('HS256 tokens', () => {
  test.each(TOKEN_PURPOSES)('a minted %s token has the exact header and claims and verifies', async (purpose) => {
    const token = await mintToken(purpose);
    expect(decodeSegment(token, 0)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = { iss: ISSUER, sub: OAUTH_CLIENT_ID, aud: AUDIENCE, purpose, iat: FIXTURE_CLOCK, exp: FIXTURE_CLOCK + 3600 };
    expect(decodeSegment(token, 1)).toEqual(claims);
    expect(await verifyToken(token, verifier(purpose))).toEqual({ ok: true, claims });
  });

  const negatives = TOKEN_PURPOSES.flatMap((purpose) => NEGATIVE_TOKEN_CASES.map((which) => [purpose, which] as const));
  test.each(negatives)('a %s verifier rejects the %s probe with its reason', async (purpose, which) => {
    const probe = await negativeToken(purpose, which);
    const result = await verifyToken(probe.token, verifier(purpose));
    expect(result).toEqual({ ok: false, reason: probe.reason });
    expect(JSON.stringify(result)).not.toContain(probe.token);
  });

  test('the negative probes name the reasons the issue lists', async () => {
    const reasons = Object.fromEntries(await Promise.all(NEGATIVE_TOKEN_CASES.map(async (which) => [which, (await negativeToken('oauth', which)).reason])));
    expect(reasons).toEqual({
      'wrong-issuer': 'issuer',
      'wrong-audience': 'audience',
      'wrong-purpose': 'purpose',
      expired: 'expired',
      'not-yet-valid': 'not-yet-valid',
      'bad-signature': 'signature',
      'other-purpose-key': 'signature',
      'other-purpose-token': 'signature',
      'static-bearer': 'malformed',
    });
  });

  test('checks iat, sub and missing claims, against the fixed clock and never wall time', async () => {
    const token = await mintToken('oauth');
    // Valid at the fixture clock (2030), expired an hour and a second later — whatever the wall time.
    expect(await verifyToken(token, verifier('oauth', { clock: FIXTURE_CLOCK + 3599 }))).toMatchObject({ ok: true });
    expect(await verifyToken(token, verifier('oauth', { clock: FIXTURE_CLOCK + 3601 }))).toEqual({ ok: false, reason: 'expired' });
    expect(await verifyToken(await mintToken('oauth', { iat: FIXTURE_CLOCK + 10 }), verifier('oauth'))).toEqual({ ok: false, reason: 'issued-in-future' });
    expect(await verifyToken(await mintToken('oauth', { omit: ['sub'] }), verifier('oauth'))).toEqual({ ok: false, reason: 'missing-claim' });
    expect(await verifyToken(await mintToken('oauth', { omit: ['exp'] }), verifier('oauth'))).toEqual({ ok: false, reason: 'missing-claim' });
    expect(await verifyToken(await mintToken('oauth', { omit: ['purpose'] }), verifier('oauth'))).toEqual({ ok: false, reason: 'missing-claim' });
    expect(await verifyToken(await mintToken('oauth', { sub: '' }), verifier('oauth'))).toEqual({ ok: false, reason: 'subject' });
    expect(await verifyToken(token, verifier('oauth', { subjects: ['someone-else'] }))).toEqual({ ok: false, reason: 'subject' });
    expect(await verifyToken(token, verifier('oauth', { subjects: [CLIENT_PRINCIPAL] }))).toMatchObject({ ok: true });
  });

  test('rejects unsigned and malformed tokens', async () => {
    const [, payload] = (await mintToken('oauth')).split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    expect(await verifyToken(`${header}.${payload}.`, verifier('oauth'))).toEqual({ ok: false, reason: 'malformed' });
    expect(await verifyToken(`${header}.${payload}.AAAA`, verifier('oauth'))).toEqual({ ok: false, reason: 'algorithm' });
    expect(await verifyToken('', verifier('oauth'))).toEqual({ ok: false, reason: 'malformed' });
    expect(await verifyToken('a.b.c', verifier('oauth'))).toEqual({ ok: false, reason: 'malformed' });
    const token = await mintToken('oauth');
    expect(withBadSignature(token)).not.toBe(token);
    expect(withBadSignature(token).split('.').slice(0, 2)).toEqual(token.split('.').slice(0, 2));
  });
});

describe('local OAuth issuer', () => {
  let issuer: OAuthIssuer;
  beforeAll(async () => {
    issuer = await startOAuthIssuer();
  });
  afterAll(() => issuer.close());

  const post = async (form: Record<string, string> | string, headers: Record<string, string> = {}) => {
    const response = await fetch(issuer.tokenEndpoint, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: typeof form === 'string' ? form : new URLSearchParams(form).toString(),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
  };
  const good = { grant_type: 'client_credentials', client_id: OAUTH_CLIENT_ID, client_secret: OAUTH_CLIENT_SECRET };
  const basic = `Basic ${Buffer.from(`${OAUTH_CLIENT_ID}:${OAUTH_CLIENT_SECRET}`).toString('base64')}`;

  test('listens on loopback and issues oauth tokens for the client-credentials grant', async () => {
    expect(issuer.tokenEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/token$/);
    const before = issuer.issued();
    const viaPost = await post({ ...good, audience: AUDIENCE, resource: AUDIENCE });
    expect(viaPost.status).toBe(200);
    expect(viaPost.headers.get('cache-control')).toBe('no-store');
    expect(viaPost.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600 });
    const token = viaPost.body.access_token as string;
    expect(await verifyToken(token, verifier('oauth'))).toMatchObject({ ok: true, claims: { sub: OAUTH_CLIENT_ID, purpose: 'oauth' } });
    // An oauth token is no workload token.
    expect(await verifyToken(token, verifier('workload'))).toEqual({ ok: false, reason: 'signature' });

    const viaBasic = await post({ grant_type: 'client_credentials' }, { authorization: basic });
    expect(viaBasic.status).toBe(200);
    expect(issuer.issued()).toBe(before + 2);
    expect(issuer.tokens().slice(-2)).toEqual([token, viaBasic.body.access_token]);
  });

  test.each([
    ['a wrong secret', { ...good, client_secret: 'TEST-ONLY-wrong-secret' }, {}, 401, 'invalid_client'],
    ['a wrong client id', { ...good, client_id: 'someone-else' }, {}, 401, 'invalid_client'],
    ['no client authentication', { grant_type: 'client_credentials' }, {}, 401, 'invalid_client'],
    ['Basic and form secret together', good, { authorization: basic }, 401, 'invalid_client'],
    ['a wrong Basic secret', { grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from(`${OAUTH_CLIENT_ID}:nope`).toString('base64')}` }, 401, 'invalid_client'],
    ['a wrong audience', { ...good, audience: 'urn:ahp:interop:other-server' }, {}, 400, 'invalid_target'],
    ['a wrong resource', { ...good, resource: 'https://elsewhere.example/' }, {}, 400, 'invalid_target'],
    ['another grant type', { ...good, grant_type: 'password' }, {}, 400, 'unsupported_grant_type'],
    ['no grant type', { client_id: OAUTH_CLIENT_ID, client_secret: OAUTH_CLIENT_SECRET }, {}, 400, 'invalid_request'],
    ['a repeated parameter', `${new URLSearchParams(good).toString()}&grant_type=client_credentials`, {}, 400, 'invalid_request'],
    ['a JSON body', '{}', { 'content-type': 'application/json' }, 400, 'invalid_request'],
  ] as const)('refuses %s without issuing', async (_name, form, headers, status, error) => {
    const before = issuer.issued();
    const refusedBefore = issuer.refused();
    const response = await post(form as Record<string, string> | string, headers as Record<string, string>);
    expect({ status: response.status, body: response.body }).toEqual({ status, body: { error } });
    expect(issuer.issued()).toBe(before);
    expect(issuer.refused()).toBe(refusedBefore + 1);
  });

  test('bounds the body (413) and answers only POST /token', async () => {
    const before = issuer.issued();
    const oversize = await post({ ...good, padding: 'x'.repeat(MAX_TOKEN_REQUEST_BYTES) });
    expect(oversize.status).toBe(413);
    expect((await fetch(issuer.tokenEndpoint)).status).toBe(405);
    expect((await fetch(new URL('/authorize', issuer.tokenEndpoint), { method: 'POST' })).status).toBe(404);
    expect(issuer.issued()).toBe(before);
  });
});

// The per-process PKI holds private keys in a temp dir: remove it when this file is done, since a
// vitest worker can be ended without an 'exit' event.
afterAll(disposeTestPki);

describe('test PKI', () => {
  let pki: TestPki;
  beforeAll(async () => {
    pki = await testPki();
  });

  const cert = (file: string): X509Certificate => new X509Certificate(readFileSync(file));

  test('writes PEM files, private keys owner-only, and is cached per process', async () => {
    expect(await testPki()).toBe(pki);
    expect(statSync(pki.dir).mode & 0o777).toBe(0o700);
    const keys = [pki.server.keyFile, pki.client.keyFile, pki.unauthorisedClient.keyFile, pki.untrustedClient.keyFile, pki.untrustedServer.keyFile];
    for (const file of keys) {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    }
    for (const file of [pki.caFile, pki.untrustedCaFile, pki.server.certFile, pki.client.certFile, pki.untrustedServer.certFile]) {
      expect(readFileSync(file, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    }
    expect(pki.privateKeysPem()).toHaveLength(5);
  });

  test('the server certificate is for 127.0.0.1 and localhost and chains to the CA', () => {
    const ca = cert(pki.caFile);
    const server = cert(pki.server.certFile);
    expect(ca.ca).toBe(true);
    expect(server.ca).toBe(false);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(server.checkIssued(ca)).toBe(true);
    expect(server.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(server.checkHost('localhost')).toBe('localhost');
    expect(server.subjectAltName).toBe('IP Address:127.0.0.1, DNS:localhost');
    expect(server.keyUsage).toContain('1.3.6.1.5.5.7.3.1');
    expect(server.checkPrivateKey(createPrivateKey(readFileSync(pki.server.keyFile)))).toBe(true);
  });

  test('client certificates: the trusted ones chain to the CA, the untrusted one does not', () => {
    const ca = cert(pki.caFile);
    const client = cert(pki.client.certFile);
    expect(pki.client.principal).toBe(CLIENT_PRINCIPAL);
    expect(client.subject).toContain(`CN=${CLIENT_PRINCIPAL}`);
    expect(client.verify(ca.publicKey)).toBe(true);
    expect(client.keyUsage).toContain('1.3.6.1.5.5.7.3.2');
    expect(cert(pki.unauthorisedClient.certFile).verify(ca.publicKey)).toBe(true);
    expect(pki.unauthorisedClient.principal).toBe(UNAUTHORISED_CLIENT_PRINCIPAL);

    const untrusted = cert(pki.untrustedClient.certFile);
    expect(untrusted.subject).toContain(`CN=${CLIENT_PRINCIPAL}`);
    expect(untrusted.verify(ca.publicKey)).toBe(false);
    expect(untrusted.checkIssued(ca)).toBe(false);
    expect(untrusted.verify(cert(pki.untrustedCaFile).publicKey)).toBe(true);
  });

  test('the untrusted server certificate names what the trusted one names, under the untrusted CA', () => {
    const untrusted = cert(pki.untrustedServer.certFile);
    expect(untrusted.subjectAltName).toBe(cert(pki.server.certFile).subjectAltName);
    expect(untrusted.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(untrusted.verify(cert(pki.caFile).publicKey)).toBe(false);
    expect(untrusted.verify(cert(pki.untrustedCaFile).publicKey)).toBe(true);
    expect(untrusted.checkPrivateKey(createPrivateKey(readFileSync(pki.untrustedServer.keyFile)))).toBe(true);
  });
});

describe('adapter auth settings', () => {
  let pki: TestPki;
  beforeAll(async () => {
    pki = await testPki();
  });
  const material = () => ({ pki, tokenEndpoint: 'http://127.0.0.1:1/token' });

  test('server settings have exactly the contract shapes', () => {
    const keys = Object.fromEntries(AUTH_MODES.map((mode) => [mode, Object.keys(serverAuthSettings(mode, material())).sort()]));
    expect(keys).toEqual({
      none: ['mode'],
      bearer: ['mode', 'token'],
      oauth: ['audience', 'clock', 'issuer', 'mode', 'purpose', 'signingKey'],
      workload: ['audience', 'clock', 'issuer', 'mode', 'purpose', 'signingKey'],
      mtls: ['caFile', 'certFile', 'keyFile', 'mode'],
    });
    expect(serverAuthSettings('oauth')).toEqual({ mode: 'oauth', signingKey: SIGNING_KEYS.oauth, issuer: ISSUER, audience: AUDIENCE, purpose: 'oauth', clock: FIXTURE_CLOCK });
    expect(serverAuthSettings('workload')).toMatchObject({ signingKey: SIGNING_KEYS.workload, purpose: 'workload' });
    expect(serverAuthSettings('mtls', material())).toEqual({ mode: 'mtls', caFile: pki.caFile, certFile: pki.server.certFile, keyFile: pki.server.keyFile });
    expect(() => serverAuthSettings('mtls')).toThrow(AuthMaterialError);
  });

  test('client settings have exactly the contract shapes, and the workload assertion verifies', async () => {
    const all: Record<string, ClientAuthSettings> = {};
    for (const mode of AUTH_MODES) all[mode] = await clientAuthSettings(mode, material());
    expect(Object.fromEntries(Object.entries(all).map(([mode, s]) => [mode, Object.keys(s).sort()]))).toEqual({
      none: ['mode'],
      bearer: ['mode', 'token'],
      oauth: ['audience', 'clientId', 'clientSecret', 'clock', 'issuer', 'mode', 'purpose', 'signingKey', 'tokenEndpoint'],
      workload: ['assertion', 'audience', 'clock', 'issuer', 'mode', 'purpose', 'signingKey'],
      mtls: ['caFile', 'certFile', 'keyFile', 'mode'],
    });
    expect(all.oauth).toMatchObject({ tokenEndpoint: 'http://127.0.0.1:1/token', clientId: OAUTH_CLIENT_ID, clientSecret: OAUTH_CLIENT_SECRET });
    expect(all.mtls).toEqual({ mode: 'mtls', caFile: pki.caFile, certFile: pki.client.certFile, keyFile: pki.client.keyFile });
    const workload = all.workload as { assertion: string };
    expect(await verifyToken(workload.assertion, serverAuthSettings('workload') as TokenVerifierSettings)).toMatchObject({ ok: true });
    await expect(clientAuthSettings('oauth')).rejects.toThrow(/tokenEndpoint/);
  });

  test('secretsOf lists every secret of a run and nothing public', async () => {
    const workload = (await clientAuthSettings('workload')) as { assertion: string };
    const issued = ['eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJ4In0.c2lnbmF0dXJlLW9mLWEtdG9rZW4tdGhhdC13YXMtaXNzdWVk'];
    const secrets = secretsOf(
      ...AUTH_MODES.map((mode) => serverAuthSettings(mode, material())),
      ...(await Promise.all(AUTH_MODES.map((mode) => clientAuthSettings(mode, material())))),
      { tokens: () => issued },
      pki,
    );
    for (const secret of [STATIC_BEARER, OAUTH_CLIENT_SECRET, SIGNING_KEYS.oauth, SIGNING_KEYS.workload, workload.assertion, issued[0]!]) {
      expect(secrets).toContain(secret);
    }
    expect(secrets).toContain(workload.assertion.split('.')[2]);
    for (const pem of pki.privateKeysPem()) expect(secrets).toContain(pem);
    expect(secrets).toContain(readFileSync(pki.server.keyFile, 'utf8').trim());
    // Public material and labels are not secrets.
    const publicValues = [OAUTH_CLIENT_ID, ISSUER, AUDIENCE, pki.caFile, pki.client.keyFile, readFileSync(pki.caFile, 'utf8').trim(), 'oauth', 'mtls'];
    for (const value of publicValues) expect(secrets).not.toContain(value);
    expect(secrets).toEqual([...new Set(secrets)].sort());
  });
});
