// The harness's HTTP forwarding proxy (harness/http/forwarding-proxy.ts) and the endpoint forms every
// URL of ours is built from (harness/http/endpoint-routes.ts): the proxy must be invisible to both
// sides — bytes, status and headers unchanged (Host aside), duplicate fields kept — while recording
// exactly what was exchanged and nothing of the headers; under mtls it must present the run's server
// identity, insist on a client certificate of the run, and reach the server as that same client.

import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { rawRequest } from '../../harness/families/auth/probes-raw-http.ts';
import { createTestPki, removeTestPki, type TestPki } from '../../harness/auth/pki.ts';
import { boundedRequest } from '../../harness/http/bounded-request.ts';
import { endpointRoutes, withOrigin } from '../../harness/http/endpoint-routes.ts';
import { startForwardingProxy, type ProxyTls } from '../../harness/http/forwarding-proxy.ts';
import { startResettingServer, type ResettingServer } from './support/resetting-server.ts';

describe('endpoint forms', () => {
  test.each([
    ['http://127.0.0.1:5', 'http://127.0.0.1:5/'],
    ['http://127.0.0.1:5/', 'http://127.0.0.1:5/'],
    ['http://127.0.0.1:5/intercept', 'http://127.0.0.1:5/'],
    ['http://127.0.0.1:5/intercept/', 'http://127.0.0.1:5/'],
    ['https://127.0.0.1:5/hooks', 'https://127.0.0.1:5/hooks/'],
    ['https://127.0.0.1:5/hooks/intercept', 'https://127.0.0.1:5/hooks/'],
  ])('%s resolves its routes beside %s', (endpoint, base) => {
    const routes = endpointRoutes(endpoint);
    expect(routes).toEqual({ base, intercept: `${base}intercept`, capabilities: `${base}capabilities`, observe: `${base}observe` });
  });
  test.each([
    ['http://127.0.0.1:5', 'http://127.0.0.1:9'],
    ['http://127.0.0.1:5/', 'http://127.0.0.1:9/'],
    ['http://127.0.0.1:5/intercept', 'http://127.0.0.1:9/intercept'],
    ['https://127.0.0.1:5/hooks/intercept', 'https://127.0.0.1:9/hooks/intercept'],
  ])('a proxy advertises %s as %s (same form, its own origin)', (endpoint, expected) => {
    expect(withOrigin(endpoint, expected.startsWith('https') ? 'https://127.0.0.1:9' : 'http://127.0.0.1:9')).toBe(expected);
  });
});

interface Seen {
  method: string;
  url: string;
  rawHeaders: string[];
  body: string;
  peerCn?: string;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** An echo server: answers each request with a fixed status, header and body, and records what it saw. */
function echoServer(seen: Seen[], create: (listener: (req: IncomingMessage, res: ServerResponse) => void) => Server): Server {
  return create((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const peer = (req.socket as TLSSocket).getPeerCertificate?.();
      seen.push({ method: req.method!, url: req.url!, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks).toString('utf8'), ...(peer?.subject ? { peerCn: String(peer.subject.CN) } : {}) });
      const body = req.url === '/intercept' ? '{"jsonrpc":"2.0","id":"r1","vendor":1,"result":{"protocolVersion":"draft","effects":[]}}' : 'not json';
      res.writeHead(req.url === '/intercept' ? 200 : 418, { 'content-type': 'application/json', 'x-server': 'echo', 'Set-Cookie': ['a=1', 'b=2'] });
      res.end(body);
    });
  });
}

describe('over plain HTTP', () => {
  const seen: Seen[] = [];
  let server: Server;
  let endpoint = '';
  beforeAll(async () => {
    server = echoServer(seen, (listener) => createHttpServer(listener));
    endpoint = `http://127.0.0.1:${await listen(server)}/intercept`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('forwards method, path, body and every header field unchanged but Host; answers unchanged; records bodies only', async () => {
    const proxy = await startForwardingProxy({ upstream: endpoint });
    try {
      expect(proxy.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/intercept$/);
      const body = '{"jsonrpc":"2.0","id":"r1","method":"hooks/intercept","params":{}}';
      const answer = await rawRequest(proxy.endpoint, {
        method: 'POST',
        route: '/intercept',
        body,
        headerLines: ['Authorization: Bearer TEST-ONLY-one', 'authorization: Bearer TEST-ONLY-two', 'X-Trace: 7'],
      });
      expect(answer).toMatchObject({ kind: 'response', status: 200, body: '{"jsonrpc":"2.0","id":"r1","vendor":1,"result":{"protocolVersion":"draft","effects":[]}}' });
      if (answer.kind !== 'response') return;
      expect(answer.headers.filter(([name]) => name === 'set-cookie').map(([, value]) => value)).toEqual(['a=1', 'b=2']);
      expect(answer.headers).toContainEqual(['x-server', 'echo']);

      const forwarded = seen.at(-1)!;
      expect(forwarded).toMatchObject({ method: 'POST', url: '/intercept', body });
      const pairs = (raw: string[]): Array<[string, string]> => Array.from({ length: raw.length / 2 }, (_, i) => [raw[2 * i]!, raw[2 * i + 1]!]);
      const headers = pairs(forwarded.rawHeaders);
      // Both Authorization fields arrive, in order, as separate lines; Host names the server.
      expect(headers.filter(([name]) => name.toLowerCase() === 'authorization')).toEqual([
        ['Authorization', 'Bearer TEST-ONLY-one'],
        ['authorization', 'Bearer TEST-ONLY-two'],
      ]);
      expect(headers).toContainEqual(['X-Trace', '7']);
      expect(headers.find(([name]) => name.toLowerCase() === 'host')?.[1]).toBe(new URL(endpoint).host);

      const exchanges = proxy.exchanges();
      expect(exchanges).toEqual([
        {
          method: 'POST',
          path: '/intercept',
          request: JSON.parse(body),
          status: 200,
          response: { jsonrpc: '2.0', id: 'r1', vendor: 1, result: { protocolVersion: 'draft', effects: [] } },
        },
      ]);
      expect(JSON.stringify(exchanges)).not.toContain('TEST-ONLY');
    } finally {
      await proxy.close();
    }
  });

  test('a non-JSON answer and an error status are recorded as such and still forwarded', async () => {
    const proxy = await startForwardingProxy({ upstream: endpoint });
    try {
      const answer = await rawRequest(proxy.endpoint, { method: 'GET', route: '/capabilities' });
      expect(answer).toMatchObject({ kind: 'response', status: 418, body: 'not json' });
      expect(proxy.exchanges()).toEqual([{ method: 'GET', path: '/capabilities', status: 418, responseInvalidJson: true }]);
    } finally {
      await proxy.close();
    }
  });

  test('a server that is gone is recorded as unanswered with its failure code', async () => {
    const gone = createHttpServer();
    const port = await listen(gone);
    await new Promise<void>((resolve) => gone.close(() => resolve()));
    const proxy = await startForwardingProxy({ upstream: `http://127.0.0.1:${port}` });
    try {
      const answer = await rawRequest(proxy.endpoint, { method: 'POST', route: '/intercept', body: '{"jsonrpc":"2.0","id":"x","method":"hooks/intercept"}' });
      expect(answer).toMatchObject({ kind: 'response', status: 502 });
      expect(proxy.exchanges()).toMatchObject([{ status: null, failure: 'ECONNREFUSED', request: { id: 'x' } }]);
    } finally {
      await proxy.close();
    }
  });
});

describe('a pooled upstream connection the server closes as a request goes out on it', () => {
  // The upstream destroys its socket, unanswered, when a request arrives as the second on one
  // connection (a server's idle timeout closing a pooled keep-alive connection at that moment), and
  // on every request to /always-resets.
  let upstream: ResettingServer;
  let endpoint = '';
  let arrivals: ResettingServer['arrivals'] = [];
  beforeAll(async () => {
    upstream = await startResettingServer((url, nth) => url === '/always-resets/intercept' || (nth === 2 && url === '/intercept'), '{"jsonrpc":"2.0","id":"x","result":{}}');
    endpoint = upstream.origin;
    arrivals = upstream.arrivals;
  });
  afterAll(() => upstream.close());
  const intercept = '{"jsonrpc":"2.0","id":"x","method":"hooks/intercept"}';
  // A keep-alive client (rawRequest says `Connection: close`, which the proxy forwards unchanged).
  const call = (proxyEndpoint: string, route: string, body?: string): Promise<{ status: number }> =>
    boundedRequest(`${proxyEndpoint}${route}`, { method: body === undefined ? 'GET' : 'POST', ...(body === undefined ? {} : { body }), timeoutMs: 5000 });

  test('is sent again on a fresh connection: the client gets the answer, the proxy records one exchange', async () => {
    const proxy = await startForwardingProxy({ upstream: endpoint });
    try {
      arrivals.length = 0;
      expect(await call(proxy.endpoint, '/capabilities')).toMatchObject({ status: 200 });
      expect(await call(proxy.endpoint, '/intercept', intercept)).toMatchObject({ status: 200 });
      expect(arrivals).toEqual([
        { url: '/capabilities', nth: 1 },
        { url: '/intercept', nth: 2 },
        { url: '/intercept', nth: 1 },
      ]);
      expect(proxy.exchanges()).toMatchObject([
        { method: 'GET', path: '/capabilities', status: 200 },
        { method: 'POST', path: '/intercept', status: 200, request: { id: 'x' } },
      ]);
    } finally {
      await proxy.close();
    }
  });

  test('a reset on a fresh connection is the server\'s: 502, recorded unanswered, after one resend at most', async () => {
    const proxy = await startForwardingProxy({ upstream: `${endpoint}/always-resets` });
    try {
      arrivals.length = 0;
      expect(await call(proxy.endpoint, '/capabilities')).toMatchObject({ status: 200 });
      expect(await call(proxy.endpoint, '/intercept', intercept)).toMatchObject({ status: 502 });
      expect(arrivals.map((arrival) => arrival.url)).toEqual(['/always-resets/capabilities', '/always-resets/intercept', '/always-resets/intercept']);
      expect(proxy.exchanges()[1]).toMatchObject({ status: null, failure: 'ECONNRESET', request: { id: 'x' } });
    } finally {
      await proxy.close();
    }
  });
});

describe('under mtls', () => {
  const seen: Seen[] = [];
  let pki: TestPki;
  let server: Server;
  let endpoint = '';
  let tls: ProxyTls;
  const identity = (files: { certFile: string; keyFile: string }) => ({ cert: readFileSync(files.certFile), key: readFileSync(files.keyFile) });

  beforeAll(async () => {
    pki = await createTestPki();
    const ca = readFileSync(pki.caFile);
    server = echoServer(seen, (listener) =>
      createHttpsServer({ ...identity(pki.server), ca, requestCert: true, rejectUnauthorized: true }, listener) as unknown as Server,
    );
    endpoint = `https://127.0.0.1:${await listen(server)}`;
    tls = { ca, server: identity(pki.server), clients: [identity(pki.client), identity(pki.unauthorisedClient)] };
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    removeTestPki(pki);
  });

  test('the server sees the very client identity the client presented to the proxy', async () => {
    const proxy = await startForwardingProxy({ upstream: endpoint, tls });
    try {
      expect(proxy.endpoint.startsWith('https://127.0.0.1:')).toBe(true);
      const body = '{"jsonrpc":"2.0","id":"r1","method":"hooks/intercept"}';
      for (const [files, principal] of [
        [pki.client, pki.client.principal],
        [pki.unauthorisedClient, pki.unauthorisedClient.principal],
      ] as const) {
        const answer = await rawRequest(proxy.endpoint, { method: 'POST', route: '/intercept', body, tls: { ca: tls.ca, ...identity(files) } });
        expect(answer).toMatchObject({ kind: 'response', status: 200 });
        expect(seen.at(-1)?.peerCn).toBe(principal);
      }
    } finally {
      await proxy.close();
    }
  });

  test('no client certificate, or one the run did not issue, is refused at the handshake as the server would', async () => {
    const proxy = await startForwardingProxy({ upstream: endpoint, tls });
    try {
      const before = seen.length;
      const ca = tls.ca;
      expect(await rawRequest(proxy.endpoint, { method: 'GET', route: '/capabilities', tls: { ca } })).toMatchObject({ kind: 'failure' });
      expect(await rawRequest(proxy.endpoint, { method: 'GET', route: '/capabilities', tls: { ca, ...identity(pki.untrustedClient) } })).toMatchObject({ kind: 'failure' });
      expect(seen.length).toBe(before);
    } finally {
      await proxy.close();
    }
  });
});
