// The reference client's credentials for the AHP event endpoint, by auth mode:
//
// - bearer: the configured static token.
// - oauth: one access token from `tokenEndpoint` (client-credentials grant, client_secret_post form
//   fields, `audience` and RFC 8707 `resource` = the configured audience), acquired on first use and
//   kept for the run. Redirects are never followed (undici's request() does not follow them; a 3xx
//   is a failure). The token is validated locally (signature, issuer, audience, purpose, validity at
//   the fixed clock) before it is ever sent.
// - workload: the configured assertion, validated locally the same way, sent as a Bearer token.
// - mtls: no header; the TLS client certificate goes through `tlsConnectOptions`.
//
// The resulting Authorization header is only ever attached by HttpChannel to requests for the event
// endpoint's own routes. Failures are fixed labels ("auth: ..."), never a value, URL or path.

import { Agent, request } from 'undici';

import { verifyToken } from '../../../harness/auth/jwt.ts';
import type { ClientAuth, SignedTokenSettings } from '../auth.ts';

export type CredentialResult = { ok: true; headers: Record<string, string> } | { ok: false; error: string };

const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;
const TOKEN_TIMEOUT_MS = 10_000;

export class ClientCredentials {
  private acquired: Promise<CredentialResult> | undefined;

  constructor(private readonly auth: ClientAuth) {}

  /** TLS options for the event endpoint's connections (mtls: our certificate + the trusted CA). */
  tlsConnectOptions(): { ca: Buffer; cert: Buffer; key: Buffer } | undefined {
    return this.auth.mode === 'mtls' ? { ca: this.auth.tls.ca, cert: this.auth.tls.cert, key: this.auth.tls.key } : undefined;
  }

  /** Headers carrying the credential for one event-endpoint request. */
  headers(): Promise<CredentialResult> {
    this.acquired ??= this.acquire();
    return this.acquired;
  }

  private async acquire(): Promise<CredentialResult> {
    const auth = this.auth;
    switch (auth.mode) {
      case 'none':
      case 'mtls':
        return { ok: true, headers: {} };
      case 'bearer':
        return bearer(auth.token);
      case 'workload': {
        const checked = await verifyToken(auth.assertion, auth.token);
        if (!checked.ok) return { ok: false, error: `auth: workload assertion fails local validation (${checked.reason})` };
        return bearer(auth.assertion);
      }
      case 'oauth':
        return fetchAccessToken(auth.tokenEndpoint, auth.clientId, auth.clientSecret, auth.token);
    }
  }
}

function bearer(token: string): CredentialResult {
  return { ok: true, headers: { authorization: `Bearer ${token}` } };
}

async function fetchAccessToken(endpoint: URL, clientId: string, clientSecret: string, expected: SignedTokenSettings): Promise<CredentialResult> {
  const fail = (error: string): CredentialResult => ({ ok: false, error: `auth: ${error}` });
  const agent = new Agent({ connect: { timeout: TOKEN_TIMEOUT_MS } });
  const signal = AbortSignal.timeout(TOKEN_TIMEOUT_MS);
  try {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
      audience: expected.audience,
      resource: expected.audience,
    });
    const response = await request(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      dispatcher: agent,
      signal,
      headersTimeout: TOKEN_TIMEOUT_MS,
      bodyTimeout: TOKEN_TIMEOUT_MS,
    });
    if (response.statusCode >= 300 && response.statusCode < 400) {
      await response.body.dump().catch(() => undefined);
      return fail(`token endpoint answered a redirect (HTTP status ${response.statusCode}); redirects are not followed`);
    }
    if (response.statusCode !== 200) {
      await response.body.dump().catch(() => undefined);
      return fail(`token request refused (HTTP status ${response.statusCode})`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_TOKEN_RESPONSE_BYTES) {
        response.body.destroy();
        return fail('token response too large');
      }
      chunks.push(chunk as Buffer);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return fail('token response is not JSON');
    }
    const body = parsed as { access_token?: unknown; token_type?: unknown };
    if (typeof body.access_token !== 'string' || body.access_token === '') return fail('token response has no access_token');
    if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer') return fail('token response is not a Bearer token');
    const checked = await verifyToken(body.access_token, expected);
    if (!checked.ok) return fail(`acquired token fails local validation (${checked.reason})`);
    return bearer(body.access_token);
  } catch (error) {
    if (signal.aborted) return fail(`token request timed out after ${TOKEN_TIMEOUT_MS} ms`);
    const code = (error as { code?: unknown }).code;
    return fail(typeof code === 'string' ? `token request failed (${code})` : 'token request failed');
  } finally {
    await agent.close().catch(() => undefined);
  }
}
