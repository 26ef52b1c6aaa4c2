// The `hooks/intercept` envelopes of one case (rules §6), in either binding: the event, its
// `elicitation` metadata, and the body item — an `elicitation.<stage>` JSON item whose `body` names an
// upload (upload binding), or a text part whose `text` is the body's JSON (inline binding, §14). Then
// the case's mutations, applied after building, so a mutation changes exactly one thing.

import { isJsonObject, type JsonObject, type JsonValue } from '../../protocol/json.ts';
import type { ElicitationBinding, Selection } from './case-types.ts';
import { bodyOctets, descriptorOf, ZERO_DIGEST } from './payloads.ts';

export type Stage = 'request' | 'result';

/** The rules' mutations (§6) plus the inline binding's two analogues of the upload-only ones (§14). */
export const MUTATIONS = [
  'request-mode',
  'result-action',
  'result-server',
  'missing-parent',
  'wrong-parent',
  'wrong-source',
  'wrong-session',
  'missing-session',
  'request-gap',
  'result-gap',
  'bad-digest',
  'missing-upload',
  'text-not-json',
  'legacy-body-ref',
] as const;
export type Mutation = (typeof MUTATIONS)[number];

export const EVENT_SOURCE = 'urn:spoofed:human';
export const EVENT_SERVER = 'asserted-not-authenticated';
export const EVENT_TIME = '2026-09-15T12:00:00Z';

export interface EnvelopeInput {
  /** The case name: event ids are `<name>:<stage>`, the session id is the name. */
  name: string;
  binding: ElicitationBinding;
  selection: Selection;
  request: JsonValue;
  result: JsonValue;
  mutations: readonly Mutation[];
  /** Capabilities per boundary (default `{effects:[]}`); the atomic rows grant effects here. */
  capabilities?: Partial<Record<Stage, JsonObject>>;
}

export function eventId(name: string, stage: Stage): string {
  return `${name}:${stage}`;
}

/** The local name an upload-binding body is uploaded under before the receiver assigns a ref. */
export function bodyAlias(name: string, stage: Stage): string {
  return `${name}:${stage}`;
}

function metadataMode(request: JsonValue): 'form' | 'url' {
  const mode = isJsonObject(request) ? request.mode : undefined;
  return mode === 'url' ? 'url' : 'form';
}

function metadataAction(result: JsonValue): string {
  const action = isJsonObject(result) ? result.action : undefined;
  return action === 'accept' || action === 'decline' || action === 'cancel' ? action : 'accept';
}

function bodyItem(input: EnvelopeInput, stage: Stage): JsonObject | undefined {
  if (input.selection === 'omit') return undefined;
  const id = `${eventId(input.name, stage)}:item`;
  const body = input[stage];
  if (input.binding === 'inline') {
    const part: JsonObject = { id, kind: 'text', mediaType: 'text/plain', selection: input.selection };
    if (input.selection === 'body') part.text = bodyOctets(body).toString('utf8');
    return part;
  }
  const item: JsonObject = { id, kind: `elicitation.${stage}`, mediaType: 'application/json', selection: input.selection };
  if (input.selection === 'body') item.body = { ...descriptorOf(bodyAlias(input.name, stage), bodyOctets(body)) };
  return item;
}

/**
 * The boundary's capabilities plus the grant of the mode the event is in. The spec makes per-request
 * mode validation need the advertised mode ("absent modes are unsupported", interaction-payloads.md),
 * so a receiver or atomic helper that enforces it would refuse a request without one; one that does
 * not (the protocol's runner sends `{effects:[]}`) ignores the extra field, as the spec asks for
 * unknown capability fields. Either way the row's outcome is the one the case names.
 */
function withModeGrant(capabilities: JsonObject, mode: 'form' | 'url'): JsonObject {
  return { ...capabilities, elicitation: { [mode]: {} } };
}

function buildOne(input: EnvelopeInput, stage: Stage): JsonObject {
  const elicitation: JsonObject = { server: EVENT_SERVER, mode: metadataMode(input.request) };
  const item = bodyItem(input, stage);
  if (item !== undefined) elicitation[stage] = item;
  if (stage === 'result') elicitation.action = metadataAction(input.result);
  const event: JsonObject = {
    id: eventId(input.name, stage),
    source: EVENT_SOURCE,
    time: EVENT_TIME,
    type: `user.elicitation.${stage}`,
    session: { id: input.name },
  };
  if (stage === 'result') event.parentEventId = eventId(input.name, 'request');
  event.elicitation = elicitation;
  return {
    jsonrpc: '2.0',
    id: eventId(input.name, stage),
    method: 'hooks/intercept',
    params: { protocolVersion: 'draft', event, capabilities: withModeGrant(input.capabilities?.[stage] ?? { effects: [] }, metadataMode(input.request)) },
  };
}

/** The event object of an envelope this module built. */
export function eventOf(envelope: JsonObject): JsonObject {
  return (envelope.params as JsonObject).event as JsonObject;
}

function elicitationOf(envelope: JsonObject): JsonObject {
  return eventOf(envelope).elicitation as JsonObject;
}

function itemOf(envelope: JsonObject, stage: Stage): JsonObject {
  return elicitationOf(envelope)[stage] as JsonObject;
}

function applyMutation(mutation: Mutation, input: EnvelopeInput, envelopes: Record<Stage, JsonObject>): void {
  const resultEvent = eventOf(envelopes.result);
  switch (mutation) {
    case 'request-mode':
      elicitationOf(envelopes.request).mode = 'url';
      return;
    case 'result-action':
      elicitationOf(envelopes.result).action = 'cancel';
      return;
    case 'result-server':
      elicitationOf(envelopes.result).server = 'another-server';
      return;
    case 'missing-parent':
      delete resultEvent.parentEventId;
      return;
    case 'wrong-parent':
      resultEvent.parentEventId = 'unrelated-request';
      return;
    case 'wrong-source':
      resultEvent.source = 'urn:unrelated:source';
      return;
    case 'wrong-session':
      resultEvent.session = { id: 'unrelated-session' };
      return;
    case 'missing-session':
      delete resultEvent.session;
      return;
    case 'request-gap':
    case 'result-gap': {
      const item = itemOf(envelopes[mutation === 'request-gap' ? 'request' : 'result'], mutation === 'request-gap' ? 'request' : 'result');
      delete item.body;
      delete item.text;
      item.gap = { reason: 'Unavailable selected body' };
      return;
    }
    case 'bad-digest': {
      const body = itemOf(envelopes.request, 'request').body;
      if (isJsonObject(body)) body.sha256 = ZERO_DIGEST;
      return;
    }
    case 'missing-upload':
      // Not an envelope change: the case's steps leave out the request upload (wire-cases.ts).
      return;
    case 'text-not-json':
      itemOf(envelopes.request, 'request').text = '{"mode": "form", "message": unquoted prompt}\n';
      return;
    case 'legacy-body-ref': {
      const item = itemOf(envelopes.request, 'request');
      delete item.text;
      item.body = { ref: bodyAlias(input.name, 'request') };
      return;
    }
  }
}

/** Both envelopes of a case, mutated as the case says. */
export function buildEnvelopes(input: EnvelopeInput): Record<Stage, JsonObject> {
  const envelopes = { request: buildOne(input, 'request'), result: buildOne(input, 'result') };
  for (const mutation of input.mutations) applyMutation(mutation, input, envelopes);
  return envelopes;
}

/** Rewrites the session id of an envelope (the concurrent scenario shares one session). */
export function withSession(envelope: JsonObject, sessionId: string): JsonObject {
  const copy = structuredClone(envelope);
  eventOf(copy).session = { id: sessionId };
  return copy;
}
