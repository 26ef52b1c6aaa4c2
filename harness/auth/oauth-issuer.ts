// A local OAuth 2.0 issuer the harness owns for a run (loopback, port 0): `POST /token` with the
// client-credentials grant only. It authenticates the test client (client_secret_post form fields or
// HTTP Basic, never both), checks an optional `audience` (or RFC 8707 `resource`) against the one
// audience it serves, and issues `purpose: "oauth"` JWTs signed for the fixed fixture clock.
// Bodies are bounded; errors are RFC 6749 JSON (`invalid_client`, `invalid_request`, ...). It never
// redirects and never logs a request.

import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

import { AUDIENCE, FIXTURE_CLOCK, ISSUER, OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET, SIGNING_KEYS, TOKEN_LIFETIME_SECONDS } from './constants.ts';
import { secretsEqual } from './constant-time.ts';
import { mintToken } from './jwt.ts';
import { readBody, sendJson } from '../http/json-body.ts';

/** Request bodies larger than this get 413. */
export const MAX_TOKEN_REQUEST_BYTES = 8 * 1024;

export interface OAuthIssuerOptions {
  clientId?: string;
  clientSecret?: string;
  audience?: string;
  issuer?: string;
  signingKey?: string;
  clock?: number;
}

export interface OAuthIssuer {
  /** `http://127.0.0.1:PORT/token`. */
  tokenEndpoint: string;
  /** How many tokens were issued so far. */
  issued(): number;
  /** Every token issued so far, in order (for the credential-hygiene scan). */
  tokens(): string[];
  /** How many token requests were refused so far. */
  refused(): number;
  close(): Promise<void>;
}

type TokenError = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_target';

class Refusal {
  constructor(
    readonly status: 400 | 401 | 404 | 405 | 413,
    readonly error: TokenError | 'not_found' | 'method_not_allowed',
    readonly headers: Record<string, string> = {},
  ) {}
}

export async function startOAuthIssuer(options: OAuthIssuerOptions = {}): Promise<OAuthIssuer> {
  const settings = {
    clientId: options.clientId ?? OAUTH_CLIENT_ID,
    clientSecret: options.clientSecret ?? OAUTH_CLIENT_SECRET,
    audience: options.audience ?? AUDIENCE,
    issuer: options.issuer ?? ISSUER,
    signingKey: options.signingKey ?? SIGNING_KEYS.oauth,
    clock: options.clock ?? FIXTURE_CLOCK,
  };
  const tokens: string[] = [];
  let refused = 0;

  const server = createServer((request, response) => {
    handle(request).then(
      (token) => {
        tokens.push(token);
        // RFC 6749 §5.1: token responses are never cached.
        sendJson(response, 200, { access_token: token, token_type: 'Bearer', expires_in: TOKEN_LIFETIME_SECONDS }, { pragma: 'no-cache' });
      },
      (error: unknown) => {
        refused++;
        if (error instanceof Refusal) return sendJson(response, error.status, { error: error.error }, error.headers);
        sendJson(response, 500, { error: 'server_error' });
      },
    );
  });

  async function handle(request: IncomingMessage): Promise<string> {
    const pathname = new URL(request.url ?? '/', 'http://issuer').pathname;
    if (pathname !== '/token') throw drained(request, new Refusal(404, 'not_found'));
    if (request.method !== 'POST') throw drained(request, new Refusal(405, 'method_not_allowed', { allow: 'POST' }));
    const type = request.headers['content-type'];
    if (typeof type !== 'string' || type.split(';')[0]!.trim().toLowerCase() !== 'application/x-www-form-urlencoded') {
      throw drained(request, new Refusal(400, 'invalid_request'));
    }
    const read = await readBody(request, MAX_TOKEN_REQUEST_BYTES);
    if (!read.ok) throw drained(request, new Refusal(read.status, 'invalid_request', read.status === 413 ? { connection: 'close' } : {}));
    const body = read.text;
    const form = new URLSearchParams(body);
    // RFC 6749 §3.2: request parameters must not be included more than once.
    for (const name of new Set(form.keys())) if (form.getAll(name).length > 1) throw new Refusal(400, 'invalid_request');

    const grant = form.get('grant_type');
    if (grant === null) throw new Refusal(400, 'invalid_request');
    if (grant !== 'client_credentials') throw new Refusal(400, 'unsupported_grant_type');

    const client = clientCredentials(request, form);
    if (!client) throw new Refusal(401, 'invalid_client');
    const idOk = secretsEqual(client.id, settings.clientId);
    const secretOk = secretsEqual(client.secret, settings.clientSecret);
    if (!idOk || !secretOk) {
      throw new Refusal(401, 'invalid_client', client.basic ? { 'www-authenticate': 'Basic realm="ahp-interop-issuer"' } : {});
    }

    for (const name of ['audience', 'resource']) {
      const value = form.get(name);
      if (value !== null && value !== settings.audience) throw new Refusal(400, 'invalid_target');
    }
    return mintToken('oauth', { iss: settings.issuer, aud: settings.audience, sub: settings.clientId, iat: settings.clock, exp: settings.clock + TOKEN_LIFETIME_SECONDS, signingKey: settings.signingKey });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    tokenEndpoint: `http://127.0.0.1:${port}/token`,
    issued: () => tokens.length,
    tokens: () => [...tokens],
    refused: () => refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Client authentication: exactly one of HTTP Basic or client_secret_post; undefined when neither or both. */
function clientCredentials(request: IncomingMessage, form: URLSearchParams): { id: string; secret: string; basic: boolean } | undefined {
  const authorizations = authorizationFields(request);
  const postId = form.get('client_id');
  const postSecret = form.get('client_secret');
  if (authorizations.length > 1) return undefined;
  const header = authorizations[0];
  if (header !== undefined) {
    if (postSecret !== null) return undefined;
    const match = /^Basic +([A-Za-z0-9+/]+=*)$/i.exec(header);
    if (!match) return undefined;
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    try {
      // RFC 6749 §2.3.1: both parts are form-urlencoded before Basic encoding.
      const id = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      const secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
      if (postId !== null && postId !== id) return undefined;
      return { id, secret, basic: true };
    } catch {
      return undefined;
    }
  }
  if (postId === null || postSecret === null) return undefined;
  return { id: postId, secret: postSecret, basic: false };
}

function authorizationFields(request: IncomingMessage): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
    if (request.rawHeaders[i]!.toLowerCase() === 'authorization') values.push(request.rawHeaders[i + 1]!);
  }
  return values;
}

function drained(request: IncomingMessage, refusal: Refusal): Refusal {
  request.resume();
  return refusal;
}

