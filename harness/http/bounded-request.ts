// One HTTP exchange with a JSON (or empty) body, bounded as a whole by `timeoutMs` (connect, headers
// and body), redirects never followed (a 3xx is just a status): the status and the body text. Built
// on node:http, which every test worker has loaded anyway (undici cost a worker ~150 ms to import on
// each watch-mode rerun). Throws RequestFailure when there is no complete answer.
//
// A pooled keep-alive connection can be closed by the server (its idle timeout) just as a request
// goes out on it: that request fails with ECONNRESET/EPIPE before any answer, through no fault of
// either side. Such a request is sent again on a fresh connection (node's documented remedy,
// `request.reusedSocket`), within the same overall bound; a failure on a fresh connection is final.

import { Agent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** A bounded request that got no (complete) answer: `timeout`, or `unreachable` with the error code. */
export class RequestFailure extends Error {
  override readonly name = 'RequestFailure';
  constructor(
    readonly kind: 'timeout' | 'unreachable',
    /** Whether the headers or only the body did not arrive. */
    readonly phase: 'headers' | 'body',
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(`${kind} (${phase}, ${code})`, options);
  }
}

/**
 * Whether `request` failed because the pooled connection it went out on was closed under it (reused
 * socket, reset before any answer): it never reached the server, and may be sent again on a fresh one.
 */
export function closedUnderRequest(request: ClientRequest, code: string | undefined, answered: boolean): boolean {
  return !answered && request.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE');
}

/** Pooled loopback connections (node unrefs idle ones, so they never hold a process open). */
export function keepAliveAgent(maxSockets = 8): Agent {
  return new Agent({ keepAlive: true, maxSockets });
}

export interface BoundedRequest {
  method: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  timeoutMs: number;
  agent?: Agent;
}

export function boundedRequest(url: URL | string, options: BoundedRequest): Promise<{ status: number; text: string }> {
  const target = typeof url === 'string' ? new URL(url) : url;
  const secure = target.protocol === 'https:';
  if (!secure && target.protocol !== 'http:') return Promise.reject(new RequestFailure('unreachable', 'headers', 'ERR_UNSUPPORTED_PROTOCOL'));
  const signal = AbortSignal.timeout(options.timeoutMs);
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(Buffer.byteLength(options.body));
  }
  const send = secure ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      let phase: 'headers' | 'body' = 'headers';
      let settled = false;
      const fail = (error: unknown): void => {
        if (settled) return;
        settled = true;
        const code = signal.aborted ? 'TIMEOUT' : ((error as NodeJS.ErrnoException).code ?? (error as Error).name);
        if (!signal.aborted && closedUnderRequest(request, code, phase === 'body')) {
          attempt();
          return;
        }
        reject(new RequestFailure(signal.aborted ? 'timeout' : 'unreachable', phase, code, { cause: error }));
      };
      const request = send(target, { method: options.method, headers, signal, ...(options.agent && !secure ? { agent: options.agent } : {}) }, (response: IncomingMessage) => {
        phase = 'body';
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', fail);
        response.on('aborted', () => fail(Object.assign(new Error('the response was cut off'), { code: 'ECONNRESET' })));
        response.on('end', () => {
          if (settled) return;
          settled = true;
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
      });
      request.on('error', fail);
      request.end(options.body);
    };
    attempt();
  });
}
