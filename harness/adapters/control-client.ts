// The harness side of an adapter's control HTTP server (contract v1):
//   GET /health -> {ready:true}   GET /receipts -> {requests:[...]}
//   POST /release {barrier}       POST /shutdown
// undici without any redirect handling (a 3xx is an error, never followed) and a per-call timeout.
// Error messages name the endpoint path, the status and the field; they never quote response bodies
// (an adapter's output may hold credentials).

import { Agent, request } from 'undici';

export class ControlError extends Error {
  override readonly name = 'ControlError';
  constructor(
    /** `GET /receipts` etc. */
    readonly call: string,
    readonly kind: 'unreachable' | 'timeout' | 'status' | 'invalid',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface ControlCallOptions {
  /** Per-call bound (connect + headers + body). Default 5000 ms. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5000;

// Short keep-alive so idle sockets never hold a process (or a test worker) open for long.
const agent = new Agent({ keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000, connections: 8 });

function urlFor(controlEndpoint: string, route: string): URL {
  const base = controlEndpoint.endsWith('/') ? controlEndpoint : `${controlEndpoint}/`;
  return new URL(route, base);
}

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
 * One JSON request with undici, bounded by `timeoutMs` (connect, headers and body), redirects never
 * followed: the status and the body text. Throws RequestFailure when there is no complete answer.
 * Shared by the control calls and capability discovery (runs/discover-capabilities.ts).
 */
export async function boundedJsonRequest(url: URL | string, method: 'GET' | 'POST', body: string | undefined, timeoutMs: number): Promise<{ status: number; text: string }> {
  const signal = AbortSignal.timeout(timeoutMs);
  const failure = (phase: 'headers' | 'body', error: unknown): RequestFailure =>
    new RequestFailure(signal.aborted ? 'timeout' : 'unreachable', phase, (error as NodeJS.ErrnoException).code ?? (error as Error).name, { cause: error });
  let response;
  try {
    response = await request(url, {
      method,
      dispatcher: agent,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body,
    });
  } catch (error) {
    throw failure('headers', error);
  }
  try {
    return { status: response.statusCode, text: await response.body.text() };
  } catch (error) {
    throw failure('body', error);
  }
}

/**
 * One JSON call to a control route (`route` without a leading slash): the parsed body of a 2xx
 * answer (undefined when empty), else a ControlError. Also what adapters use for routes beyond v1.
 */
export async function controlCall(
  controlEndpoint: string,
  method: 'GET' | 'POST',
  route: string,
  body: unknown,
  options: ControlCallOptions,
): Promise<unknown> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const url = urlFor(controlEndpoint, route);
  const label = `${method} /${route}`;
  const where = `${label} on ${url.origin}`;
  let response: { status: number; text: string };
  try {
    response = await boundedJsonRequest(url, method, body === undefined ? undefined : JSON.stringify(body), timeoutMs);
  } catch (error) {
    if (!(error instanceof RequestFailure)) throw error;
    const reading = error.phase === 'body' ? ' reading the body' : '';
    if (error.kind === 'timeout') throw new ControlError(label, 'timeout', `control: ${where} timed out after ${timeoutMs} ms${reading}`, { cause: error.cause });
    const what = error.phase === 'body' ? ': the response body could not be read' : ` failed (${error.code})`;
    throw new ControlError(label, 'unreachable', `control: ${where}${what}`, { cause: error.cause });
  }
  const text = response.text;
  if (response.status < 200 || response.status > 299) {
    const redirect = response.status >= 300 && response.status < 400 ? ' (redirects are never followed)' : '';
    throw new ControlError(label, 'status', `control: ${where} answered HTTP ${response.status}${redirect}, expected 2xx`);
  }
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ControlError(label, 'invalid', `control: ${where}: the response body is not JSON`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** GET /health; resolves when the body is `{ready: true}`. */
export async function health(controlEndpoint: string, options: ControlCallOptions = {}): Promise<void> {
  const body = await controlCall(controlEndpoint, 'GET', 'health', undefined, options);
  if (!isObject(body) || body.ready !== true) {
    throw new ControlError('GET /health', 'invalid', `control: GET /health on ${new URL(controlEndpoint).origin}: field "ready": expected true`);
  }
}

/** GET /receipts; the `requests` array, in arrival order. */
export async function receipts(controlEndpoint: string, options: ControlCallOptions = {}): Promise<unknown[]> {
  const body = await controlCall(controlEndpoint, 'GET', 'receipts', undefined, options);
  if (!isObject(body) || !Array.isArray(body.requests)) {
    throw new ControlError(
      'GET /receipts',
      'invalid',
      `control: GET /receipts on ${new URL(controlEndpoint).origin}: field "requests": expected an array (body {requests:[...]})`,
    );
  }
  return body.requests as unknown[];
}

/** POST /release {barrier}. */
export async function release(controlEndpoint: string, barrier: string, options: ControlCallOptions = {}): Promise<void> {
  await controlCall(controlEndpoint, 'POST', 'release', { barrier }, options);
}

/** POST /shutdown. */
export async function shutdown(controlEndpoint: string, options: ControlCallOptions = {}): Promise<void> {
  await controlCall(controlEndpoint, 'POST', 'shutdown', {}, options);
}

/**
 * The scenario id a receipt belongs to: full envelopes and compact receipts carry the JSON-RPC `id`
 * (= scenario id per contract); `params.event.id` and wrapped `{request|message: envelope}` forms
 * are recognised too. undefined when none is found.
 */
export function receiptScenarioId(receipt: unknown): string | undefined {
  if (!isObject(receipt)) return undefined;
  if (typeof receipt.id === 'string' || typeof receipt.id === 'number') return String(receipt.id);
  for (const key of ['request', 'message', 'envelope']) {
    const inner = receipt[key];
    if (isObject(inner) && (typeof inner.id === 'string' || typeof inner.id === 'number')) return String(inner.id);
  }
  const params = receipt.params;
  if (isObject(params) && isObject(params.event) && typeof params.event.id === 'string') return params.event.id;
  return undefined;
}
