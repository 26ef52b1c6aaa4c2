// The control HTTP server every reference server runs next to its AHP binding (loopback, port 0):
//   GET  /health   -> {ready:true}
//   GET  /receipts -> {requests:[...]}  hooks/intercept envelopes as parsed, arrival order. Only
//                     message bodies are ever stored, so headers and credentials cannot leak here.
//   POST /release  {barrier} -> {released:barrier}  (remembered if it precedes the request)
//   POST /shutdown -> {shuttingDown:true}, then the process closes everything and exits 0.
//   GET  /auth-stats -> {tlsRejections, authRejections}  refusals of the AHP endpoint so far (counts
//                     only: which TLS handshakes and which requests endpoint authentication refused).

import { createServer, type Server } from 'node:http';

import type { Barriers } from './barriers.ts';
import { isObject } from './config.ts';
import { readBody, sendJson } from '../../../harness/http/json-body.ts';
import type { Log } from './log.ts';
import type { AuthStats } from './request-auth.ts';
import type { JsonValue } from '../../../harness/protocol/json.ts';

export interface ControlDeps {
  receipts: readonly JsonValue[];
  barriers: Barriers;
  authStats: Readonly<AuthStats>;
  log: Log;
  /** Called after the /shutdown reply has been flushed. */
  shutdown: () => void;
}

export function createControlServer(deps: ControlDeps): Server {
  return createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://control').pathname;
    const method = request.method ?? 'GET';
    const route = `${method} ${pathname}`;
    switch (route) {
      case 'GET /health':
        sendJson(response, 200, { ready: true });
        return;
      case 'GET /receipts':
        sendJson(response, 200, { requests: deps.receipts });
        return;
      case 'GET /auth-stats':
        sendJson(response, 200, { tlsRejections: deps.authStats.tlsRejections, authRejections: deps.authStats.authRejections });
        return;
      case 'POST /release':
        void readBody(request, 64 * 1024).then((body) => {
          if (!body.ok) return sendJson(response, body.status, { error: 'unreadable body' });
          let parsed: unknown;
          try {
            parsed = JSON.parse(body.text);
          } catch {
            return sendJson(response, 400, { error: 'body must be JSON {"barrier": "<name>"}' });
          }
          if (!isObject(parsed) || typeof parsed.barrier !== 'string' || parsed.barrier === '') {
            return sendJson(response, 400, { error: 'body must be {"barrier": "<non-empty string>"}' });
          }
          deps.barriers.release(parsed.barrier);
          deps.log.info(`released barrier ${JSON.stringify(parsed.barrier)}`);
          sendJson(response, 200, { released: parsed.barrier });
        });
        return;
      case 'POST /shutdown':
        request.resume();
        response.on('finish', () => deps.shutdown());
        sendJson(response, 200, { shuttingDown: true }, { connection: 'close' });
        return;
      default: {
        request.resume();
        const known = ['/health', '/receipts', '/release', '/shutdown', '/auth-stats'].includes(pathname);
        sendJson(response, known ? 405 : 404, { error: known ? `method ${method} not allowed` : 'not found' });
      }
    }
  });
}
