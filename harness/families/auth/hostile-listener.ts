// A loopback HTTP(S) listener the harness owns for the client-side credential probes. One listener
// plays each part a probe needs: the hostile AHP endpoint a client adapter is pointed at, the hostile
// OAuth issuer of the client's auth config, and the second origin a redirect points to.
//
// It answers like an honest endpoint (`GET /capabilities` → the bare capability set, `POST
// /intercept` → the scripted response for the request's id, `POST /token` → a valid run token), except
// on the routes its trap names, which get the trap's answer (a 307/308 redirect to another origin, or
// a 401 challenge). The honest answers exist for clients that do follow a redirect: they carry on as
// if nothing happened, so what they leak and what they report both show.
//
// It records what arrives: TCP connections, completed TLS handshakes with the client certificate
// offered, and every request with the credential-bearing material it carried — described by kind and
// length, never by value (Authorization, Proxy-Authorization and Cookie fields, any header or body that
// contains a secret of the run, OAuth client-credential form fields, the client certificate). A TLS
// listener requests a client certificate and accepts any, so an offered one is always seen.

import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

import { readBody, sendJson } from '../../http/json-body.ts';
import { isJsonObject, type JsonObject } from '../../protocol/json.ts';
import { parseJsonText } from '../../protocol/json-text.ts';
import { TOKEN_LIFETIME_SECONDS } from '../../auth/constants.ts';
import { mintToken } from '../../auth/jwt.ts';
import { scanText, secretKind } from './probes-secret-scan.ts';

export type ListenerRoute = 'discovery' | 'intercept' | 'token';

export type ListenerTrap =
  /** Redirect (method and body preserved) to the same path on `to` (an origin). */
  | { kind: 'redirect'; status: 307 | 308; routes: readonly ListenerRoute[]; to: string }
  /** 401 with `WWW-Authenticate: <challenge>`. */
  | { kind: 'challenge'; routes: readonly ListenerRoute[]; challenge: string };

export interface HostileListenerOptions {
  /** Serve HTTPS with this identity, requesting (never requiring) a client certificate issued by `ca`. */
  tls?: { cert: Buffer; key: Buffer; ca: Buffer };
  trap?: ListenerTrap;
  /** The bare capability set `GET /capabilities` answers. */
  capabilities: JsonObject;
  /** The scripted response of each request, by the request's JSON-RPC id. */
  responses: ReadonlyMap<string | number, unknown>;
  /** Every secret of the run: a header or body containing one is recorded by its kind. */
  secrets: readonly string[];
}

export interface RecordedRequest {
  method: string;
  /** The request path without its query. */
  path: string;
  /** The status it was answered with (0 while unanswered). */
  status: number;
  /** Whether the trap answered it. */
  trapped: boolean;
  /** The credential-bearing material it carried, described (kind, length), never the values. */
  credentials: string[];
}

export interface ListenerRecord {
  /** TCP connections accepted. */
  connections: number;
  /** TLS handshakes that completed, each with the CN of the client certificate offered, if one was. */
  handshakes: Array<{ clientCertificate?: string }>;
  requests: RecordedRequest[];
}

export interface HostileListener {
  /** `http(s)://127.0.0.1:PORT`. */
  origin: string;
  /** A copy of what arrived so far. */
  record(): ListenerRecord;
  close(): Promise<void>;
}

/** Request bodies larger than this are not read (and answered 413). */
const MAX_BODY_BYTES = 1024 * 1024;

const ROUTES: ReadonlyMap<string, ListenerRoute> = new Map([
  ['GET /capabilities', 'discovery'],
  ['POST /intercept', 'intercept'],
  ['POST /token', 'token'],
]);

export async function startHostileListener(options: HostileListenerOptions): Promise<HostileListener> {
  const record: ListenerRecord = { connections: 0, handshakes: [], requests: [] };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const method = request.method ?? 'GET';
    const pathname = new URL(request.url ?? '/', 'http://listener').pathname;
    const entry: RecordedRequest = { method, path: pathname, status: 0, trapped: false, credentials: headerCredentials(request.rawHeaders, options.secrets) };
    const certificate = clientCertificateOf(request.socket);
    if (certificate !== undefined) entry.credentials.push(`client certificate (CN=${certificate})`);
    record.requests.push(entry);

    const body = await readBody(request, MAX_BODY_BYTES);
    if (body.ok) entry.credentials.push(...bodyCredentials(body.text, request.headers['content-type'], options.secrets));
    const answer = (status: number, write: () => void): void => {
      entry.status = status;
      write();
    };
    if (!body.ok) return answer(body.status, () => sendJson(response, body.status, { error: 'unreadable request body' }));

    const route = ROUTES.get(`${method} ${pathname}`);
    const trap = options.trap;
    if (trap && route && trap.routes.includes(route)) {
      entry.trapped = true;
      if (trap.kind === 'redirect') {
        return answer(trap.status, () => response.writeHead(trap.status, { location: `${trap.to}${request.url ?? '/'}`, 'content-length': '0' }).end());
      }
      return answer(401, () => sendJson(response, 401, { error: 'invalid_token' }, { 'www-authenticate': trap.challenge }));
    }
    switch (route) {
      case 'discovery':
        return answer(200, () => sendJson(response, 200, options.capabilities));
      case 'intercept': {
        const parsed = parseJsonText(body.text);
        const id = parsed.ok && isJsonObject(parsed.value) ? parsed.value.id : undefined;
        const scripted = typeof id === 'string' || typeof id === 'number' ? options.responses.get(id) : undefined;
        if (scripted === undefined) return answer(400, () => sendJson(response, 400, { error: 'not a scripted request' }));
        return answer(200, () => sendJson(response, 200, scripted));
      }
      case 'token': {
        const token = await mintToken('oauth');
        return answer(200, () => sendJson(response, 200, { access_token: token, token_type: 'Bearer', expires_in: TOKEN_LIFETIME_SECONDS }, { pragma: 'no-cache' }));
      }
      case undefined:
        return answer(404, () => sendJson(response, 404, { error: 'not found' }));
    }
  };

  const listener = (request: IncomingMessage, response: ServerResponse): void => {
    handle(request, response).catch(() => {
      if (!response.headersSent) sendJson(response, 500, { error: 'listener failure' });
      else response.destroy();
    });
  };

  const server: Server = options.tls
    ? (createHttpsServer({ ...options.tls, requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' }, listener) as unknown as Server)
    : createHttpServer(listener);
  server.on('connection', () => record.connections++);
  if (options.tls) {
    server.on('secureConnection', (socket: TLSSocket) => {
      const certificate = clientCertificateOf(socket);
      record.handshakes.push(certificate === undefined ? {} : { clientCertificate: certificate });
    });
    // A refused handshake is the client's answer, not an error of ours.
    server.on('tlsClientError', () => undefined);
  }

  const origin = await new Promise<string>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(`${options.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });
  });

  let closed: Promise<void> | undefined;
  return {
    origin,
    record: () => ({
      connections: record.connections,
      handshakes: record.handshakes.map((handshake) => ({ ...handshake })),
      requests: record.requests.map((request) => ({ ...request, credentials: [...request.credentials] })),
    }),
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

function clientCertificateOf(socket: Socket): string | undefined {
  const peer = (socket as Partial<TLSSocket>).getPeerCertificate?.();
  if (!peer || Object.keys(peer).length === 0) return undefined;
  const cn = peer.subject?.CN;
  return typeof cn === 'string' ? cn : Array.isArray(cn) ? cn.join('+') : 'no CN';
}

/** Authentication schemes named in a description; anything else could be the credential itself. */
const SCHEMES = /^(Bearer|Basic|Digest|DPoP|Negotiate|Token|Mac)$/i;
const CREDENTIAL_HEADERS: ReadonlyMap<string, string> = new Map([
  ['authorization', 'Authorization'],
  ['proxy-authorization', 'Proxy-Authorization'],
  ['cookie', 'Cookie'],
]);
/** OAuth form fields that carry client credentials or an assertion. */
const CREDENTIAL_FIELDS = ['client_id', 'client_secret', 'client_assertion', 'assertion', 'refresh_token', 'password'];

/** The credential-bearing header fields among `rawHeaders` (name/value pairs), described. */
export function headerCredentials(rawHeaders: readonly string[], secrets: readonly string[]): string[] {
  const found: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    const value = rawHeaders[i + 1]!;
    const known = CREDENTIAL_HEADERS.get(name.toLowerCase());
    const carried = secretsIn(value, secrets);
    if (known !== undefined) {
      const scheme = value.trim().split(/\s+/)[0] ?? '';
      const how = known === 'Cookie' ? '' : SCHEMES.test(scheme) ? `${scheme}, ` : 'no recognised scheme, ';
      found.push(`${known} header (${how}${value.length} chars)${carried.length > 0 ? ` carrying ${carried.join(' and ')}` : ''}`);
    } else if (carried.length > 0) {
      found.push(`${name.toLowerCase()} header carrying ${carried.join(' and ')}`);
    }
  }
  return found;
}

/** OAuth credential form fields and run secrets in a request body, described. */
export function bodyCredentials(text: string, contentType: string | undefined, secrets: readonly string[]): string[] {
  const found: string[] = [];
  if (typeof contentType === 'string' && contentType.split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams(text);
    for (const field of CREDENTIAL_FIELDS) {
      const value = form.get(field);
      if (value !== null) found.push(`${field} form field (${value.length} chars)`);
    }
  }
  const carried = secretsIn(text, secrets);
  if (carried.length > 0) found.push(`a body carrying ${carried.join(' and ')}`);
  return found;
}

/** The run secrets `text` contains, described; a secret inside another one found (a JWT's signature) is left out. */
function secretsIn(text: string, secrets: readonly string[]): string[] {
  const found = secrets.filter((secret) => scanText('', text, [secret]).length > 0);
  return found
    .filter((secret) => !found.some((other) => other !== secret && other.includes(secret)))
    .map((secret) => {
      const kind = secretKind(secret);
      return `${/^[aeiou]/i.test(kind) ? 'an' : 'a'} ${kind} (${secret.length} chars)`;
    });
}
