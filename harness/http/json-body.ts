// Bounded request-body reading and JSON replies for the loopback HTTP servers we own (the reference
// adapter's AHP and control endpoints, the local OAuth issuer).

import type { IncomingMessage, ServerResponse } from 'node:http';

export const MAX_BODY_BYTES = 1024 * 1024;

export type BodyRead = { ok: true; text: string } | { ok: false; status: 413 | 400 };

export function readBody(request: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<BodyRead> {
  return new Promise((resolve) => {
    const declared = Number(request.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > maxBytes) {
      request.resume();
      resolve({ ok: false, status: 413 });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    request.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBytes) {
        done = true;
        chunks.length = 0;
        resolve({ ok: false, status: 413 });
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (done) return;
      done = true;
      resolve({ ok: true, text: Buffer.concat(chunks).toString('utf8') });
    });
    request.on('error', () => {
      if (done) return;
      done = true;
      resolve({ ok: false, status: 400 });
    });
  });
}

export function isJsonContentType(request: IncomingMessage): boolean {
  const type = request.headers['content-type'];
  if (typeof type !== 'string') return false;
  return type.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** Writes `body` (already serialised JSON text) with the JSON media type. */
export function sendJsonText(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (response.headersSent) return;
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    ...headers,
  });
  response.end(body);
}

export function sendJson(response: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  sendJsonText(response, status, JSON.stringify(value), headers);
}
