// Hand-written HTTP/1.1 requests over node:net / node:tls, for the raw-wire auth probes. undici and
// fetch merge or reject repeated header fields, so a request with two `Authorization` lines can only
// be sent like this: every entry of `headerLines` goes on the wire as its own field line, verbatim.
//
// One request per connection (`Connection: close`); the outcome is either the parsed response or a
// failure code (a refused TLS handshake, a reset, a timeout). Nothing here logs or echoes what it
// sends: header lines may carry credentials.

import net from 'node:net';
import tls from 'node:tls';

import { endpointRoutes } from '../../http/endpoint-routes.ts';

export interface RawRequest {
  method: 'GET' | 'POST';
  /**
   * The AHP route, resolved beside the endpoint whichever form it has (a base URL, or one ending in
   * `/intercept`; see harness/http/endpoint-routes.ts).
   */
  route: '/capabilities' | '/intercept' | '/observe';
  /** Extra header lines (`Name: value`), each sent as its own field line, in order. */
  headerLines?: readonly string[];
  /** Request body (POST): sent as application/json with its Content-Length. */
  body?: string;
  /** TLS options for an https endpoint: the trust anchor and, optionally, a client identity. */
  tls?: { ca: Buffer; cert?: Buffer; key?: Buffer };
  /** Bound for the whole exchange. Default 10000 ms. */
  timeoutMs?: number;
}

export type RawOutcome =
  | {
      kind: 'response';
      status: number;
      /** Header fields in arrival order, names lower-cased. */
      headers: Array<[name: string, value: string]>;
      body: string;
    }
  | {
      kind: 'failure';
      /** An error code (`ECONNRESET`, `ERR_SSL_...`, `TIMEOUT`, `NO_RESPONSE`, ...). */
      code: string;
      /** Whether the TCP connection was established (a refused handshake happens after this). */
      connected: boolean;
      /** For TLS: whether the handshake completed from the client's side (TLS 1.3 servers may still refuse after it). */
      secured: boolean;
    };

/** The first value of header `name` (lower-case) in a raw response. */
export function headerValue(outcome: Extract<RawOutcome, { kind: 'response' }>, name: string): string | undefined {
  return outcome.headers.find(([key]) => key === name)?.[1];
}

export function rawRequest(endpoint: string, request: RawRequest): Promise<RawOutcome> {
  const routes = endpointRoutes(endpoint);
  const url = new URL(request.route === '/capabilities' ? routes.capabilities : request.route === '/intercept' ? routes.intercept : routes.observe);
  const body = request.body ?? '';
  const route = url.pathname;
  const head = [
    `${request.method} ${route} HTTP/1.1`,
    `Host: ${url.host}`,
    'Connection: close',
    'Accept: application/json',
    ...(request.method === 'POST' ? ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`] : []),
    ...(request.headerLines ?? []),
  ];
  const wire = `${head.join('\r\n')}\r\n\r\n${request.method === 'POST' ? body : ''}`;
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');

  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let failure: string | undefined;
    let connected = false;
    let secured = false;
    const socket: net.Socket =
      url.protocol === 'https:'
        ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ...request.tls }, () => {
            secured = true;
            socket.write(wire);
          })
        : net.connect({ host, port }, () => socket.write(wire));
    socket.once('connect', () => (connected = true));
    socket.setTimeout(request.timeoutMs ?? 10_000, () => socket.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => (failure ??= error.code ?? error.message));
    socket.on('close', () => {
      const parsed = parseResponse(Buffer.concat(chunks));
      if (parsed) return resolve(parsed);
      resolve({ kind: 'failure', code: failure ?? 'NO_RESPONSE', connected, secured });
    });
  });
}

function parseResponse(bytes: Buffer): Extract<RawOutcome, { kind: 'response' }> | undefined {
  const split = bytes.indexOf('\r\n\r\n');
  if (split < 0) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, split).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(statusLine);
  if (!status) return undefined;
  const headers: Array<[string, string]> = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
  }
  let body = bytes.subarray(split + 4);
  const chunked = headers.some(([name, value]) => name === 'transfer-encoding' && /chunked/i.test(value));
  if (chunked) body = dechunk(body);
  else {
    const length = Number(headers.find(([name]) => name === 'content-length')?.[1] ?? NaN);
    if (Number.isInteger(length) && length >= 0) body = body.subarray(0, length);
  }
  return { kind: 'response', status: Number(status[1]), headers, body: body.toString('utf8') };
}

function dechunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const lineEnd = bytes.indexOf('\r\n', offset);
    if (lineEnd < 0) break;
    const size = Number.parseInt(bytes.subarray(offset, lineEnd).toString('latin1').split(';')[0]!.trim(), 16);
    if (!Number.isFinite(size) || size <= 0) break;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
