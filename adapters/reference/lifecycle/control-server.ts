// The lifecycle receiver's control listener (LIFECYCLE-RULES §3 Control): plain HTTP on loopback,
// never authenticated, for both transports. JSON in and out; success is 200 `{ok:true}` unless
// noted; unknown routes 404; a wait that its watchdog ends answers 504, one that shutdown ends 503.
//
//   GET  /health                          {ready:true}
//   GET  /receipts                        {entries:[...]} in append order
//   POST /wait          {id, count=1}     until at least count `received` entries carry id
//   POST /wait-observed {eventId, count}  until at least count `observed` entries carry eventId
//   POST /release       {id}              sticky release of id's replies
//   POST /mark          {scenario,kind,id} appends exactly {kind, id, scenario} before answering
//   POST /emit          {response}        stdio only (else 400): validate, append {kind:"emitted", id},
//                                         write the frame on stdout, then answer
//   POST /shutdown                        {ok:true}, then listeners stop and pending waits fail
//
// `createControlServer` is the part every receiver of the family shares (health, receipts, shutdown,
// JSON POST dispatch); the catalogue receiver adds only its own /wait-observed (../catalogue/).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import { MARK_KINDS } from '../../../harness/lifecycle-adapters/scenario-types.ts';
import { isJsonObject, type JsonObject } from '../../../harness/protocol/json.ts';
import { readBody, sendJson } from '../../../harness/http/json-body.ts';
import type { Barriers } from '../lib/barriers.ts';
import type { Log } from '../lib/log.ts';
import type { ReceiptLog, WaitOutcome } from './receipt-log.ts';
import { idKey } from './request-id.ts';

/** What every receiver's control listener has: the receipt log, a wait bound, shutdown. */
export interface ControlCore {
  receipts: ReceiptLog;
  /** Bound on every blocking wait. */
  waitWatchdogMs: number;
  log: Log;
  /** Called once the /shutdown answer is flushed. */
  shutdown: () => void;
}

export interface LifecycleControlDeps extends ControlCore {
  releases: Barriers;
  /** stdio: writes an unsolicited frame and resolves once it is flushed; undefined over HTTP. */
  emit: ((response: JsonObject) => Promise<void>) | undefined;
  /** Validates an emitted frame (the intercept-response schema); a reason when it is not one. */
  checkEmitted: (response: JsonObject) => string | undefined;
}

/** One POST route: the JSON object body and the response to answer. */
export type ControlHandler = (body: JsonObject, response: ServerResponse) => Promise<void> | void;

const isRequestId = (value: unknown): value is string | number => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

export function createLifecycleControlServer(deps: LifecycleControlDeps): Server {
  const { receipts, releases } = deps;
  const posts: Record<string, ControlHandler> = {
    '/wait': async (body, response) => {
      const count = body.count ?? 1;
      if (!isRequestId(body.id) || !isCount(count)) return badRequest(response, 'body must be {id, count?: positive integer}');
      const id = idKey(body.id);
      const outcome = await receipts.waitFor((e) => e.kind === 'received' && isRequestId(e.id) && idKey(e.id) === id, count, deps.waitWatchdogMs);
      answerWait(response, outcome, `${count} receipt(s) of ${id}`, deps.waitWatchdogMs);
    },
    '/wait-observed': async (body, response) => {
      const { eventId, count } = body;
      if (typeof eventId !== 'string' || !isCount(count)) return badRequest(response, 'body must be {eventId: string, count: positive integer}');
      const outcome = await receipts.waitFor((e) => e.kind === 'observed' && e.eventId === eventId, count, deps.waitWatchdogMs);
      answerWait(response, outcome, `${count} observation(s) of ${JSON.stringify(eventId)}`, deps.waitWatchdogMs);
    },
    '/release': (body, response) => {
      if (!isRequestId(body.id)) return badRequest(response, 'body must be {id}');
      releases.release(idKey(body.id));
      sendJson(response, 200, { ok: true });
    },
    '/mark': (body, response) => {
      const { scenario, kind, id } = body;
      if (typeof scenario !== 'string' || !isRequestId(id) || !(MARK_KINDS as readonly unknown[]).includes(kind)) {
        return badRequest(response, `body must be {scenario: string, kind: one of ${MARK_KINDS.join(', ')}, id}`);
      }
      receipts.append({ kind: kind as string, id, scenario });
      sendJson(response, 200, { ok: true });
    },
    '/emit': async (body, response) => {
      if (deps.emit === undefined) return badRequest(response, '/emit exists only over stdio');
      const frame = body.response;
      if (!isJsonObject(frame) || !isRequestId(frame.id)) return badRequest(response, 'body must be {response: a JSON-RPC response with an id}');
      const problem = deps.checkEmitted(frame);
      if (problem !== undefined) return badRequest(response, `response is not a valid intercept response (${problem})`);
      receipts.append({ kind: 'emitted', id: frame.id });
      await deps.emit(frame);
      sendJson(response, 200, { ok: true });
    },
  };
  return createControlServer(deps, posts);
}

/**
 * The control listener shared by the receivers of the lifecycle family: GET /health, GET /receipts
 * and POST /shutdown, plus the family's own POST routes.
 */
export function createControlServer(core: ControlCore, posts: Readonly<Record<string, ControlHandler>>): Server {
  const { receipts, log } = core;
  return createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://control').pathname;
    const method = request.method ?? 'GET';
    if (method === 'GET' && pathname === '/health') return drainThen(request, () => sendJson(response, 200, { ready: true }));
    if (method === 'GET' && pathname === '/receipts') return drainThen(request, () => sendJson(response, 200, { entries: receipts.entries() }));
    if (method === 'POST' && pathname === '/shutdown') {
      return drainThen(request, () => {
        response.on('finish', () => core.shutdown());
        sendJson(response, 200, { ok: true }, { connection: 'close' });
      });
    }
    const handler = method === 'POST' && Object.hasOwn(posts, pathname) ? posts[pathname] : undefined;
    if (handler === undefined) {
      const known = Object.hasOwn(posts, pathname) || ['/health', '/receipts', '/shutdown'].includes(pathname);
      return drainThen(request, () => sendJson(response, known ? 405 : 404, { ok: false, error: known ? `method ${method} not allowed` : 'not found' }));
    }
    void readJsonObject(request).then(async (body) => {
      if (body === undefined) return badRequest(response, 'body must be a JSON object');
      try {
        await handler(body, response);
      } catch (error) {
        log.error(`control ${pathname} failed: ${error instanceof Error ? error.message : String(error)}`);
        sendJson(response, 500, { ok: false, error: 'internal error' });
      }
    });
  });
}

/** Answers a blocking wait: 200 once reached, 504 when its watchdog ended it, 503 at shutdown. */
export function answerWait(response: ServerResponse, outcome: WaitOutcome, what: string, watchdogMs: number): void {
  if (outcome === 'reached') return sendJson(response, 200, { ok: true });
  sendJson(response, outcome === 'timeout' ? 504 : 503, {
    ok: false,
    error: outcome === 'timeout' ? `${what} not reached within ${watchdogMs} ms` : 'receiver is shutting down',
  });
}

export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

export function badRequest(response: ServerResponse, error: string): void {
  sendJson(response, 400, { ok: false, error });
}

function drainThen(request: IncomingMessage, then: () => void): void {
  request.resume();
  then();
}

async function readJsonObject(request: IncomingMessage): Promise<JsonObject | undefined> {
  const body = await readBody(request, 4 * 1024 * 1024);
  if (!body.ok) return undefined;
  try {
    const value: unknown = JSON.parse(body.text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
