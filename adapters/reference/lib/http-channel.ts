// The client's HTTP binding: undici with its own Agent (closed at the end), redirects never
// followed (undici's request() does not follow them; a 3xx is just a non-200 status), a wall-clock
// watchdog per request and a bounded response body.

import { Agent, request } from 'undici';

import { clientRequestHeaders, type AuthConfig } from '../auth.ts';
import type { AhpChannel, Received } from './channel.ts';

const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const CONNECT_TIMEOUT_MS = 10_000;

export class HttpChannel implements AhpChannel {
  private readonly agent = new Agent({ connect: { timeout: CONNECT_TIMEOUT_MS } });
  private readonly base: string;

  constructor(
    endpoint: string,
    private readonly auth: AuthConfig,
  ) {
    this.base = endpoint.endsWith('/') ? endpoint : `${endpoint}/`;
  }

  discover(timeoutMs: number): Promise<Received> {
    return this.send('GET', 'capabilities', undefined, timeoutMs);
  }

  exchange(message: unknown, timeoutMs: number): Promise<Received> {
    return this.send('POST', 'intercept', JSON.stringify(message), timeoutMs);
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }

  private async send(method: 'GET' | 'POST', route: string, body: string | undefined, timeoutMs: number): Promise<Received> {
    const signal = AbortSignal.timeout(timeoutMs);
    const headers: Record<string, string> = { accept: 'application/json', ...clientRequestHeaders(this.auth) };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      const response = await request(new URL(route, this.base), {
        method,
        headers,
        body,
        signal,
        dispatcher: this.agent,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      if (response.statusCode !== 200) {
        await response.body.dump().catch(() => undefined);
        return { ok: false, error: `transport: HTTP status ${response.statusCode}` };
      }
      const type = response.headers['content-type'];
      if (typeof type !== 'string' || type.split(';')[0]!.trim().toLowerCase() !== 'application/json') {
        await response.body.dump().catch(() => undefined);
        return { ok: false, error: 'transport: response content-type is not application/json' };
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        const buffer = chunk as Buffer;
        size += buffer.length;
        if (size > MAX_RESPONSE_BYTES) {
          response.body.destroy();
          return { ok: false, error: `transport: response body exceeds ${MAX_RESPONSE_BYTES} bytes` };
        }
        chunks.push(buffer);
      }
      try {
        return { ok: true, message: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
      } catch {
        return { ok: false, error: 'transport: malformed JSON body' };
      }
    } catch (error) {
      if (signal.aborted) return { ok: false, error: `transport: timeout after ${timeoutMs} ms` };
      const code = (error as { code?: unknown }).code;
      return { ok: false, error: typeof code === 'string' ? `transport: connection failed (${code})` : 'transport: connection failed' };
    }
  }
}
