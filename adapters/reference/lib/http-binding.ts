// The AHP HTTP binding of the reference server (loopback, port 0):
//   POST /intercept     body = one full JSON-RPC hooks/intercept envelope (application/json)
//   GET  /capabilities  the bare capability set (capabilities.schema.json), as the ecosystem's servers
//                       answer and its clients validate
//   POST /capabilities  a hooks/capabilities JSON-RPC request, answered with its id and the manifest
// Scripted replies use status 200; requests the server refuses get a JSON-RPC error body with a
// 4xx/5xx status, so a client can never mistake them for a scripted (negative) response.
//
// Endpoint authentication (lib/request-auth.ts) runs on both routes before anything is dispatched or
// recorded; a refusal is a small JSON body {error, reason} with 401/403 (no JSON-RPC) and closes the
// connection. In auth mode mtls the binding is HTTPS with requestCert + rejectUnauthorized: a client
// without a certificate the configured CA verifies never completes the handshake (counted in
// stats.tlsRejections).

import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';

import type { ServerAuth } from '../auth.ts';
import { capabilitiesBody, dispatchText, type EntryPoint, type ServerState } from './dispatch.ts';
import { isJsonContentType, readBody, sendJson, sendJsonText } from '../../../harness/http/json-body.ts';
import { errorEnvelope, INVALID_REQUEST } from './jsonrpc.ts';
import type { Log } from './log.ts';
import { checkRequestAuth, type AuthStats } from './request-auth.ts';

export interface AhpHttpServer {
  server: Server;
  scheme: 'http' | 'https';
}

export function createAhpHttpServer(state: ServerState, auth: ServerAuth, stats: AuthStats): AhpHttpServer {
  return createEventServer(auth, stats, state.log, (request, response) => handle(request, response, state, auth, stats));
}

/**
 * The event endpoint's listener: plain HTTP, or under mtls HTTPS that refuses any client whose
 * certificate the configured CA does not verify (counted in `stats.tlsRejections`). A handler that
 * throws gets a 500; authentication is the handler's job (checkRequestAuth).
 */
export function createEventServer(
  auth: ServerAuth,
  stats: AuthStats,
  log: Log,
  handler: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
): AhpHttpServer {
  const listener = (request: IncomingMessage, response: ServerResponse): void => {
    handler(request, response).catch((error: unknown) => {
      log.error(`unexpected failure handling ${request.method} request: ${error instanceof Error ? error.message : String(error)}`);
      sendJson(response, 500, { error: 'internal error' });
    });
  };
  if (auth.mode !== 'mtls') return { server: createHttpServer(listener), scheme: 'http' };
  const server = createHttpsServer(
    { key: auth.tls.key, cert: auth.tls.cert, ca: auth.tls.ca, requestCert: true, rejectUnauthorized: true, minVersion: 'TLSv1.2' },
    listener,
  );
  server.on('tlsClientError', (error: NodeJS.ErrnoException) => {
    stats.tlsRejections++;
    log.info(`refused a TLS handshake (${error.code ?? 'tls error'})`);
  });
  return { server: server as unknown as Server, scheme: 'https' };
}

/** Endpoint authentication of one request; on refusal the 401/403 is already sent and false returned. */
export async function authorise(request: IncomingMessage, response: ServerResponse, auth: ServerAuth, stats: AuthStats, log: Log): Promise<boolean> {
  const authorised = await checkRequestAuth(auth, request);
  if (authorised.ok) return true;
  stats.authRejections++;
  request.resume();
  log.info(`refused ${request.method ?? 'GET'} ${new URL(request.url ?? '/', 'http://ahp').pathname}: ${authorised.status} (${authorised.reason})`);
  const headers: Record<string, string> = { connection: 'close' };
  if (authorised.challenge) headers['www-authenticate'] = authorised.challenge;
  sendJson(response, authorised.status, { error: authorised.status === 401 ? 'unauthorized' : 'forbidden', reason: authorised.reason }, headers);
  return false;
}

async function handle(request: IncomingMessage, response: ServerResponse, state: ServerState, auth: ServerAuth, stats: AuthStats): Promise<void> {
  const pathname = new URL(request.url ?? '/', 'http://ahp').pathname;
  const method = request.method ?? 'GET';
  if (pathname !== '/intercept' && pathname !== '/capabilities') {
    request.resume();
    return sendJson(response, 404, { error: 'not found' });
  }

  if (!(await authorise(request, response, auth, stats, state.log))) return;

  if (pathname === '/capabilities' && method === 'GET') {
    request.resume();
    return sendJsonText(response, 200, capabilitiesBody(state));
  }
  if (method !== 'POST') {
    request.resume();
    return sendJson(response, 405, { error: `method ${method} not allowed` }, { allow: pathname === '/capabilities' ? 'GET, POST' : 'POST' });
  }
  if (!isJsonContentType(request)) {
    request.resume();
    return sendJsonText(response, 415, errorEnvelope(null, INVALID_REQUEST, 'Invalid Request: content-type must be application/json'));
  }
  const body = await readBody(request);
  if (!body.ok) {
    return sendJsonText(response, body.status, errorEnvelope(null, INVALID_REQUEST, body.status === 413 ? 'Invalid Request: body too large' : 'Invalid Request: unreadable body'));
  }
  const entry: EntryPoint = pathname === '/intercept' ? 'http-intercept' : 'http-capabilities';
  const reply = await dispatchText(body.text, entry, state);
  sendJsonText(response, reply.status, reply.body);
}
