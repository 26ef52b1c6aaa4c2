// The raw wire harness-driven receiver probes talk on: one bounded POST (5 s by default, redirects
// never followed) answered by a status and a body, or by why there was no answer; and the observe
// route beside a server's event endpoint, sent with the client's event auth for its mode (bearer and
// workload send their token, oauth fetches one from the run's issuer, mtls presents the client
// certificate). Shared by the lifecycle probes (LIFECYCLE-RULES §9) and the catalogue probes.
//
// Nothing here logs or returns a credential: an answer is a status, a body and a failure code.

import { readFileSync } from 'node:fs';

import { Agent, request } from 'undici';

import { endpointRoutes } from '../http/endpoint-routes.ts';
import type { JsonObject } from '../protocol/json.ts';
import type { ClientAuthSettings } from './auth-settings.ts';
import { acquireToken } from './acquire-token.ts';

export interface ProbeAnswer {
  status: number | null;
  body: string;
  /** A connection failure code (or `timeout`) when there is no status. */
  failure?: string;
}

/** `204`, `400 with a 12-byte body`, or `no answer (ECONNRESET)`: never the body itself. */
export function describeAnswer(answer: ProbeAnswer): string {
  if (answer.status === null) return `no answer (${answer.failure ?? 'error'})`;
  return answer.body.length > 0 ? `${answer.status} with a ${answer.body.length}-byte body` : `${answer.status}`;
}

/** One POST, bounded by `timeoutMs` as a whole; never throws for the peer's behaviour. */
export async function probePost(url: string, headers: Record<string, string>, body: Buffer | string, dispatcher: Agent, timeoutMs: number): Promise<ProbeAnswer> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await request(url, { method: 'POST', headers, body, dispatcher, signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    return { status: response.statusCode, body: await response.body.text() };
  } catch (error) {
    return { status: null, body: '', failure: signal.aborted ? 'timeout' : ((error as { code?: string }).code ?? 'error') };
  }
}

export interface EventWire {
  /** POST the message to `<endpoint>/observe` with the mode's event auth. */
  observe(message: JsonObject, timeoutMs: number): Promise<ProbeAnswer>;
  close(): Promise<void>;
}

/** Observes go to `/observe` beside the endpoint, with the client's event auth for its mode. */
export async function eventWire(auth: ClientAuthSettings, endpoint: string): Promise<EventWire> {
  const url = endpointRoutes(endpoint).observe;
  const tls =
    auth.mode === 'mtls' ? { ca: readFileSync(auth.caFile), cert: readFileSync(auth.certFile), key: readFileSync(auth.keyFile) } : undefined;
  const agent = new Agent({ keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000, ...(tls ? { connect: tls } : {}) });
  let authorization: string | undefined;
  if (auth.mode === 'bearer') authorization = `Bearer ${auth.token}`;
  else if (auth.mode === 'workload') authorization = `Bearer ${auth.assertion}`;
  else if (auth.mode === 'oauth') authorization = `Bearer ${await acquireToken(auth.tokenEndpoint)}`;
  return {
    observe: (message, timeoutMs) =>
      probePost(url, { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) }, JSON.stringify(message), agent, timeoutMs),
    close: () => agent.close(),
  };
}
