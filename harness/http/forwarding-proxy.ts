// The harness's loopback forwarding proxy on the HTTP path of one client run: the client is given the
// proxy's endpoint (in the same form as the server's), and every request goes to the real server with
// its method, path, headers and body unchanged (only `Host` names the server), every response back
// unchanged. The proxy records each exchange — the request body the client sent and the response
// body and status the server answered — so an HTTP run proves, as a stdio run does through the relay,
// that the client was handed each scenario's scripted response and nothing the server made up.
//
// Headers are forwarded but never recorded or logged: they carry credentials.
//
// mtls: the proxy terminates the client's TLS with the run's test server identity, requiring a client
// certificate the run's CA issued (as the server would), and re-originates the connection to the
// server with that same client identity — the harness generated every key of the run's PKI, so it
// holds the private key of each certificate a client can present. A certificate it does not know is
// refused at the handshake, as the server would refuse it.

import { createServer as createHttpServer, request as httpRequest, Agent as HttpAgent, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';

import { parseJsonText } from '../protocol/json-text.ts';
import { withOrigin } from './endpoint-routes.ts';
import { closedUnderRequest } from './bounded-request.ts';

/** What the proxy needs to stand in for a server whose endpoint is `https:` (auth mode mtls). */
export interface ProxyTls {
  /** PEM of the CA that issued the server identity and the client identities. */
  ca: Buffer;
  /** The server identity the proxy presents to the client. */
  server: { cert: Buffer; key: Buffer };
  /** Every client identity of the run; the one the client presents is used towards the server. */
  clients: Array<{ cert: Buffer; key: Buffer }>;
}

/** One request the client made through the proxy and what the server answered. */
export interface ProxyExchange {
  method: string;
  /** The request path (and query) as the client sent it. */
  path: string;
  /** The request body parsed as JSON; undefined when empty or not JSON (see `requestInvalidJson`). */
  request?: unknown;
  requestInvalidJson?: boolean;
  /** The server's HTTP status; null when the server could not be reached or did not answer. */
  status: number | null;
  /** The response body parsed as JSON; undefined when empty or not JSON (see `responseInvalidJson`). */
  response?: unknown;
  responseInvalidJson?: boolean;
  /** Why there is no status (a connection failure code), never adapter output. */
  failure?: string;
}

export interface ForwardingProxy {
  /** The server's endpoint with the proxy's origin: what the client is given. */
  endpoint: string;
  exchanges(): ProxyExchange[];
  close(): Promise<void>;
}

export interface StartProxyOptions {
  /** The server's AHP endpoint, in whichever form it advertised. */
  upstream: string;
  /** Required when `upstream` is https (mtls). */
  tls?: ProxyTls;
  /** Bodies beyond this many bytes are cut off (the exchange fails). Default 16 MiB. */
  maxBodyBytes?: number;
}

const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

export async function startForwardingProxy(options: StartProxyOptions): Promise<ForwardingProxy> {
  const upstream = new URL(options.upstream);
  const secure = upstream.protocol === 'https:';
  if (secure && !options.tls) throw new TypeError('startForwardingProxy: an https upstream needs the run\'s TLS material (options.tls)');
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const exchanges: ProxyExchange[] = [];
  const identities = (options.tls?.clients ?? []).map((identity) => ({ ...identity, der: new X509Certificate(identity.cert).raw }));
  const httpAgent = new HttpAgent({ keepAlive: true });
  // One agent per client identity, so a pooled connection is never reused for another identity.
  const httpsAgents = new Map<number, HttpsAgent>();
  const agentFor = (identityIndex: number): HttpsAgent => {
    let agent = httpsAgents.get(identityIndex);
    if (!agent) {
      const identity = identities[identityIndex]!;
      agent = new HttpsAgent({ keepAlive: true, ca: options.tls!.ca, cert: identity.cert, key: identity.key });
      httpsAgents.set(identityIndex, agent);
    }
    return agent;
  };

  const listener = (incoming: IncomingMessage, outgoing: ServerResponse): void => {
    void forward(incoming, outgoing).catch(() => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'application/json', connection: 'close' });
      outgoing.end('{"error":"harness proxy failure"}');
    });
  };

  async function forward(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const method = incoming.method ?? 'GET';
    const exchange: ProxyExchange = { method, path: incoming.url ?? '/', status: null };
    exchanges.push(exchange);
    const body = await readAll(incoming, maxBodyBytes);
    if (body === undefined) {
      exchange.failure = 'request body too large';
      outgoing.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
      outgoing.end('{"error":"harness proxy: request body too large"}');
      return;
    }
    if (body.length > 0) {
      const parsed = parseJsonText(body.toString('utf8'));
      if (parsed.ok) exchange.request = parsed.value;
      else exchange.requestInvalidJson = true;
    }

    let agent: HttpAgent | HttpsAgent = httpAgent;
    if (secure) {
      const presented = (incoming.socket as TLSSocket).getPeerCertificate?.()?.raw;
      const index = presented ? identities.findIndex((identity) => identity.der.equals(presented)) : -1;
      if (index < 0) {
        // Verified by the run's CA, yet not one of the run's identities: nothing to forward it as.
        exchange.failure = 'unknown client identity';
        outgoing.writeHead(502, { 'content-type': 'application/json', connection: 'close' });
        outgoing.end('{"error":"harness proxy: unknown client certificate"}');
        return;
      }
      agent = agentFor(index);
    }

    const headers = replaceHost(incoming.rawHeaders, upstream.host);
    const send = secure ? httpsRequest : httpRequest;
    // A pooled connection the server closes (its idle timeout; uvicorn's is 5 s) just as a request goes
    // out on it resets before any answer: that request is sent again on a fresh connection, once. A
    // failure on a fresh connection is the server's, and answered 502.
    const attempt = (): Promise<void> => new Promise<void>((resolve) => {
      const request = send(
        { protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port, method, path: incoming.url, headers, agent, setHost: false },
        (answer) => {
          void readAll(answer, maxBodyBytes).then((bytes) => {
            exchange.status = answer.statusCode ?? null;
            if (bytes === undefined) {
              exchange.failure = 'response body too large';
              outgoing.writeHead(502, { 'content-type': 'application/json', connection: 'close' });
              outgoing.end('{"error":"harness proxy: response body too large"}');
              return resolve();
            }
            if (bytes.length > 0) {
              const parsed = parseJsonText(bytes.toString('utf8'));
              if (parsed.ok) exchange.response = parsed.value;
              else exchange.responseInvalidJson = true;
            }
            outgoing.writeHead(answer.statusCode ?? 502, answer.statusMessage ?? '', withoutFraming(answer.rawHeaders, bytes.length));
            outgoing.end(bytes);
            resolve();
          });
        },
      );
      let answered = false;
      request.once('response', () => (answered = true));
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (closedUnderRequest(request, error.code, answered)) {
          void attempt().then(resolve);
          return;
        }
        exchange.failure = error.code ?? 'upstream error';
        if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'application/json', connection: 'close' });
        outgoing.end('{"error":"harness proxy: the server could not be reached"}');
        resolve();
      });
      request.end(body);
    });
    await attempt();
  }

  const server: Server = secure
    ? (createHttpsServer(
        { cert: options.tls!.server.cert, key: options.tls!.server.key, ca: options.tls!.ca, requestCert: true, rejectUnauthorized: true, minVersion: 'TLSv1.2' },
        listener,
      ) as unknown as Server)
    : createHttpServer(listener);
  // The run watchdog bounds every exchange; a server holding a reply behind a barrier is not idle.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  const origin = await new Promise<string>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(`${secure ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });
  });

  let closed: Promise<void> | undefined;
  return {
    endpoint: withOrigin(options.upstream, origin),
    exchanges: () => exchanges.map((exchange) => ({ ...exchange })),
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        httpAgent.destroy();
        for (const agent of httpsAgents.values()) agent.destroy();
      });
      return closed;
    },
  };
}

async function readAll(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** Raw header pairs with `Host` replaced by the server's (an SDK may check it names itself). */
function replaceHost(raw: string[], host: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'host') continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return ['Host', host, ...out];
}

/**
 * The server's raw response headers for a body the proxy re-sends whole: its own framing
 * (Content-Length / Transfer-Encoding) is replaced by the exact length, nothing else changes.
 */
function withoutFraming(raw: string[], length: number): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (name === 'content-length' || name === 'transfer-encoding') continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return [...out, 'Content-Length', String(length)];
}
