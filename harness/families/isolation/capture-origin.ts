// The independent upload origin of a sender-isolation case (SENDER-ISOLATION-RULES §4): a loopback
// HTTP server, one per case, that records the raw upload a sender makes to it exactly as the rules
// say, and answers 201 with a receiver-assigned `urn:uuid:` descriptor only for a clean one. It never
// challenges, never redirects and never logs header values (they may hold credentials): it records
// only which sensitive header names arrived.

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { sha256Hex } from '../../protocol/sha256-hex.ts';

export const MAX_UPLOAD_BYTES = 1_048_576;
const SENSITIVE = ['authorization', 'proxy-authorization', 'cookie'];

/** One captured upload (§4 step 2); `descriptor` only when it was answered 201. */
export interface Capture {
  path: string;
  size: number;
  sha256: string;
  subscription: string | null;
  ref: string | null;
  declaredHash: string;
  contentType: string;
  /** Lower-cased names among authorization, proxy-authorization, cookie, one per occurrence, sorted. */
  sensitiveHeaders: string[];
  transferEncoding: null;
  descriptor?: { ref: string; size: number; sha256: string };
}

export interface CaptureOrigin {
  /** `http://127.0.0.1:<port>/capture`: what the sender's `upload.endpoint` names. */
  endpoint: string;
  captures(): Capture[];
  close(): Promise<void>;
}

export async function startCaptureOrigin(): Promise<CaptureOrigin> {
  const captures: Capture[] = [];
  const server: Server = createServer((request, response) => {
    void handle(request, response, captures).catch(() => reply(response, 400));
  });
  server.requestTimeout = 5000;
  server.headersTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/capture`,
    captures: () => captures.map((capture) => structuredClone(capture)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(response: ServerResponse, status: number, body?: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  if (body === undefined) {
    response.writeHead(status, { 'content-length': '0' });
    response.end();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
  response.end(body);
}

/** Header values by lower-cased name, every occurrence (rawHeaders keeps duplicates). */
function headerValues(request: IncomingMessage): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i]!.toLowerCase();
    values.set(name, [...(values.get(name) ?? []), request.rawHeaders[i + 1]!]);
  }
  return values;
}

async function handle(request: IncomingMessage, response: ServerResponse, captures: Capture[]): Promise<void> {
  if (request.method !== 'POST') {
    request.resume();
    return reply(response, 501);
  }
  const headers = headerValues(request);
  const once = (name: string): string | undefined => (headers.get(name)?.length === 1 ? headers.get(name)![0] : undefined);
  const length = once('content-length');
  const contentType = once('content-type');
  const declaredHash = once('ahp-content-sha256');
  // 1. Framing, before anything is captured.
  const framed =
    length !== undefined &&
    contentType !== undefined &&
    declaredHash !== undefined &&
    !headers.has('content-encoding') &&
    !headers.has('transfer-encoding') &&
    /^(0|[1-9][0-9]*)$/.test(length) &&
    Number(length) <= MAX_UPLOAD_BYTES;
  if (!framed) {
    request.resume();
    return reply(response, 400);
  }
  const body = await readExactly(request, Number(length));
  if (body === undefined) return reply(response, 400);
  // 2. Capture.
  const capture: Capture = {
    path: request.url ?? '',
    size: body.length,
    sha256: sha256Hex(body),
    subscription: headers.get('ahp-subscription')?.[0] ?? null,
    ref: headers.get('ahp-content-ref')?.[0] ?? null,
    declaredHash: declaredHash!,
    contentType: contentType!,
    sensitiveHeaders: SENSITIVE.flatMap((name) => (headers.get(name) ?? []).map(() => name)).sort(),
    transferEncoding: null,
  };
  captures.push(capture);
  // 3. Rejections after capture (the capture stays).
  if (capture.subscription !== null || capture.ref !== null || capture.sensitiveHeaders.length > 0 || capture.contentType !== 'application/octet-stream' || capture.declaredHash !== capture.sha256) {
    return reply(response, 400);
  }
  // 4. A clean upload: a receiver-assigned canonical descriptor.
  capture.descriptor = { ref: `urn:uuid:${randomUUID()}`, size: capture.size, sha256: capture.sha256 };
  return reply(response, 201, JSON.stringify(capture.descriptor));
}

/** Exactly `length` body bytes, or undefined when fewer arrive (or the socket fails). */
function readExactly(request: IncomingMessage, length: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
    });
    request.once('end', () => resolve(size === length ? Buffer.concat(chunks) : undefined));
    request.once('aborted', () => resolve(undefined));
    request.once('error', () => resolve(undefined));
  });
}
