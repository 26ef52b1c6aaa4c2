// The elicitation family's wire shapes as the self-tests of the reference adapter build them
// (ELICITATION-RULES §6): the F/A/U bodies, their exact bytes, and hooks/intercept envelopes for
// either binding. The harness's own case model lives in harness/families/elicitation/; this is only
// what the adapter's tests need to speak to it directly.

import type { ElicitationBinding } from '../../../harness/config/define-config.ts';
import type { UploadDescriptor } from '../../../harness/families/elicitation/case-types.ts';
import { eventOf, type Stage } from '../../../harness/families/elicitation/envelopes.ts';
import { acceptResult, bodyOctets, descriptorOf, formRequest, urlRequest } from '../../../harness/families/elicitation/payloads.ts';
import type { JsonObject } from '../../../harness/protocol/json.ts';
import { sha256Hex } from '../../../harness/protocol/sha256-hex.ts';

// The F/A/U bodies, their octets and descriptors are the case model's own (payloads.ts), so the
// adapter's self-tests speak exactly what the generated cases do.
export type Binding = ElicitationBinding;
export type { Stage };
export type Selection = 'body' | 'metadata' | 'omit';
export type Descriptor = UploadDescriptor;

export const FORM_REQUEST: JsonObject = formRequest();
export const FORM_ACCEPT: JsonObject = acceptResult();
export const URL_REQUEST: JsonObject = urlRequest();

/** UTF-8 JSON with a one-space indent and a trailing newline. */
export const bodyBytes = bodyOctets;
export const sha256 = (bytes: Buffer): string => sha256Hex(bytes);
export { descriptorOf, eventOf };

export interface EnvelopeSpec {
  binding: Binding;
  stage: Stage;
  /** Case name: event ids are `<name>:<stage>`, the session id is the name. */
  name: string;
  selection?: Selection;
  /** Upload binding, body selection: the descriptor. */
  body?: Descriptor;
  /** Inline binding, body selection: the text. */
  text?: string;
  mode?: 'form' | 'url';
  action?: 'accept' | 'decline' | 'cancel';
  /** Default `{effects: []}`; the event's mode is granted besides unless these name `elicitation` themselves. */
  capabilities?: JsonObject;
}

export function envelope(spec: EnvelopeSpec): JsonObject {
  const { binding, stage, name } = spec;
  const selection = spec.selection ?? 'body';
  const id = `${name}:${stage}`;
  const elicitation: JsonObject = { server: 'asserted-not-authenticated', mode: spec.mode ?? 'form' };
  if (stage === 'result') elicitation['action'] = spec.action ?? 'accept';
  if (selection !== 'omit') {
    const item: JsonObject =
      binding === 'upload'
        ? { id: `${id}:item`, kind: `elicitation.${stage}`, mediaType: 'application/json', selection }
        : { id: `${id}:item`, kind: 'text', mediaType: 'text/plain', selection };
    if (selection === 'body' && spec.body !== undefined) item['body'] = { ...spec.body };
    if (selection === 'body' && spec.text !== undefined) item['text'] = spec.text;
    elicitation[stage] = item;
  }
  const event: JsonObject = {
    id,
    source: 'urn:spoofed:human',
    time: '2026-09-15T12:00:00Z',
    type: `user.elicitation.${stage}`,
    session: { id: name },
    elicitation,
  };
  if (stage === 'result') event['parentEventId'] = `${name}:request`;
  const given = spec.capabilities ?? { effects: [] };
  // Absent modes are unsupported (interaction-payloads.md): the mode is granted unless a test says otherwise.
  const capabilities = 'elicitation' in given ? given : { ...given, elicitation: { [spec.mode ?? 'form']: {} } };
  return { jsonrpc: '2.0', id, method: 'hooks/intercept', params: { protocolVersion: 'draft', event, capabilities } };
}


/** The `request`/`result` item inside an envelope, for mutations. */
export function itemOf(message: JsonObject, stage: Stage): JsonObject {
  return (eventOf(message)['elicitation'] as JsonObject)[stage] as JsonObject;
}

/** The answer every accepted intercept gets. */
export function acceptedResponse(id: string): JsonObject {
  return { jsonrpc: '2.0', id, result: { protocolVersion: 'draft', effects: [] } };
}
