// The lifecycle receiver's HTTP event listener (HTTP transport only; HTTPS under mtls):
//   POST /intercept  a hooks/intercept request → 200 with the scripted response once released;
//                    400 invalid or unknown id, 409 unknown body ref, 503/504 hold ended unreleased
//   POST /observe    a hooks/observe notification of a scenario's event → 200 with the unsolicited
//                    intercept-shaped deny clients must ignore; of any other event (the receiver
//                    probes') → 202 with an empty body; 400 invalid, 409 unknown body ref
// Event authentication (lib/request-auth.ts) runs first on both routes, so a refused request is
// never recorded.

import type { IncomingMessage, ServerResponse } from 'node:http';

import { isJsonContentType, readBody, sendJson, sendJsonText } from '../../../harness/http/json-body.ts';
import { isJsonObject, type JsonObject } from '../../../harness/protocol/json.ts';
import type { ServerAuth } from '../auth.ts';
import { authorise, createEventServer, type AhpHttpServer } from '../lib/http-binding.ts';
import { errorEnvelope, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, replyId } from '../lib/jsonrpc.ts';
import type { Log } from '../lib/log.ts';
import type { AuthStats } from '../lib/request-auth.ts';
import type { LifecycleReceiver } from './receiver.ts';

const ROUTES = { '/intercept': 'hooks/intercept', '/observe': 'hooks/observe' } as const;

export function createLifecycleEventServer(receiver: LifecycleReceiver, auth: ServerAuth, stats: AuthStats, log: Log): AhpHttpServer {
  return createEventServer(auth, stats, log, async (request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://ahp').pathname;
    if (pathname !== '/intercept' && pathname !== '/observe') {
      request.resume();
      return sendJson(response, 404, { error: 'not found' });
    }
    if (!(await authorise(request, response, auth, stats, log))) return;
    if (request.method !== 'POST') {
      request.resume();
      return sendJson(response, 405, { error: `method ${request.method ?? '?'} not allowed` }, { allow: 'POST' });
    }
    const message = await readMessage(request, response);
    if (message === undefined) return;
    if (message.method !== ROUTES[pathname]) {
      return sendJsonText(response, 400, errorEnvelope(replyId(message), METHOD_NOT_FOUND, `Method not found: ${pathname} takes ${ROUTES[pathname]}`));
    }
    if (pathname === '/intercept') {
      const reply = await receiver.intercept(message);
      return sendJsonText(response, reply.status, reply.body);
    }
    const observed = receiver.observe(message);
    if (!observed.ok) return sendJson(response, observed.status, { error: 'observation refused', reason: observed.reason });
    if (observed.unsolicited !== undefined) return sendJsonText(response, 200, observed.unsolicited);
    response.writeHead(202, { 'content-length': '0' });
    response.end();
  });
}

/** The request body as one JSON-RPC object; otherwise the error is already answered and undefined returned. */
async function readMessage(request: IncomingMessage, response: ServerResponse): Promise<JsonObject | undefined> {
  const parsed = await readJsonBody(request, response);
  if (parsed === undefined) return undefined;
  const message = parsed.value;
  if (!isJsonObject(message) || message.jsonrpc !== '2.0' || typeof message.method !== 'string') {
    sendJsonText(response, 400, errorEnvelope(replyId(message), INVALID_REQUEST, 'Invalid Request: expected one JSON-RPC 2.0 message object'));
    return undefined;
  }
  return message;
}

/**
 * The request body parsed as JSON, whatever its shape; otherwise (not `application/json`, too large,
 * unreadable, not JSON) the error is already answered and undefined returned.
 */
export async function readJsonBody(request: IncomingMessage, response: ServerResponse): Promise<{ value: unknown } | undefined> {
  if (!isJsonContentType(request)) {
    request.resume();
    sendJsonText(response, 415, errorEnvelope(null, INVALID_REQUEST, 'Invalid Request: content-type must be application/json'));
    return undefined;
  }
  const body = await readBody(request);
  if (!body.ok) {
    sendJsonText(response, body.status, errorEnvelope(null, INVALID_REQUEST, body.status === 413 ? 'Invalid Request: body too large' : 'Invalid Request: unreadable body'));
    return undefined;
  }
  try {
    return { value: JSON.parse(body.text) as unknown };
  } catch {
    sendJsonText(response, 400, errorEnvelope(null, PARSE_ERROR, 'Parse error: the body is not valid JSON'));
    return undefined;
  }
}
