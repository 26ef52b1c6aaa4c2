// The catalogue receiver's upload listener. Catalogue rows carry no uploads and no body refs
// (CATALOGUE-RULES §1, §3), yet readiness must still name an `uploadEndpoint` (the runner reads it
// over HTTP). So the listener exists and refuses every request with 404, recording nothing: the
// catalogue receipt log holds only discovery, observed and rejected entries (§4).

import { createServer, type Server } from 'node:http';

import { sendJson } from '../../../harness/http/json-body.ts';

export function createNoUploadListener(): Server {
  return createServer((request, response) => {
    request.resume();
    request.on('end', () => sendJson(response, 404, { error: 'not found', reason: 'the catalogue suite takes no content uploads' }));
  });
}
