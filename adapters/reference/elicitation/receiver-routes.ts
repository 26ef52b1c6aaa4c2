// The receiver's HTTP routes (ELICITATION-RULES §3), all POST with exact paths:
//   /upload           upload bearer → 201 {ref,size,sha256} once the exact octets are stored
//   /hooks/intercept  event bearer  → 200 with no effects, or 400 for any validation failure
//   /receipts         event bearer  → 200 with every receipt in append order
// A wrong or missing credential is 401 before anything is read or recorded. Upload framing is
// strict: application/octet-stream, a decimal Content-Length equal to the body, AHP-Content-SHA256
// equal to its digest, no other AHP header.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import { secretsEqual } from '../../../harness/auth/constant-time.ts';
import { isJsonContentType, readBody, sendJson, sendJsonText } from '../../../harness/http/json-body.ts';
import { sha256Hex } from '../../../harness/protocol/sha256-hex.ts';
import type { Log } from '../lib/log.ts';
import { authorizationFields } from '../lib/request-auth.ts';
import type { ElicitationReceiver } from './elicitation-receiver.ts';
import type { UploadStore } from './upload-store.ts';

const MAX_UPLOAD_BYTES = 16 * 1024 * 1024;
const BEARER = /^Bearer +(\S+)$/i;
const DECIMAL = /^(0|[1-9][0-9]*)$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

export interface ReceiverRouteOptions {
  receiver: ElicitationReceiver;
  uploads: UploadStore;
  eventToken: string;
  uploadToken: string;
  /** Whether /receipts needs the event bearer (the honest receiver: always). */
  receiptsNeedBearer: boolean;
  log: Log;
}

function bearerMatches(request: IncomingMessage, token: string): boolean {
  const fields = authorizationFields(request.rawHeaders);
  if (fields.length !== 1) return false;
  const match = BEARER.exec(fields[0]!);
  return match !== null && secretsEqual(match[1]!, token);
}

function unauthorized(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  sendJson(response, 401, { error: 'unauthorized' }, { 'www-authenticate': 'Bearer realm="ahp"' });
}

export function createReceiverServer(options: ReceiverRouteOptions): Server {
  return createServer((request, response) => {
    void route(request, response, options).catch((error: unknown) => {
      options.log.error(`request failed: ${error instanceof Error ? error.message : String(error)}`);
      sendJson(response, 500, { error: 'internal error' });
    });
  });
}

async function route(request: IncomingMessage, response: ServerResponse, options: ReceiverRouteOptions): Promise<void> {
  const pathname = new URL(request.url ?? '/', 'http://receiver').pathname;
  if (pathname !== '/upload' && pathname !== '/hooks/intercept' && pathname !== '/receipts') {
    request.resume();
    return sendJson(response, 404, { error: 'not found' });
  }
  if (request.method !== 'POST') {
    request.resume();
    return sendJson(response, 405, { error: `method ${request.method ?? '?'} not allowed` }, { allow: 'POST' });
  }
  if (pathname === '/upload') return upload(request, response, options);
  if (pathname === '/receipts') {
    if (options.receiptsNeedBearer && !bearerMatches(request, options.eventToken)) return unauthorized(request, response);
    request.resume();
    return sendJson(response, 200, options.receiver.receipts());
  }
  if (!bearerMatches(request, options.eventToken)) return unauthorized(request, response);
  if (!isJsonContentType(request)) {
    request.resume();
    return sendJson(response, 400, { error: 'refused', reason: 'Content-Type must be application/json' });
  }
  const body = await readBody(request);
  if (!body.ok) return sendJson(response, 400, { error: 'refused', reason: 'unreadable body' });
  let message: unknown;
  try {
    message = JSON.parse(body.text);
  } catch {
    return sendJson(response, 400, { error: 'refused', reason: 'the body is not JSON' });
  }
  const answer = options.receiver.intercept(message);
  sendJsonText(response, answer.status, answer.body);
}

async function upload(request: IncomingMessage, response: ServerResponse, options: ReceiverRouteOptions): Promise<void> {
  if (!bearerMatches(request, options.uploadToken)) return unauthorized(request, response);
  const length = request.headers['content-length'];
  const digest = request.headers['ahp-content-sha256'];
  const type = request.headers['content-type'];
  const framing =
    typeof type !== 'string' || type.trim().toLowerCase() !== 'application/octet-stream'
      ? 'Content-Type must be application/octet-stream'
      : typeof length !== 'string' || !DECIMAL.test(length)
        ? 'Content-Length must be a decimal byte count'
        : typeof digest !== 'string' || !SHA256_HEX.test(digest)
          ? 'AHP-Content-SHA256 must be 64 lowercase hex digits'
          : request.headers['content-encoding'] !== undefined
            ? 'Content-Encoding is not allowed'
            : Object.keys(request.headers).some((name) => name.startsWith('ahp-') && name !== 'ahp-content-sha256')
              ? 'the sender supplies no AHP header besides AHP-Content-SHA256'
              : undefined;
  if (framing !== undefined) {
    request.resume();
    return sendJson(response, 400, { error: 'bad framing', reason: framing });
  }
  const body = await readBytes(request);
  if (body === undefined) return sendJson(response, 400, { error: 'bad framing', reason: 'unreadable or oversized body' });
  if (body.length !== Number(length)) return sendJson(response, 400, { error: 'bad framing', reason: 'Content-Length differs from the body' });
  if (sha256Hex(body) !== digest) return sendJson(response, 400, { error: 'integrity', reason: 'AHP-Content-SHA256 differs from the body' });
  sendJson(response, 201, options.uploads.store(body));
}

function readBytes(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_UPLOAD_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(size <= MAX_UPLOAD_BYTES ? Buffer.concat(chunks) : undefined));
    request.on('error', () => resolve(undefined));
  });
}
