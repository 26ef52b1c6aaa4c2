// The compaction receiver's HTTP mode: 127.0.0.1, port 0, one endpoint line on stdout, then
// `POST /hooks/intercept` with `Authorization: Bearer <token>`, where the token names the scope
// (AHP_COMPACTION_TOKENS). A missing or unknown token is 401, a scope without a configured action
// 403, any other route 404. Every request that reaches JSON-RPC is answered with HTTP 200 — errors
// included — because senders' transport clients treat any other status as a crashed receiver.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { readBody, sendJson, sendJsonText } from '../../../harness/http/json-body.ts';
import { errorEnvelope, INVALID_REQUEST } from '../lib/jsonrpc.ts';
import type { Log } from '../lib/log.ts';
import type { CompactionReceiver } from './receiver.ts';
import { scopeOfAuthorization } from './token-scopes.ts';

export const INTERCEPT_PATH = '/hooks/intercept';

export interface ServingReceiver {
  server: Server;
  endpoint: string;
  close(): Promise<void>;
}

export async function serveHttp(receiver: CompactionReceiver, eventTokens: ReadonlyMap<string, string>, log: Log): Promise<ServingReceiver> {
  const server = createServer((request, response) => {
    handle(request, response, receiver, eventTokens, log).catch((error: unknown) => {
      log.error(`unexpected failure handling a request: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent) sendJson(response, 500, { error: 'internal error' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    endpoint: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function handle(request: IncomingMessage, response: ServerResponse, receiver: CompactionReceiver, eventTokens: ReadonlyMap<string, string>, log: Log): Promise<void> {
  const pathname = new URL(request.url ?? '/', 'http://receiver').pathname;
  if (pathname !== INTERCEPT_PATH) {
    request.resume();
    return sendJson(response, 404, { error: 'not found' });
  }
  if (request.method !== 'POST') {
    request.resume();
    return sendJson(response, 405, { error: `method ${request.method ?? ''} not allowed` }, { allow: 'POST' });
  }
  const scope = scopeOfAuthorization(request.headers.authorization, eventTokens);
  if (scope === undefined) {
    request.resume();
    log.info('refused an intercept request without a known event token (401)');
    return sendJson(response, 401, { error: 'unauthorized' }, { 'www-authenticate': 'Bearer' });
  }
  if (!receiver.serves(scope)) {
    request.resume();
    log.info(`refused an intercept request for the unconfigured scope ${JSON.stringify(scope)} (403)`);
    return sendJson(response, 403, { error: 'forbidden' });
  }
  const body = await readBody(request);
  if (!body.ok) return sendJsonText(response, body.status, errorEnvelope(null, INVALID_REQUEST, body.status === 413 ? 'Invalid Request: body too large' : 'Invalid Request: unreadable body'));
  sendJsonText(response, 200, receiver.answerText(body.text, scope));
}
