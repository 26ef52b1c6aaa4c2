// The harness side of an adapter's control HTTP server (contract v1):
//   GET /health -> {ready:true}   GET /receipts -> {requests:[...]}
//   POST /release {barrier}       POST /shutdown
// No redirect is ever followed (a 3xx is an error) and every call is bounded (http/bounded-request.ts).
// Error messages name the endpoint path, the status and the field; they never quote response bodies
// (an adapter's output may hold credentials).

import { boundedRequest, keepAliveAgent, RequestFailure } from '../http/bounded-request.ts';

export { RequestFailure };

export class ControlError extends Error {
  override readonly name = 'ControlError';
  /** The HTTP status of a `status` error (a non-2xx answer); undefined for the other kinds. */
  readonly status: number | undefined;
  constructor(
    /** `GET /receipts` etc. */
    readonly call: string,
    readonly kind: 'unreachable' | 'timeout' | 'status' | 'invalid',
    message: string,
    options?: { cause?: unknown; status?: number },
  ) {
    super(message, options);
    this.status = options?.status;
  }
}

export interface ControlCallOptions {
  /** Per-call bound (connect + headers + body). Default 5000 ms. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5000;

const agent = keepAliveAgent();

function urlFor(controlEndpoint: string, route: string): URL {
  const base = controlEndpoint.endsWith('/') ? controlEndpoint : `${controlEndpoint}/`;
  return new URL(route, base);
}

/**
 * One JSON request, bounded by `timeoutMs` (connect, headers and body), redirects never followed: the
 * status and the body text. Throws RequestFailure when there is no complete answer. Shared by the
 * control calls and capability discovery (runs/discover-capabilities.ts).
 */
export function boundedJsonRequest(url: URL | string, method: 'GET' | 'POST', body: string | undefined, timeoutMs: number): Promise<{ status: number; text: string }> {
  return boundedRequest(url, { method, ...(body === undefined ? {} : { body }), timeoutMs, agent });
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
    throw new ControlError(label, 'status', `control: ${where} answered HTTP ${response.status}${redirect}, expected 2xx`, { status: response.status });
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
