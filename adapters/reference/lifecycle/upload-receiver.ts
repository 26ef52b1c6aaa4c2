// The upload receiver (content-upload.md; LIFECYCLE-RULES §3 Upload): raw octets POSTed to exactly
// the advertised `uploadEndpoint`, on their own plain-HTTP loopback listener, authorised by the one
// independent upload credential (`uploadAuth.token`, never an event credential).
//
//   400  framing: Content-Type other than application/octet-stream, Content-Length missing or not
//        decimal, any content/transfer encoding, caller-supplied AHP headers (ref, subscription:
//        only AHP-Content-SHA256 exists), a malformed digest, a body shorter than Content-Length
//        (ended by a half-close), or a size/SHA-256 that does not match the bytes
//   401  Authorization other than exactly one `Bearer <uploadAuth.token>`
//   413  a declared length above the receiver's limit
//   201  `{ref, size, sha256}` once the bytes are stored immutably (content-store.ts)
//
// Every request to the route appends `{kind:"upload", status, size, sha256, ref?}` with the DECLARED
// Content-Length and AHP-Content-SHA256 (null when absent or malformed), before the answer is sent.
// The body is always read to its end (or its abort) before answering, so a client is never cut off
// mid-write.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

import { secretsEqual } from '../../../harness/auth/constant-time.ts';
import { sha256Hex } from '../../../harness/protocol/sha256-hex.ts';
import { sendJson } from '../../../harness/http/json-body.ts';
import type { Log } from '../lib/log.ts';
import { authorizationFields } from '../lib/request-auth.ts';
import { scopeOfCredential, type ContentStore } from './content-store.ts';
import type { ReceiptLog } from './receipt-log.ts';

export const UPLOAD_PATH = '/upload';
/** The receiver's own size limit (the client's `maxBytes` is its transfer limit). */
const MAX_UPLOAD_BYTES = 16 * 1024 * 1024;
const SHA256_HEX = /^[0-9a-f]{64}$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;
const BEARER = /^Bearer +(\S+)$/i;

export interface UploadReceiverDeps {
  content: ContentStore;
  receipts: ReceiptLog;
  /** The configured upload credential. */
  token: string;
  log: Log;
}

type BodyOutcome = { complete: true; bytes: Buffer } | { complete: false };

export function createUploadReceiver(deps: UploadReceiverDeps): Server {
  const server = createServer((request, response) => {
    void handle(request, response, deps);
  });
  // A body cut short by a half-close is a parser error that Node would answer with a bare 400; answer
  // it as JSON instead. The request handler has already recorded the attempt by then, or will.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (socket.writable) {
      const body = JSON.stringify({ error: 'bad framing', reason: 'the request is malformed or its body is shorter than Content-Length' });
      socket.end(`HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    }
    socket.destroy();
    deps.log.info(`upload connection failed (${error.code ?? 'client error'})`);
  });
  return server;
}

async function handle(request: IncomingMessage, response: ServerResponse, deps: UploadReceiverDeps): Promise<void> {
  const pathname = new URL(request.url ?? '/', 'http://upload').pathname;
  if (pathname !== UPLOAD_PATH) {
    request.resume();
    return sendJson(response, 404, { error: 'unknown upload route' });
  }
  const declaredLength = header(request, 'content-length');
  const declaredDigest = header(request, 'ahp-content-sha256');
  const declared = {
    size: declaredLength !== undefined && DECIMAL.test(declaredLength) ? Number(declaredLength) : null,
    sha256: declaredDigest !== undefined && SHA256_HEX.test(declaredDigest) ? declaredDigest : null,
  };
  const answer = (status: number, body: Record<string, unknown>, ref?: string): void => {
    deps.receipts.append({ kind: 'upload', status, size: declared.size, sha256: declared.sha256, ...(ref !== undefined ? { ref } : {}) });
    const headers: Record<string, string> = status === 401 ? { 'www-authenticate': 'Bearer realm="ahp-upload"' } : {};
    sendJson(response, status, body, status >= 400 ? { ...headers, connection: 'close' } : headers);
  };

  if (declared.size !== null && declared.size > MAX_UPLOAD_BYTES) {
    request.resume();
    return answer(413, { error: 'too large', reason: `the receiver accepts at most ${MAX_UPLOAD_BYTES} bytes` });
  }
  const body = await readWholeBody(request);
  const framing = framingProblem(request, declaredLength, declaredDigest);
  if (framing !== undefined) return answer(400, { error: 'bad framing', reason: framing });
  if (!authorised(request, deps.token)) return answer(401, { error: 'unauthorized', reason: 'missing or invalid upload credential' });
  if (!body.complete) return answer(400, { error: 'bad framing', reason: 'the body is shorter than Content-Length' });
  if (body.bytes.length !== declared.size) return answer(400, { error: 'bad framing', reason: 'Content-Length does not match the body' });
  if (sha256Hex(body.bytes) !== declared.sha256) return answer(400, { error: 'integrity', reason: 'AHP-Content-SHA256 does not match the body' });

  // Stored before the 201 leaves: a confirmed ref is always readable.
  const receipt = deps.content.store(scopeOfCredential(deps.token), body.bytes);
  answer(201, { ...receipt }, receipt.ref);
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** Why the headers break the upload framing, or undefined. */
function framingProblem(request: IncomingMessage, declaredLength: string | undefined, declaredDigest: string | undefined): string | undefined {
  if (request.method !== 'POST') return `method ${request.method ?? '?'} (expected POST)`;
  const type = header(request, 'content-type');
  if (type === undefined || type.trim().toLowerCase() !== 'application/octet-stream') return 'Content-Type must be application/octet-stream';
  if (request.headers['transfer-encoding'] !== undefined) return 'Transfer-Encoding is not allowed (send Content-Length)';
  if (request.headers['content-encoding'] !== undefined) return 'Content-Encoding is not allowed (raw octets only)';
  if (declaredLength === undefined || !DECIMAL.test(declaredLength)) return 'Content-Length must be a decimal byte count';
  if (declaredDigest === undefined || !SHA256_HEX.test(declaredDigest)) return 'AHP-Content-SHA256 must be 64 lowercase hex digits';
  const callerHeader = Object.keys(request.headers).find((name) => name.startsWith('ahp-') && name !== 'ahp-content-sha256');
  if (callerHeader !== undefined) return 'the sender supplies no reference or subscription header (only AHP-Content-SHA256)';
  return undefined;
}

function authorised(request: IncomingMessage, token: string): boolean {
  const fields = authorizationFields(request.rawHeaders);
  if (fields.length !== 1) return false;
  const match = BEARER.exec(fields[0]!);
  return match !== null && secretsEqual(match[1]!, token);
}

/** The whole body, or `complete: false` when the client ended or broke the connection before its end. */
function readWholeBody(request: IncomingMessage): Promise<BodyOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: BodyOutcome): void => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_UPLOAD_BYTES) chunks.push(chunk);
    });
    request.on('end', () => settle(size <= MAX_UPLOAD_BYTES ? { complete: true, bytes: Buffer.concat(chunks) } : { complete: false }));
    request.on('error', () => settle({ complete: false }));
    request.on('aborted', () => settle({ complete: false }));
    request.on('close', () => settle(request.complete ? { complete: true, bytes: Buffer.concat(chunks) } : { complete: false }));
  });
}
