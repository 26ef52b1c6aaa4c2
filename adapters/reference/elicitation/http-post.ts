// One POST with node:http (the sender's whole HTTP stack: starting a process per step must stay
// cheap, and undici alone costs ~0.1 s to load). Exact headers as given, a fixed Content-Length,
// one connection per request, no redirects (node:http never follows them), a watchdog over the
// whole exchange, and the response body returned as text.

import { request as httpRequest } from 'node:http';

export interface PostAnswer {
  status: number;
  text: string;
}

const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** Resolves with the status and body text; rejects on a connection failure or the watchdog. */
export function post(url: string, headers: Record<string, string>, body: Buffer, timeoutMs: number): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(body.length) } });
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer from ${new URL(url).pathname} within ${timeoutMs} ms`));
    }, timeoutMs);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) request.destroy(new Error(`the answer exceeds ${MAX_RESPONSE_BYTES} bytes`));
        else chunks.push(chunk);
      });
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
      });
      response.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    request.end(body);
  });
}
