// boundedRequest carries every harness call to a broker or an adapter's control endpoint: a 3xx is a
// status (never followed), and every way an answer can fail to arrive is a RequestFailure saying
// whether the headers or the body were missing — never a hang, never an unbounded wait.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { boundedRequest, keepAliveAgent, RequestFailure } from '../../harness/http/bounded-request.ts';
import { startResettingServer, type ResettingServer } from './support/resetting-server.ts';

let server: Server;
let base: string;
const seen: Array<{ method: string; url: string; body: string; type: string | undefined }> = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', body, type: request.headers['content-type'] });
      if (request.url === '/json') return response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      if (request.url === '/redirect') return response.writeHead(307, { location: '/json' }).end();
      if (request.url === '/hang') return; // never answers
      if (request.url === '/stall-body') return void response.writeHead(200, { 'content-length': '100' }).write('{"par');
      if (request.url === '/cut') {
        response.writeHead(200, { 'content-length': '100' }).write('{"par');
        return void setImmediate(() => response.socket?.destroy());
      }
      response.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function failure(url: string, timeoutMs = 300): Promise<RequestFailure> {
  try {
    await boundedRequest(url, { method: 'GET', timeoutMs });
  } catch (error) {
    if (error instanceof RequestFailure) return error;
    throw error;
  }
  throw new Error(`${url}: expected a RequestFailure`);
}

describe('boundedRequest', () => {
  test('a JSON POST: the body arrives with its content type, the answer comes back as text', async () => {
    const agent = keepAliveAgent();
    const answer = await boundedRequest(`${base}/json`, { method: 'POST', body: '{"a":1}', timeoutMs: 5000, agent });
    expect(answer).toEqual({ status: 200, text: '{"ok":true}' });
    expect(seen.at(-1)).toEqual({ method: 'POST', url: '/json', body: '{"a":1}', type: 'application/json' });
    agent.destroy();
  });

  test('a redirect is a status, never followed', async () => {
    const before = seen.length;
    expect(await boundedRequest(`${base}/redirect`, { method: 'GET', timeoutMs: 5000 })).toEqual({ status: 307, text: '' });
    expect(seen.slice(before).map((request) => request.url)).toEqual(['/redirect']);
  });

  test('no headers in time: a timeout in the headers phase', async () => {
    expect(await failure(`${base}/hang`)).toMatchObject({ kind: 'timeout', phase: 'headers' });
  });

  test('headers but a body that stalls: a timeout in the body phase', async () => {
    expect(await failure(`${base}/stall-body`)).toMatchObject({ kind: 'timeout', phase: 'body' });
  });

  test('a body cut off by the server: unreachable in the body phase', async () => {
    expect(await failure(`${base}/cut`, 5000)).toMatchObject({ kind: 'unreachable', phase: 'body' });
  });

  test('nobody listening: unreachable with the error code', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await failure(`http://127.0.0.1:${port}/`, 5000)).toMatchObject({ kind: 'unreachable', phase: 'headers', code: 'ECONNREFUSED' });
  });

  test('another scheme is refused before anything is sent', async () => {
    expect(await failure('ftp://127.0.0.1/x')).toMatchObject({ kind: 'unreachable', code: 'ERR_UNSUPPORTED_PROTOCOL' });
  });

  describe('a pooled connection the server closes as a request goes out on it', () => {
    // Each socket's requests are counted; `/second-resets` destroys its socket (unanswered) when a
    // request arrives as the second on a connection — the race of a server's idle timeout closing a
    // pooled keep-alive connection — and `/always-resets` on every request.
    let racy: ResettingServer;
    let racyBase = '';
    let arrivals: ResettingServer['arrivals'] = [];
    beforeAll(async () => {
      racy = await startResettingServer((url, nth) => url === '/always-resets' || (url === '/second-resets' && nth === 2), '{"ok":true}');
      racyBase = racy.origin;
      arrivals = racy.arrivals;
    });
    afterAll(() => racy.close());

    test('the request is sent again on a fresh connection and answered', async () => {
      const agent = keepAliveAgent(1);
      arrivals.length = 0;
      expect(await boundedRequest(`${racyBase}/first`, { method: 'POST', body: '{}', timeoutMs: 5000, agent })).toEqual({ status: 200, text: '{"ok":true}' });
      expect(await boundedRequest(`${racyBase}/second-resets`, { method: 'POST', body: '{}', timeoutMs: 5000, agent })).toEqual({ status: 200, text: '{"ok":true}' });
      expect(arrivals).toEqual([
        { url: '/first', nth: 1 },
        { url: '/second-resets', nth: 2 },
        { url: '/second-resets', nth: 1 },
      ]);
      agent.destroy();
    });

    test('a reset on a fresh connection is final: one resend at most, then unreachable', async () => {
      const agent = keepAliveAgent(1);
      arrivals.length = 0;
      await boundedRequest(`${racyBase}/first`, { method: 'GET', timeoutMs: 5000, agent });
      const error = await boundedRequest(`${racyBase}/always-resets`, { method: 'GET', timeoutMs: 5000, agent }).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(RequestFailure);
      expect(error).toMatchObject({ kind: 'unreachable', phase: 'headers', code: 'ECONNRESET' });
      expect(arrivals.map((arrival) => arrival.url)).toEqual(['/first', '/always-resets', '/always-resets']);
      agent.destroy();
    });
  });
});
