// The client probes' hostile listener (harness/families/auth/hostile-listener.ts): honest answers off the trap,
// the trap's redirect or challenge on its routes, and a record of what arrived that describes every
// credential by kind and length — never by value — including a client certificate offered to it and
// a TLS handshake a client refused.

import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { AUDIENCE, FIXTURE_CLOCK, ISSUER, OAUTH_CLIENT_SECRET, SIGNING_KEYS, STATIC_BEARER } from '../../harness/auth/constants.ts';
import { bodyCredentials, headerCredentials, startHostileListener, type HostileListener, type HostileListenerOptions } from '../../harness/families/auth/hostile-listener.ts';
import { mintToken, verifyToken } from '../../harness/auth/jwt.ts';
import { createTestPki, removeTestPki, type TestPki } from '../../harness/auth/pki.ts';
import { headerValue, rawRequest, type RawOutcome } from '../../harness/families/auth/probes-raw-http.ts';

const CAPABILITIES = { effects: ['allow', 'deny'] };
const RESPONSE = { jsonrpc: '2.0', id: 'row-1', result: { protocolVersion: 'draft', effects: [] } };
const INTERCEPT = JSON.stringify({ jsonrpc: '2.0', id: 'row-1', method: 'hooks/intercept' });
const SECRETS = [STATIC_BEARER, OAUTH_CLIENT_SECRET];

const listeners: HostileListener[] = [];
async function listen(extra: Partial<HostileListenerOptions> = {}): Promise<HostileListener> {
  const listener = await startHostileListener({ capabilities: CAPABILITIES, responses: new Map([['row-1', RESPONSE]]), secrets: SECRETS, ...extra });
  listeners.push(listener);
  return listener;
}
afterAll(async () => {
  await Promise.all(listeners.map((listener) => listener.close()));
});

function json(outcome: RawOutcome): unknown {
  if (outcome.kind !== 'response') throw new Error(`expected a response, got ${outcome.code}`);
  return JSON.parse(outcome.body);
}

describe('answers', () => {
  test('honest: discovery, the scripted response by request id, a valid run token; 400 and 404 otherwise', async () => {
    const listener = await listen();
    expect(json(await rawRequest(listener.origin, { method: 'GET', route: '/capabilities' }))).toEqual(CAPABILITIES);
    expect(json(await rawRequest(listener.origin, { method: 'POST', route: '/intercept', body: INTERCEPT }))).toEqual(RESPONSE);
    expect(await rawRequest(listener.origin, { method: 'POST', route: '/intercept', body: '{"id":"other"}' })).toMatchObject({ kind: 'response', status: 400 });
    expect(await rawRequest(listener.origin, { method: 'GET', route: '/observe' })).toMatchObject({ kind: 'response', status: 404 });
    const issued = await fetch(`${listener.origin}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
    const body = (await issued.json()) as { access_token: string; token_type: string };
    expect(body.token_type).toBe('Bearer');
    const verified = await verifyToken(body.access_token, { signingKey: SIGNING_KEYS.oauth, issuer: ISSUER, audience: AUDIENCE, purpose: 'oauth', clock: FIXTURE_CLOCK });
    expect(verified.ok).toBe(true);

    const record = listener.record();
    expect(record.requests.map((request) => `${request.method} ${request.path} ${request.status} ${request.trapped}`)).toEqual([
      'GET /capabilities 200 false',
      'POST /intercept 200 false',
      'POST /intercept 400 false',
      'GET /observe 404 false',
      'POST /token 200 false',
    ]);
    expect(record.requests.flatMap((request) => request.credentials)).toEqual([]);
  });

  test.each([307, 308] as const)('a %i redirect trap sends the trapped routes to the same path on the other origin, keeping the others honest', async (status) => {
    const listener = await listen({ trap: { kind: 'redirect', status, routes: ['intercept'], to: 'http://127.0.0.1:9' } });
    const redirected = await rawRequest(listener.origin, { method: 'POST', route: '/intercept', body: INTERCEPT, headerLines: [`Authorization: Bearer ${STATIC_BEARER}`] });
    expect(redirected).toMatchObject({ kind: 'response', status });
    expect(headerValue(redirected as Extract<RawOutcome, { kind: 'response' }>, 'location')).toBe('http://127.0.0.1:9/intercept');
    expect(json(await rawRequest(listener.origin, { method: 'GET', route: '/capabilities' }))).toEqual(CAPABILITIES);
    const [trapped, honest] = listener.record().requests;
    expect(trapped).toEqual({ method: 'POST', path: '/intercept', status, trapped: true, credentials: [`Authorization header (Bearer, ${7 + STATIC_BEARER.length} chars) carrying a static bearer token (${STATIC_BEARER.length} chars)`] });
    expect(honest).toMatchObject({ path: '/capabilities', status: 200, trapped: false });
  });

  test('a challenge trap answers 401 with its WWW-Authenticate challenge', async () => {
    const challenge = 'Bearer realm="ahp-interop", error="invalid_token"';
    const listener = await listen({ trap: { kind: 'challenge', routes: ['intercept'], challenge } });
    const answer = await rawRequest(listener.origin, { method: 'POST', route: '/intercept', body: INTERCEPT });
    expect(answer).toMatchObject({ kind: 'response', status: 401 });
    expect(headerValue(answer as Extract<RawOutcome, { kind: 'response' }>, 'www-authenticate')).toBe(challenge);
    expect(listener.record().requests).toEqual([{ method: 'POST', path: '/intercept', status: 401, trapped: true, credentials: [] }]);
  });
});

describe('credential descriptions never hold a value', () => {
  test('credential header fields by scheme and length; a secret in any other field by its kind', async () => {
    const token = await mintToken('oauth');
    const found = headerCredentials(
      [
        'Authorization', `Bearer ${token}`,
        'Proxy-Authorization', STATIC_BEARER,
        'Cookie', `session=${STATIC_BEARER}`,
        'X-Api-Key', STATIC_BEARER,
        'Accept', 'application/json',
      ],
      [...SECRETS, token],
    );
    expect(found).toEqual([
      `Authorization header (Bearer, ${token.length + 7} chars) carrying a signed token (JWT) (${token.length} chars)`,
      `Proxy-Authorization header (no recognised scheme, ${STATIC_BEARER.length} chars) carrying a static bearer token (${STATIC_BEARER.length} chars)`,
      `Cookie header (${STATIC_BEARER.length + 8} chars) carrying a static bearer token (${STATIC_BEARER.length} chars)`,
      `x-api-key header carrying a static bearer token (${STATIC_BEARER.length} chars)`,
    ]);
    for (const line of found) for (const secret of [...SECRETS, token]) expect(line).not.toContain(secret);
  });

  test('OAuth client-credential form fields and secrets in a body', () => {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: 'ahp-interop-client', client_secret: OAUTH_CLIENT_SECRET }).toString();
    const found = bodyCredentials(form, 'application/x-www-form-urlencoded; charset=utf-8', SECRETS);
    expect(found).toEqual([
      'client_id form field (18 chars)',
      `client_secret form field (${OAUTH_CLIENT_SECRET.length} chars)`,
      `a body carrying an OAuth client secret (${OAUTH_CLIENT_SECRET.length} chars)`,
    ]);
    expect(found.join('\n')).not.toContain(OAUTH_CLIENT_SECRET);
    expect(bodyCredentials(INTERCEPT, 'application/json', SECRETS)).toEqual([]);
  });
});

describe('TLS', () => {
  let pki: TestPki;
  const read = (file: string): Buffer => readFileSync(file);
  beforeAll(async () => {
    pki = await createTestPki();
  });
  afterAll(() => removeTestPki(pki));

  test('a client certificate offered to it is recorded per handshake and per request', async () => {
    const listener = await listen({ tls: { cert: read(pki.server.certFile), key: read(pki.server.keyFile), ca: read(pki.caFile) } });
    const tls = { ca: read(pki.caFile), cert: read(pki.client.certFile), key: read(pki.client.keyFile) };
    expect(json(await rawRequest(listener.origin, { method: 'GET', route: '/capabilities', tls }))).toEqual(CAPABILITIES);
    expect(json(await rawRequest(listener.origin, { method: 'GET', route: '/capabilities', tls: { ca: tls.ca } }))).toEqual(CAPABILITIES);
    const record = listener.record();
    expect(record.connections).toBe(2);
    expect(record.handshakes).toEqual([{ clientCertificate: 'ahp-interop-client' }, {}]);
    expect(record.requests.map((request) => request.credentials)).toEqual([['client certificate (CN=ahp-interop-client)'], []]);
  });

  test('a client that refuses its untrusted certificate leaves a connection and no handshake', async () => {
    const listener = await listen({ tls: { cert: read(pki.untrustedServer.certFile), key: read(pki.untrustedServer.keyFile), ca: read(pki.caFile) } });
    const refused = await rawRequest(listener.origin, { method: 'GET', route: '/capabilities', tls: { ca: read(pki.caFile), cert: read(pki.client.certFile), key: read(pki.client.keyFile) } });
    expect(refused).toMatchObject({ kind: 'failure', connected: true, secured: false });
    const record = listener.record();
    expect(record.connections).toBe(1);
    expect(record.handshakes).toEqual([]);
    expect(record.requests).toEqual([]);
  });
});
