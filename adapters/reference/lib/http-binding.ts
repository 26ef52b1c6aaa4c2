// The AHP HTTP binding of the reference server (loopback, port 0):
//   POST /intercept     body = one full JSON-RPC hooks/intercept envelope (application/json)
//   GET  /capabilities  the full JSON-RPC capabilities response envelope (id "capabilities")
//   POST /capabilities  a hooks/capabilities JSON-RPC request, answered with its id
// Scripted replies use status 200; requests the server refuses get a JSON-RPC error body with a
// 4xx/5xx status, so a client can never mistake them for a scripted (negative) response.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import { checkRequestAuth, type AuthConfig } from '../auth.ts';
import { capabilitiesEnvelope, dispatchText, type EntryPoint, type ServerState } from './dispatch.ts';
import { isJsonContentType, readBody, sendJson, sendJsonText } from './http-body.ts';
import { errorEnvelope, INVALID_REQUEST } from './jsonrpc.ts';

export function createAhpHttpServer(state: ServerState, auth: AuthConfig): Server {
  return createServer((request, response) => {
    handle(request, response, state, auth).catch((error: unknown) => {
      state.log.error(`unexpected failure handling ${request.method} request: ${error instanceof Error ? error.message : String(error)}`);
      sendJson(response, 500, { error: 'internal error' });
    });
  });
}

async function handle(request: IncomingMessage, response: ServerResponse, state: ServerState, auth: AuthConfig): Promise<void> {
  const pathname = new URL(request.url ?? '/', 'http://ahp').pathname;
  const method = request.method ?? 'GET';
  if (pathname !== '/intercept' && pathname !== '/capabilities') {
    request.resume();
    return sendJson(response, 404, { error: 'not found' });
  }

  const authorised = checkRequestAuth(auth, { transport: 'http', headers: request.headers, rawHeaders: request.rawHeaders });
  if (!authorised.ok) {
    request.resume();
    const headers: Record<string, string> = authorised.challenge ? { 'www-authenticate': authorised.challenge } : {};
    return sendJson(response, authorised.status, { error: authorised.reason }, headers);
  }

  if (pathname === '/capabilities' && method === 'GET') {
    request.resume();
    return sendJsonText(response, 200, capabilitiesEnvelope('capabilities', state));
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
