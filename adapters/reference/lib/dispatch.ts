// The transport-independent heart of the reference server: one parsed JSON-RPC message in, one
// reply out (compact JSON text plus the HTTP status the HTTP binding uses). Both the HTTP and the
// stdio binding call this, so they behave identically.
//
// hooks/intercept: record the receipt exactly as parsed, validate it against the intercept-request
// schema, the spec's per-message MUSTs (strict-wire.ts) and the scenario-id correlation, hold it behind the row's barrier if any, then answer
// with the row's scripted response, serialised unchanged — never repaired, even when invalid.

import type { AuthMode } from '../auth.ts';
import type { JsonValue } from '../../../harness/protocol/json.ts';
import { cloneJson, isJsonObject } from '../../../harness/protocol/json.ts';
import { PROTOCOL_VERSION } from '../../../harness/protocol/messages.ts';
import type { ProtocolValidators } from '../../../harness/protocol/validator-types.ts';
import type { Scenario } from '../../../harness/scenarios/types.ts';
import type { Barriers } from './barriers.ts';
import {
  errorEnvelope,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  replyId,
} from './jsonrpc.ts';
import { capabilitiesResult, endpointCapabilities } from './manifest.ts';
import { semanticRefusal } from './strict-wire.ts';
import type { Log } from './log.ts';

export interface ServerState {
  scenarios: ReadonlyMap<string, Scenario>;
  validators: Pick<ProtocolValidators, 'interceptRequest' | 'capabilitiesRequest'>;
  /** Every hooks/intercept envelope received, as parsed, in arrival order (no discovery). */
  receipts: JsonValue[];
  barriers: Barriers;
  authMode: AuthMode;
  /** Upper bound on how long a reply is held behind an unreleased barrier. */
  barrierWatchdogMs: number;
  log: Log;
}

export interface Reply {
  /** HTTP status for the HTTP binding (stdio ignores it). */
  status: number;
  /** One compact JSON value, no trailing newline. */
  body: string;
}

/** Which methods an entry point accepts: HTTP routes are method-specific, stdio takes both. */
export type EntryPoint = 'http-intercept' | 'http-capabilities' | 'stdio';

const ACCEPTS: Record<EntryPoint, readonly string[]> = {
  'http-intercept': ['hooks/intercept'],
  'http-capabilities': ['hooks/capabilities'],
  stdio: ['hooks/intercept', 'hooks/capabilities'],
};

/** Parses one message's text and dispatches it; unparseable text gets a JSON-RPC parse error. */
export async function dispatchText(text: string, entry: EntryPoint, state: ServerState): Promise<Reply> {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { status: 400, body: errorEnvelope(null, PARSE_ERROR, 'Parse error: the message is not valid JSON') };
  }
  return dispatch(message, entry, state);
}

export async function dispatch(message: unknown, entry: EntryPoint, state: ServerState): Promise<Reply> {
  const id = replyId(message);
  if (!isJsonObject(message) || message.jsonrpc !== '2.0' || typeof message.method !== 'string') {
    return { status: 400, body: errorEnvelope(id, INVALID_REQUEST, 'Invalid Request: expected one JSON-RPC 2.0 request object') };
  }
  const method = message.method;
  if (!ACCEPTS[entry].includes(method)) {
    return { status: 400, body: errorEnvelope(id, METHOD_NOT_FOUND, `Method not found: ${JSON.stringify(method).slice(0, 80)} is not accepted here`) };
  }
  return method === 'hooks/capabilities' ? discover(message, state) : intercept(message, state);
}

/** The full discovery response envelope for a given id (`hooks/capabilities` over POST or stdio). */
export function capabilitiesEnvelope(id: string | number, state: Pick<ServerState, 'authMode'>): string {
  return JSON.stringify({ jsonrpc: '2.0', id, result: capabilitiesResult(state.authMode) });
}

/** The body of HTTP `GET /capabilities`: the bare capability set (see manifest.ts). */
export function capabilitiesBody(state: Pick<ServerState, 'authMode'>): string {
  return JSON.stringify(endpointCapabilities(state.authMode));
}

function discover(message: Record<string, JsonValue>, state: ServerState): Reply {
  const id = replyId(message);
  const params = message.params;
  if (!isJsonObject(params) || params.protocolVersion !== PROTOCOL_VERSION) {
    return { status: 400, body: errorEnvelope(id, INVALID_PARAMS, `Invalid params: discovery requires params.protocolVersion "${PROTOCOL_VERSION}"`) };
  }
  const check = state.validators.capabilitiesRequest(message);
  if (!check.valid || id === null) {
    return { status: 400, body: errorEnvelope(id, INVALID_PARAMS, 'Invalid params: not a valid hooks/capabilities request', check.errors.slice(0, 5)) };
  }
  return { status: 200, body: capabilitiesEnvelope(id, state) };
}

async function intercept(message: Record<string, JsonValue>, state: ServerState): Promise<Reply> {
  const id = replyId(message);
  state.receipts.push(cloneJson(message));

  const check = state.validators.interceptRequest(message);
  if (!check.valid) {
    state.log.info(`rejected an invalid hooks/intercept request (${check.errors.length} schema error(s))`);
    return { status: 400, body: errorEnvelope(id, INVALID_PARAMS, 'Invalid params: request fails the intercept-request schema', check.errors.slice(0, 5)) };
  }
  // The spec's MUSTs beyond the schema, first among them JSON-RPC id = params.event.id. Invalid
  // params (-32602) is what the protocol's own receivers answer an invalid request with.
  const refusal = semanticRefusal(message, 'intercept');
  if (refusal !== undefined) {
    state.log.info(`rejected a hooks/intercept request that breaks the spec: ${refusal}`);
    return { status: 400, body: errorEnvelope(id, INVALID_PARAMS, `Invalid params: the request breaks the spec: ${refusal}`) };
  }
  const scenario = typeof id === 'string' ? state.scenarios.get(id) : undefined;
  if (!scenario) {
    return { status: 400, body: errorEnvelope(id, INVALID_PARAMS, 'Invalid params: request id is not a scenario id') };
  }

  if (scenario.barrier !== undefined) {
    const outcome = await state.barriers.wait(scenario.barrier, state.barrierWatchdogMs);
    if (!outcome.released) {
      const why = outcome.reason === 'timeout' ? `not released within ${state.barrierWatchdogMs} ms` : 'server is shutting down';
      state.log.error(`barrier ${JSON.stringify(scenario.barrier)} for ${JSON.stringify(id)}: ${why}`);
      return { status: outcome.reason === 'timeout' ? 504 : 503, body: errorEnvelope(id, INTERNAL_ERROR, `Internal error: barrier ${why}`) };
    }
  }
  return { status: 200, body: JSON.stringify(scenario.response) };
}
