// One raw content upload (content-upload.md "Request framing"): POST the exact bytes to the exact
// endpoint with `Content-Type: application/octet-stream`, the DECLARED `Content-Length` and
// `AHP-Content-SHA256` (negative fixtures declare wrong ones on purpose) and `Authorization: Bearer`
// with the upload token, or no credential header at all for an anonymous upload — no other AHP
// header, no cookie, no encoding, a fixed-length body (never chunked), no redirects, no retry, one
// connection per upload, the whole exchange under one watchdog. When fewer bytes exist than declared, the connection is
// half-closed after them, so the receiver sees the short body end instead of waiting for more.
// node:http rather than undici: undici refuses to send a body that disagrees with Content-Length.

import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface RawUpload {
  endpoint: string;
  bytes: Buffer;
  declaredSize: number;
  declaredSha256: string;
  /** The upload bearer token; undefined: anonymous (no Authorization header). */
  token: string | undefined;
  timeoutMs: number;
}

/** The receiver's status (and its JSON body on 201), or a local failure that never counts as a status. */
export type UploadAnswer = { ok: true; status: number; body: unknown } | { ok: false; error: string };

const MAX_ANSWER_BYTES = 64 * 1024;

export function rawUpload(upload: RawUpload): Promise<UploadAnswer> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer: UploadAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const url = new URL(upload.endpoint);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let request: ReturnType<typeof httpRequest>;
    try {
      request = send(url, {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/octet-stream',
          'content-length': String(upload.declaredSize),
          'ahp-content-sha256': upload.declaredSha256,
          ...(upload.token === undefined ? {} : { authorization: `Bearer ${upload.token}` }),
        },
      });
    } catch (error) {
      // Invalid header characters (CR/LF in a token) are refused before anything is sent.
      resolve({ ok: false, error: `upload: request not sent (${(error as NodeJS.ErrnoException).code ?? 'invalid request'})` });
      return;
    }
    const timer = setTimeout(() => {
      settle({ ok: false, error: `upload: timeout after ${upload.timeoutMs} ms` });
      request.destroy();
    }, upload.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => settle({ ok: false, error: `upload: connection failed (${error.code ?? 'error'})` }));
    request.on('response', (response) => {
      void readAnswer(response).then(settle);
    });
    request.end(upload.bytes);
    if (upload.bytes.length < upload.declaredSize) request.on('finish', () => request.socket?.end());
  });
}

async function readAnswer(response: IncomingMessage): Promise<UploadAnswer> {
  const status = response.statusCode ?? 0;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response) {
      size += (chunk as Buffer).length;
      if (size > MAX_ANSWER_BYTES) {
        response.destroy();
        return { ok: true, status, body: undefined };
      }
      chunks.push(chunk as Buffer);
    }
  } catch {
    // A receiver that closes right after its status line still gave its status.
  }
  const type = response.headers['content-type'];
  const json = typeof type === 'string' && type.split(';')[0]!.trim().toLowerCase() === 'application/json';
  let body: unknown;
  if (status === 201 && json) {
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = undefined;
    }
  }
  return { ok: true, status, body };
}
