// A tiny independent upload origin for the anonymous-upload tests (plain node:http on loopback, port
// 0): it records every request exactly as it arrived — method, request-target, raw header list and
// body bytes — and answers what the test scripts. By default that is what SENDER-ISOLATION-RULES §4
// gives a good upload: 201 `application/json` `{ref:"urn:uuid:…", size, sha256}` of the bytes received.

import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CapturedRequest {
  method: string;
  /** The request-target verbatim (path and query as sent). */
  target: string;
  /** Header name (lower case) → every value, in arrival order, one per occurrence. */
  headers: Map<string, string[]>;
  body: Buffer;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface CaptureServer {
  /** `http://127.0.0.1:PORT` + `path`. */
  url(path: string): string;
  readonly captures: readonly CapturedRequest[];
  close(): Promise<void>;
}

/** A 201 receipt for the bytes received, with a fresh receiver-assigned `urn:uuid:` ref. */
export function receiptAnswer(capture: CapturedRequest): Answer {
  const body = JSON.stringify({ ref: `urn:uuid:${randomUUID()}`, size: capture.body.length, sha256: createHash('sha256').update(capture.body).digest('hex') });
  return { status: 201, headers: { 'content-type': 'application/json' }, body };
}

export async function startCaptureServer(answer: (capture: CapturedRequest) => Answer = receiptAnswer): Promise<CaptureServer> {
  const captures: CapturedRequest[] = [];
  const server = createServer((request, response) => {
    void readAll(request).then((body) => {
      const capture: CapturedRequest = { method: request.method ?? '', target: request.url ?? '', headers: headerMap(request.rawHeaders), body };
      captures.push(capture);
      const { status, headers = {}, body: text = '' } = answer(capture);
      response.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(text)) });
      response.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    captures,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function headerMap(raw: readonly string[]): Map<string, string[]> {
  const headers = new Map<string, string[]>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), raw[i + 1]!]);
  }
  return headers;
}

async function readAll(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
