// The hooks/intercept envelope of a user.elicitation event, one JSON Schema per binding and stage.
// Our draft schemas' intercept-request covers only the events core and lifecycle send, and the
// upload binding's items are not draft content parts at all (ELICITATION-RULES §14), so the
// receiver checks elicitation envelopes against these instead: the JSON-RPC request, the event's
// identity fields, a closed `elicitation` object and a closed item per binding. A selected item
// carries exactly one of its body and a gap; metadata and omit items carry neither.

import { EVENT_TYPES, type ElicitationBinding, type Stage } from './binding.ts';

type Schema = Record<string, unknown>;

const TEXT: Schema = { type: 'string', minLength: 1 };
const GAP: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['reason'],
  properties: { reason: TEXT, path: TEXT },
};
const DESCRIPTOR: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['ref', 'size', 'sha256'],
  properties: { ref: TEXT, size: { type: 'integer', minimum: 0 }, sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
};

/** `body` selection needs the body member or a gap (never both); other selections need neither. */
function selectionRule(bodyKey: string): Schema {
  return {
    if: { properties: { selection: { const: 'body' } } },
    then: { oneOf: [{ required: [bodyKey], not: { required: ['gap'] } }, { required: ['gap'], not: { required: [bodyKey] } }] },
    else: { not: { anyOf: [{ required: [bodyKey] }, { required: ['gap'] }] } },
  };
}

function itemSchema(binding: ElicitationBinding, stage: Stage): Schema {
  const [kind, mediaType, bodyKey, body] =
    binding === 'upload' ? [`elicitation.${stage}`, 'application/json', 'body', DESCRIPTOR] : ['text', 'text/plain', 'text', { type: 'string' }];
  return {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'kind', 'mediaType', 'selection'],
    properties: {
      id: TEXT,
      kind: { const: kind },
      mediaType: { const: mediaType },
      selection: { enum: ['body', 'metadata', 'omit'] },
      [bodyKey]: body,
      gap: GAP,
    },
    ...selectionRule(bodyKey),
  };
}

function elicitationSchema(binding: ElicitationBinding, stage: Stage): Schema {
  const properties: Schema = { server: TEXT, mode: { enum: ['form', 'url'] }, [stage]: itemSchema(binding, stage) };
  const required = ['server', 'mode'];
  if (stage === 'result') {
    properties['action'] = { enum: ['accept', 'decline', 'cancel'] };
    required.push('action');
  }
  return { type: 'object', additionalProperties: false, required, properties };
}

const CAPABILITIES: Schema = {
  type: 'object',
  required: ['effects'],
  properties: {
    effects: { type: 'array', uniqueItems: true, items: { enum: ['deny', 'allow', 'ask', 'modify', 'message', 'return', 'flow', 'inject'] } },
    modify: { type: 'object' },
    elicitation: {
      type: 'object',
      additionalProperties: false,
      properties: { form: { type: 'object' }, url: { type: 'object' } },
    },
  },
};

/** The envelope schema of one stage's event in one binding (self-contained: no `$ref`). */
export function envelopeSchema(binding: ElicitationBinding, stage: Stage): Schema {
  const event: Schema = {
    type: 'object',
    required: ['id', 'source', 'time', 'type', 'elicitation'],
    properties: {
      id: TEXT,
      source: { type: 'string', format: 'uri' },
      time: { type: 'string', format: 'date-time' },
      type: { const: EVENT_TYPES[stage] },
      session: { type: 'object', required: ['id'], properties: { id: TEXT } },
      parentEventId: TEXT,
      elicitation: elicitationSchema(binding, stage),
    },
  };
  return {
    type: 'object',
    required: ['jsonrpc', 'id', 'method', 'params'],
    properties: {
      jsonrpc: { const: '2.0' },
      id: { anyOf: [TEXT, { type: 'integer' }] },
      method: { const: 'hooks/intercept' },
      params: {
        type: 'object',
        required: ['protocolVersion', 'event', 'capabilities'],
        properties: { protocolVersion: { const: 'draft' }, event, capabilities: CAPABILITIES },
      },
    },
  };
}
