// The receiver's decision on one hooks/intercept envelope (ELICITATION-RULES §3): validate the
// envelope, the JSON-RPC id, correlation, metadata agreement and the selected MCP bodies; on success
// append the exact receipt and answer with no effects. Any refusal is HTTP 400 and records nothing.
// Correlation is checked before any result body is read.
//
// The parts a lying fake replaces (suites/harness/fixtures/elicitation-fakes/) are construction
// options with the honest behaviour as default: nothing here reads the environment.

import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from '../../../harness/protocol/json.ts';
import { stageOfEventType, type Stage } from './binding.ts';
import type { ElicitationValidators } from './body-validators.ts';
import { pendingKey, PendingRequests, type PendingRequest } from './pending-requests.ts';
import { hasDuplicateKey } from './duplicate-keys.ts';
import type { BodyReader, ItemView } from './selected-body.ts';

export interface Receipt {
  message: JsonValue;
  bytes: string;
  summary: JsonObject;
}

export interface InterceptAnswer {
  status: 200 | 400;
  body: string;
}

export interface ReceiverParts {
  /** Reads an item's selected body (fails closed on gaps, unknown refs and digest mismatches). */
  readBody: BodyReader;
  pending: PendingRequests;
  /** The principal a result's provenance names: the one the receiver was started with. */
  authenticatedSource(principal: string, event: JsonObject): string;
  /** The MCP params a receipt records for a selected request body: verbatim. */
  recordedParams(params: JsonObject): JsonObject;
  /** The MCP result a receipt records for a selected result body (beside its request's params): verbatim. */
  recordedResult(result: JsonObject, params: JsonObject): JsonObject;
}

export interface ReceiverOptions {
  /** `authenticated:<sender language>` from argv. */
  principal: string;
  validators: ElicitationValidators;
  parts: ReceiverParts;
}

export function honestReceiverParts(readBody: BodyReader): ReceiverParts {
  return {
    readBody,
    pending: new PendingRequests(),
    authenticatedSource: (principal) => principal,
    recordedParams: (params) => params,
    recordedResult: (result) => result,
  };
}

class Refusal extends Error {}

function refuse(reason: string): never {
  throw new Refusal(reason);
}

function parseBody(view: ItemView & { selection: 'body' }, stage: Stage): JsonObject {
  const text = view.bytes.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    refuse(`the selected ${stage} body is not JSON`);
  }
  if (hasDuplicateKey(text)) refuse(`the selected ${stage} body repeats a key within one object`);
  if (!isJsonObject(value)) refuse(`the selected ${stage} body is not a JSON object`);
  return value;
}

export class ElicitationReceiver {
  private readonly log: Receipt[] = [];

  constructor(private readonly options: ReceiverOptions) {}

  /** Every accepted event's receipt, in arrival order. */
  receipts(): readonly Receipt[] {
    return this.log;
  }

  intercept(message: unknown): InterceptAnswer {
    try {
      const receipt = this.accept(message);
      this.log.push(receipt);
      const id = (message as JsonObject)['id'] as JsonValue;
      return { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: 'draft', effects: [] } }) };
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      return { status: 400, body: JSON.stringify({ error: 'refused', reason: error.message }) };
    }
  }

  private accept(message: unknown): Receipt {
    const event = isJsonObject(message) && isJsonObject(message['params']) ? message['params']['event'] : undefined;
    const stage = isJsonObject(event) ? stageOfEventType(event['type']) : undefined;
    if (stage === undefined || !isJsonObject(event)) refuse('not a user.elicitation.request or user.elicitation.result intercept');
    const problem = this.options.validators.envelope(stage)(message);
    if (problem !== undefined) refuse(`envelope: ${problem}`);
    const envelope = message as JsonObject;
    if (envelope['id'] !== event['id']) refuse('the JSON-RPC id differs from params.event.id');
    // Per-request mode validation needs the advertised mode: absent modes are unsupported
    // (interaction-payloads.md). Strict on purpose, so a fixture row that forgets it fails here.
    const mode = (event['elicitation'] as JsonObject)['mode'] as string;
    const granted = ((envelope['params'] as JsonObject)['capabilities'] as JsonObject)['elicitation'];
    if (!isJsonObject(granted) || !isJsonObject(granted[mode])) refuse(`elicitation.mode ${JSON.stringify(mode)} is not granted by params.capabilities.elicitation`);
    return stage === 'request' ? this.acceptRequest(envelope, event) : this.acceptResult(envelope, event);
  }

  private acceptRequest(envelope: JsonObject, event: JsonObject): Receipt {
    const { parts, validators } = this.options;
    const elicitation = event['elicitation'] as JsonObject;
    const key = pendingKey(event['source'] as string, event['id'] as string);
    const mode = elicitation['mode'] as 'form' | 'url';
    const read = parts.readBody(elicitation['request'] as JsonObject | undefined);
    if (!read.ok) refuse(read.reason);
    let params: JsonObject | undefined;
    if (read.view.selection === 'body') {
      params = parseBody(read.view, 'request');
      const invalid = validators.request(params);
      if (invalid !== undefined) refuse(`MCP request body: ${invalid}`);
      const parsedMode = params['mode'] ?? 'form';
      if (parsedMode !== mode) refuse(`elicitation.mode ${JSON.stringify(mode)} differs from the body's mode ${JSON.stringify(parsedMode)}`);
    }
    const session = event['session'];
    const request: PendingRequest = {
      sessionId: isJsonObject(session) ? (session['id'] as string) : undefined,
      server: elicitation['server'] as string,
      mode,
      selection: read.view.selection,
      params,
    };
    if (!parts.pending.open(key, request)) refuse('a request with this source and event id is already pending');
    const summary: JsonObject = params !== undefined ? { request: cloneJson(parts.recordedParams(params)) } : { selection: read.view.selection };
    return { message: cloneJson(envelope), bytes: bytesOf(read.view), summary };
  }

  private acceptResult(envelope: JsonObject, event: JsonObject): Receipt {
    const { parts, validators, principal } = this.options;
    const elicitation = event['elicitation'] as JsonObject;
    const parent = event['parentEventId'];
    if (typeof parent !== 'string') refuse('a result needs parentEventId naming its request event');
    const key = pendingKey(event['source'] as string, parent);
    const request = parts.pending.find(key);
    if (request === undefined) refuse('no pending request has this source and parentEventId');
    const session = event['session'];
    if (!isJsonObject(session)) refuse('a result needs the session of its request');
    if (session['id'] !== request.sessionId) refuse('the result session differs from the request session');
    if (elicitation['server'] !== request.server) refuse('elicitation.server differs from the request');
    if (elicitation['mode'] !== request.mode) refuse('elicitation.mode differs from the request');

    const read = parts.readBody(elicitation['result'] as JsonObject | undefined);
    if (!read.ok) refuse(read.reason);
    const provenance: JsonObject = { kind: 'mcp', authenticatedSource: parts.authenticatedSource(principal, event) };
    let summary: JsonObject;
    if (read.view.selection === 'body') {
      if (request.params === undefined) refuse('a selected result body needs a selected request body to validate against');
      const result = parseBody(read.view, 'result');
      const invalid = validators.result(result);
      if (invalid !== undefined) refuse(`MCP result body: ${invalid}`);
      if (result['action'] !== elicitation['action']) refuse(`elicitation.action ${JSON.stringify(elicitation['action'])} differs from the body's action ${JSON.stringify(result['action'])}`);
      const formAccept = result['action'] === 'accept' && request.mode === 'form';
      if (!formAccept && result['content'] !== undefined) refuse('content is allowed only on an accepted form result');
      if (formAccept) {
        const problem = validators.submitted(request.params['requestedSchema'], result['content'] ?? {});
        if (problem !== undefined) refuse(`submitted content against the requested schema: ${problem}`);
      }
      summary = {
        request: cloneJson(parts.recordedParams(request.params)),
        result: cloneJson(parts.recordedResult(result, request.params)),
        provenance,
        externalCompletion: false,
      };
    } else {
      summary = { selection: { request: request.selection, result: read.view.selection }, bodyValidation: 'not-selected', provenance, externalCompletion: false };
    }
    parts.pending.settle(key);
    return { message: cloneJson(envelope), bytes: bytesOf(read.view), summary };
  }
}

function bytesOf(view: ItemView): string {
  return view.selection === 'body' ? view.bytes.toString('base64') : '';
}
