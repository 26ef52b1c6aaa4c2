// The catalogue receiver's HTTP event listener (HTTP transport only; HTTPS under mtls). Event
// authentication (lib/request-auth.ts) runs first on both routes, so a refused request is never
// recorded.
//
//   POST /capabilities  a hooks/capabilities request → 200 with the JSON-RPC discovery response;
//                       400 (JSON-RPC error) when it is not a valid request
//   POST /observe       any JSON body is judged as a hooks/observe notification and recorded →
//                       empty 204 observed, 400 rejected (schema), 409 rejected (lineage)
// A body that is not JSON at all cannot be recorded as a message: 415/413/400 with a JSON-RPC error.

import type { ServerResponse } from 'node:http';

import { sendJsonText } from '../../../harness/http/json-body.ts';
import type { ServerAuth } from '../auth.ts';
import { authorise, createEventServer, type AhpHttpServer } from '../lib/http-binding.ts';
import type { Log } from '../lib/log.ts';
import type { AuthStats } from '../lib/request-auth.ts';
import { readJsonBody } from '../lifecycle/event-http-binding.ts';
import type { CatalogueReceiver } from './receiver.ts';

const ROUTES = new Set(['/capabilities', '/observe']);

export function createCatalogueEventServer(receiver: CatalogueReceiver, auth: ServerAuth, stats: AuthStats, log: Log): AhpHttpServer {
  return createEventServer(auth, stats, log, async (request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://ahp').pathname;
    if (!ROUTES.has(pathname)) {
      request.resume();
      return emptyAnswer(response, 404);
    }
    if (!(await authorise(request, response, auth, stats, log))) return;
    if (request.method !== 'POST') {
      request.resume();
      response.writeHead(405, { allow: 'POST', 'content-length': '0' });
      return void response.end();
    }
    const body = await readJsonBody(request, response);
    if (body === undefined) return;
    if (pathname === '/capabilities') {
      const reply = receiver.discover(body.value);
      return sendJsonText(response, reply.status, reply.body);
    }
    emptyAnswer(response, receiver.observe(body.value).status);
  });
}

function emptyAnswer(response: ServerResponse, status: number): void {
  response.writeHead(status, { 'content-length': '0' });
  response.end();
}
