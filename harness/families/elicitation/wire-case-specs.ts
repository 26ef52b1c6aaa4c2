// The wire cases of rules §7.1 as data: each case's bodies, selection, mutations, what it proves and
// what the rules say rejects it. Statuses and receipts are not here: the receiver model derives them
// (model-steps.ts). In the inline binding the two upload-only cases give way to the analogues of §14.

import type { JsonObject } from '../../protocol/json.ts';
import type { ElicitationBinding, RejectionGround, Selection } from './case-types.ts';
import type { Mutation } from './envelopes.ts';
import { acceptResult, edited, formRequest, urlRequest } from './payloads.ts';

export interface WireCaseSpec {
  id: string;
  proves: string;
  selection: Selection;
  rejectedBy: RejectionGround | null;
  request: JsonObject;
  result: JsonObject;
  mutations: Mutation[];
  /** A case of ours, beyond the protocol runner's 56 (tagged `ours`). */
  ours?: true;
}

const F = formRequest;
const A = acceptResult;
const U = urlRequest;

function without(value: JsonObject, key: string): JsonObject {
  return edited(value, (copy) => {
    delete copy[key];
  });
}

function withFormProperty(name: string, schema: JsonObject, request: JsonObject = F()): JsonObject {
  return edited(request, (copy) => {
    ((copy.requestedSchema as JsonObject).properties as JsonObject)[name] = schema;
  });
}

function spec(id: string, proves: string, rejectedBy: RejectionGround | null, request: JsonObject, result: JsonObject, mutations: Mutation[] = [], selection: Selection = 'body'): WireCaseSpec {
  return { id, proves, selection, rejectedBy, request, result, mutations };
}

const CORRELATION: { suffix: string; mutation: Mutation; what: string }[] = [
  { suffix: 'missing-parent', mutation: 'missing-parent', what: 'a result without parentEventId' },
  { suffix: 'wrong-parent', mutation: 'wrong-parent', what: 'a result whose parentEventId names no pending request' },
  { suffix: 'wrong-source', mutation: 'wrong-source', what: 'a result from another event source' },
  { suffix: 'wrong-session', mutation: 'wrong-session', what: 'a result in another session' },
  { suffix: 'missing-session', mutation: 'missing-session', what: 'a result without a session' },
];

const SECRET_PROMPT = 'SECRET-SELECTED-ELICITATION-PROMPT';
const SECRET_ANSWER = 'SECRET-SELECTED-ELICITATION-ANSWER';

function unselectedBodies(mode: 'form' | 'url'): { request: JsonObject; result: JsonObject } {
  const request = edited(mode === 'form' ? F() : U(), (copy) => {
    copy.message = SECRET_PROMPT;
  });
  const result: JsonObject = { action: 'accept', _meta: { private: SECRET_ANSWER } };
  if (mode === 'form') result.content = { answer: SECRET_ANSWER };
  return { request, result };
}

function uploadOnlyCases(binding: ElicitationBinding): WireCaseSpec[] {
  if (binding === 'upload') {
    return [
      spec('request-not-preuploaded', 'a request whose body was never uploaded is refused (its ref stays the unknown local alias)', 'unknown-ref', F(), A(), ['missing-upload']),
      spec('request-digest-mismatch', 'a request whose declared sha256 differs from the stored bytes is refused (the digest is not repaired)', 'digest-mismatch', F(), A(), ['bad-digest']),
    ];
  }
  return [
    spec('request-text-not-json', 'a selected text part whose text is not JSON is refused', 'text-not-json', F(), A(), ['text-not-json']),
    spec('request-legacy-body-ref', 'a text part carrying the legacy body:{ref} instead of text is refused', 'legacy-ref-on-text-part', F(), A(), ['legacy-body-ref']),
  ];
}

/** The rules' 56 wire cases, in transmission order, with ours (`ours: true`) beside the ones they complete. */
export function wireCaseSpecs(binding: ElicitationBinding): WireCaseSpec[] {
  const defaultDeclined = withFormProperty('answer', { type: 'string', default: 'unchanged default' });
  const annotated = edited(withFormProperty('amount', { type: 'integer', default: 1.25 }, defaultDeclined), (copy) => {
    const properties = (copy.requestedSchema as JsonObject).properties as JsonObject;
    (properties.tags as JsonObject).default = ['not-in-enum'];
  });
  return [
    spec('form-accept-selected-complete-bytes', 'a form request and its accepted result arrive as complete MCP bodies, received and recorded byte for byte', null, F(), A()),
    spec('form-default-mode', 'a form request without `mode` is form mode, and the receipt keeps it without injecting one', null, without(F(), 'mode'), A()),
    spec('form-decline', 'a declined form result is accepted', null, F(), { action: 'decline' }),
    spec('form-cancel', 'a cancelled form result is accepted', null, F(), { action: 'cancel' }),
    spec('url-decline', 'a declined URL result is accepted', null, U(), { action: 'decline' }),
    spec('url-cancel', 'a cancelled URL result is accepted', null, U(), { action: 'cancel' }),
    spec('url-accept-not-completion', 'an accepted URL result is consent, not completion (externalCompletion stays false)', null, U(), { action: 'accept', _meta: { keep: true } }),
    spec('form-missing-message', 'a form request without `message` fails the MCP request schema', 'mcp-request-schema', without(F(), 'message'), A()),
    spec('form-missing-requestedSchema', 'a form request without `requestedSchema` fails the MCP request schema', 'mcp-request-schema', without(F(), 'requestedSchema'), A()),
    spec('url-missing-message', 'a URL request without `message` fails the MCP request schema', 'mcp-request-schema', without(U(), 'message'), { action: 'accept' }),
    spec('url-missing-url', 'a URL request without `url` fails the MCP request schema', 'mcp-request-schema', without(U(), 'url'), { action: 'accept' }),
    spec('url-missing-elicitationId', 'a URL request without `elicitationId` fails the MCP request schema', 'mcp-request-schema', without(U(), 'elicitationId'), { action: 'accept' }),
    spec(
      'renamed-requestedSchema',
      'a form request whose `requestedSchema` is renamed `schema` fails the MCP request schema',
      'mcp-request-schema',
      edited(F(), (copy) => {
        copy.schema = copy.requestedSchema as JsonObject;
        delete copy.requestedSchema;
      }),
      A(),
    ),
    spec('invalid-mode', 'a request body with an unknown mode fails the MCP request schema even when the metadata says form', 'mcp-request-schema', edited(F(), (copy) => void (copy.mode = 'arbitrary')), A()),
    spec('nonprimitive-form-schema', 'a requested schema with a nested object property is outside the closed primitive subset', 'requested-schema-subset', withFormProperty('nested', { type: 'object' }), A()),
    spec('bad-content-array', 'a result whose content is an array fails the MCP result schema', 'mcp-result-schema', F(), { action: 'accept', content: [] }),
    spec('bad-content-nested', 'a result with a nested object answer fails the MCP result schema', 'mcp-result-schema', F(), { action: 'accept', content: { nested: {} } }),
    spec('bad-content-null', 'a result with a null answer fails the MCP result schema', 'mcp-result-schema', F(), { action: 'accept', content: { answer: null } }),
    spec('bad-content-numeric-array', 'a result with a numeric array answer fails the MCP result schema', 'mcp-result-schema', F(), { action: 'accept', content: { tags: [1] } }),
    spec('bad-action', 'a result with an unknown action fails the MCP result schema', 'mcp-result-schema', F(), { action: 'approve' }),
    spec('decline-with-content', 'a declined result may not carry content', 'content-only-on-form-accept', F(), { action: 'decline', content: {} }),
    spec('cancel-with-content', 'a cancelled result may not carry content', 'content-only-on-form-accept', F(), { action: 'cancel', content: {} }),
    spec('url-content-forbidden', 'an accepted URL result may not carry content', 'content-only-on-form-accept', U(), { action: 'accept', content: {} }),
    spec('mode-metadata-mismatch', 'request metadata `mode` must equal the parsed mode', 'metadata-mode-mismatch', F(), A(), ['request-mode']),
    spec('action-metadata-mismatch', 'result metadata `action` must equal the parsed action', 'metadata-action-mismatch', F(), A(), ['result-action']),
    spec('server-metadata-mismatch', "a result's `server` must be its request's", 'server-mismatch', F(), A(), ['result-server']),
    ...uploadOnlyCases(binding),
    ...(['form', 'url'] as const).flatMap((mode) =>
      (['metadata', 'omit'] as const).map((selection) => {
        const bodies = unselectedBodies(mode);
        return spec(
          `${mode}-${selection}-no-upload`,
          `a ${mode} exchange with ${selection} selection uploads nothing and puts no prompt, answer or body bytes on the wire or in receipts`,
          null,
          bodies.request,
          bodies.result,
          [],
          selection,
        );
      }),
    ),
    spec('selected-request-gap-fails-closed', 'a selected request body replaced by a gap fails closed', 'selected-gap', F(), A(), ['request-gap']),
    spec('selected-result-gap-fails-closed', 'a selected result body replaced by a gap fails closed', 'selected-gap', F(), A(), ['result-gap']),
    spec('submitted-form-missing-required', 'accepted content without a required field fails the requested form schema', 'requested-form-schema', F(), { action: 'accept', content: {} }),
    spec('submitted-form-absent-required-content', 'an accept without content (read as {}) fails a form that requires a field', 'requested-form-schema', F(), { action: 'accept' }),
    spec('submitted-form-wrong-field-type', 'a field of the wrong type fails the requested form schema (nothing is coerced)', 'requested-form-schema', F(), { action: 'accept', content: { answer: 4 } }),
    spec('submitted-form-invalid-enum-selection', 'a multi-select value outside its enum fails the requested form schema', 'requested-form-schema', F(), { action: 'accept', content: { answer: 'yes', tags: ['unlisted'] } }),
    spec(
      'submitted-number-out-of-bounds',
      'a number above its maximum fails the requested form schema',
      'requested-form-schema',
      withFormProperty('amount', { type: 'number', minimum: 1, maximum: 10 }),
      { action: 'accept', content: { answer: 'yes', amount: 11 } },
    ),
    spec('submitted-form-default-not-applied', 'a form default is an annotation: the receipt holds the submitted answer, no default injected', null, defaultDeclined, { action: 'accept', content: { answer: 'explicit' } }),
    spec(
      'upstream-default-annotations-preserved',
      'defaults are kept verbatim and never validated as submitted data (a fractional integer default, an enum default outside its options)',
      null,
      annotated,
      { action: 'accept', content: { answer: 'explicit', amount: 2, tags: ['a'] } },
    ),
    {
      // Cases 40-41 answer every defaulted field, so a receiver that fills in defaults passes them;
      // here the defaulted field is left out and must stay out of the recorded result.
      ...spec(
        'submitted-form-default-not-injected',
        'an optional field left out of the answer stays out of the recorded result: its default is never injected',
        null,
        withFormProperty('tags', { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: ['b'] }),
        { action: 'accept', content: { answer: 'explicit' } },
      ),
      ours: true,
    },
    ...(['body', 'metadata', 'omit'] as const).flatMap((selection) =>
      CORRELATION.map(({ suffix, mutation, what }) =>
        spec(`correlation-${selection}-${suffix}`, `${what} is refused (${selection} selection), checked before any body is read`, 'correlation', F(), A(), [mutation], selection),
      ),
    ),
  ];
}

/** The two requests of the concurrent scenario (rules §7.3): distinct schemas, one shared session. */
export function concurrentBodies(): { a: { request: JsonObject; result: JsonObject }; b: { request: JsonObject; result: JsonObject } } {
  const countForm = edited(F(), (copy) => {
    copy.requestedSchema = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] };
  });
  return { a: { request: F(), result: A() }, b: { request: countForm, result: { action: 'accept', content: { count: 7 } } } };
}
