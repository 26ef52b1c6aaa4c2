// The client's HTTP binding: undici with its own Agent (destroyed at the end), redirects never
// followed (undici's request() does not follow them; a 3xx is just a non-200 status), a wall-clock
// watchdog per request and a bounded response body. `notify` delivers a hooks/observe notification
// (lifecycle clients): any 2xx is delivery, and a body, if any, is never read as a decision. Credentials (lib/client-credentials.ts) are
// attached only here, only to the event endpoint's own routes; mtls puts the client certificate and
// the trusted CA on the Agent's TLS connections. A refused credential (401/403) or a failed handshake
// is a transport failure: the row fails, it never counts as an expected error.

import { Agent, request, type Dispatcher } from 'undici';

import { endpointRoutes, type EndpointRoutes } from '../../../harness/http/endpoint-routes.ts';
import type { AhpChannel, Received } from './channel.ts';
import type { ClientCredentials } from './client-credentials.ts';

const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const CONNECT_TIMEOUT_MS = 10_000;

export class HttpChannel implements AhpChannel {
  private readonly agent: Agent;
  /** `/capabilities` and `/intercept` beside the endpoint, which may be a base URL or end in `/intercept`. */
  private readonly routes: EndpointRoutes;

  constructor(
    endpoint: string,
    private readonly credentials: ClientCredentials,
  ) {
    this.routes = endpointRoutes(endpoint);
    this.agent = new Agent({ connect: { timeout: CONNECT_TIMEOUT_MS, ...credentials.tlsConnectOptions() } });
  }

  discover(timeoutMs: number): Promise<Received> {
    return this.send('GET', this.routes.capabilities, undefined, timeoutMs);
  }

  /** JSON-RPC discovery: POSTs a hooks/capabilities request to `/capabilities`; needs 200 and a JSON body. */
  discoverByPost(request: unknown, timeoutMs: number): Promise<Received> {
    return this.send('POST', this.routes.capabilities, JSON.stringify(request), timeoutMs);
  }

  exchange(message: unknown, timeoutMs: number): Promise<Received> {
    return this.send('POST', this.routes.intercept, JSON.stringify(message), timeoutMs);
  }

  /** POSTs a notification to `/observe` beside the endpoint; an observer's reply body is discarded unread. */
  async notify(message: unknown, timeoutMs: number): Promise<{ ok: true } | { ok: false; error: string }> {
    const posted = await this.postNotification(message, timeoutMs);
    if (!posted.ok) return posted;
    return posted.status >= 200 && posted.status < 300 ? { ok: true } : { ok: false, error: `transport: HTTP status ${posted.status}` };
  }

  /** The same POST, answering the receiver's status whatever it is (the caller decides what it tolerates). */
  async postNotification(message: unknown, timeoutMs: number): Promise<{ ok: true; status: number } | { ok: false; error: string }> {
    const sent = await this.request('POST', this.routes.observe, JSON.stringify(message), timeoutMs);
    if (!sent.ok) return sent;
    await sent.response.body.dump().catch(() => undefined);
    return { ok: true, status: sent.response.statusCode };
  }

  /** Ends every connection, also requests still in flight (a held intercept nobody awaits any more). */
  async close(): Promise<void> {
    await this.agent.destroy().catch(() => undefined);
  }

  private async request(
    method: 'GET' | 'POST',
    url: string,
    body: string | undefined,
    timeoutMs: number,
  ): Promise<{ ok: true; response: Dispatcher.ResponseData; signal: AbortSignal } | { ok: false; error: string }> {
    const signal = AbortSignal.timeout(timeoutMs);
    const credential = await this.credentials.headers();
    if (!credential.ok) return { ok: false, error: credential.error };
    const headers: Record<string, string> = { accept: 'application/json', ...credential.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      const response = await request(url, {
        method,
        headers,
        body,
        signal,
        dispatcher: this.agent,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      return { ok: true, response, signal };
    } catch (error) {
      return { ok: false, error: failureLabel(error, signal, timeoutMs) };
    }
  }

  private async send(method: 'GET' | 'POST', url: string, body: string | undefined, timeoutMs: number): Promise<Received> {
    const sent = await this.request(method, url, body, timeoutMs);
    if (!sent.ok) return sent;
    const { response, signal } = sent;
    try {
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
      return { ok: false, error: failureLabel(error, signal, timeoutMs) };
    }
  }
}

function failureLabel(error: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted) return `transport: timeout after ${timeoutMs} ms`;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `transport: connection failed (${code})` : 'transport: connection failed';
}
