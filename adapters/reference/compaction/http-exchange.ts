// One hook call over HTTP: POST the request to `<endpoint>/hooks/intercept` with the scope's bearer
// token, bounded by a per-event timeout. Failures are short labels that never carry the token.

import { request as httpRequest } from 'node:http';

import type { JsonValue } from '../../../harness/protocol/json.ts';
import { INTERCEPT_PATH } from './http-receiver.ts';

export type WireReply = { ok: true; reply: JsonValue } | { ok: false; error: string; reply?: JsonValue };

export const EVENT_TIMEOUT_MS = 15_000;

/** The intercept URL of a receiver origin (an endpoint that already ends in the path is kept). */
export function interceptUrl(endpoint: string): string {
  const trimmed = endpoint.replace(/\/+$/, '');
  return trimmed.endsWith(INTERCEPT_PATH) ? trimmed : `${trimmed}${INTERCEPT_PATH}`;
}

/** POSTs `body` to `url` exactly; resolves with the status and the parsed JSON body (if any). */
export function postJson(url: string, token: string, body: unknown, timeoutMs: number): Promise<{ ok: true; status: number; json: JsonValue | undefined } | { ok: false; error: string }> {
  const text = JSON.stringify(body);
  return new Promise((resolve) => {
    const outgoing = httpRequest(
      url,
      { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }, timeout: timeoutMs },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', () => resolve({ ok: false, error: 'transport: reply stream failed' }));
        incoming.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          let json: JsonValue | undefined;
          try {
            json = raw === '' ? undefined : (JSON.parse(raw) as JsonValue);
          } catch {
            json = undefined;
          }
          resolve({ ok: true, status: incoming.statusCode ?? 0, json });
        });
      },
    );
    outgoing.on('timeout', () => {
      outgoing.destroy();
      resolve({ ok: false, error: `transport: no reply within ${timeoutMs} ms` });
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => resolve({ ok: false, error: `transport: ${error.code ?? 'request failed'}` }));
    outgoing.end(text);
  });
}

export async function exchangeOverHttp(endpoint: string, token: string, request: JsonValue, timeoutMs = EVENT_TIMEOUT_MS): Promise<WireReply> {
  const posted = await postJson(interceptUrl(endpoint), token, request, timeoutMs);
  if (!posted.ok) return posted;
  if (posted.json === undefined) return { ok: false, error: `transport: HTTP ${posted.status} without a JSON body` };
  if (posted.status !== 200) return { ok: false, error: `transport: HTTP ${posted.status}`, reply: posted.json };
  return { ok: true, reply: posted.json };
}
