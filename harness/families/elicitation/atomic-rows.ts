// The atomic helper's 16 rows (rules §7.2): each row's exact helper input (§5: both envelopes, the
// local uploads, the effects) and its expected outcome, computed by the atomic model rather than typed
// in. The granted boundary carries the grants; a result-phase row's request keeps no effects.

import type { JsonObject } from '../../protocol/json.ts';
import type { AtomicBoundary, AtomicInput, AtomicRow, ElicitationBinding, Selection } from './case-types.ts';
import { stageAtomicEffects } from './atomic-model.ts';
import { bodyAlias, buildEnvelopes } from './envelopes.ts';
import { acceptResult, bodyOctets, formRequest, returnedResult, toBase64, urlRequest } from './payloads.ts';

interface AtomicSpec {
  name: string;
  proves: string;
  boundary: AtomicBoundary;
  grants: string[];
  effects: JsonObject[];
  ops?: { replace: boolean; merge: boolean };
  selection?: Selection;
  url?: boolean;
}

const S = returnedResult;
const ret = (value: JsonObject): JsonObject => ({ type: 'return', value });
const deny = (reason: string): JsonObject => ({ type: 'deny', reason });
const modify = (operation: 'replace' | 'merge', value: JsonObject): JsonObject => ({ type: 'modify', target: 'content', operation, value });
const R = (): JsonObject => modify('replace', { answer: 'staged', tags: ['a'] });

const SPECS: AtomicSpec[] = [
  { name: 'before-return', proves: 'a granted return before the request publishes exactly the returned result', boundary: 'request', grants: ['return'], effects: [ret(S())] },
  { name: 'before-deny', proves: 'a granted deny before the request publishes a decline', boundary: 'request', grants: ['deny'], effects: [deny('Policy')] },
  {
    name: 'result-replace',
    proves: 'modify(content) replace swaps the whole answer (undeclared fields go) and keeps action and _meta',
    boundary: 'result',
    grants: ['modify'],
    effects: [modify('replace', { answer: 'modified', tags: ['b'] })],
  },
  { name: 'result-merge', proves: 'modify(content) merge replaces only the named fields', boundary: 'result', grants: ['modify'], effects: [modify('merge', { answer: 'merged' })] },
  {
    name: 'invalid-second-effect-rollback',
    proves: 'a later effect that makes the answer invalid rejects the whole list, the valid first one included',
    boundary: 'result',
    grants: ['modify'],
    effects: [R(), modify('merge', { answer: 9 })],
  },
  { name: 'ungranted-second-effect-rollback', proves: 'an ungranted later effect rejects the whole list', boundary: 'result', grants: ['modify'], effects: [R(), deny('Not granted')] },
  { name: 'invalid-returned-form', proves: 'a returned form answer that fails the requested schema is rejected', boundary: 'request', grants: ['return'], effects: [ret({ action: 'accept', content: {} })] },
  { name: 'ungranted-return', proves: 'an ungranted return is rejected', boundary: 'request', grants: [], effects: [ret(S())] },
  { name: 'ungranted-deny', proves: 'an ungranted deny is rejected', boundary: 'request', grants: [], effects: [deny('Policy')] },
  { name: 'conflicting-terminal-effects', proves: 'return and deny together are rejected', boundary: 'request', grants: ['return', 'deny'], effects: [ret(S()), deny('Policy')] },
  { name: 'operation-not-granted', proves: 'a modify operation its grant disables is rejected', boundary: 'result', grants: ['modify'], effects: [R()], ops: { replace: false, merge: true } },
  { name: 'metadata-cannot-execute', proves: 'a metadata view cannot execute a return', boundary: 'request', grants: ['return'], effects: [ret(S())], selection: 'metadata' },
  { name: 'omit-cannot-execute', proves: 'an omitted body cannot execute a deny', boundary: 'request', grants: ['deny'], effects: [deny('Policy')], selection: 'omit' },
  { name: 'url-return', proves: 'a URL request may be answered by a returned accept without content', boundary: 'request', grants: ['return'], effects: [ret({ action: 'accept' })], url: true },
  { name: 'url-return-content-rejected', proves: 'a returned URL accept with content is rejected', boundary: 'request', grants: ['return'], effects: [ret({ action: 'accept', content: {} })], url: true },
  { name: 'url-deny', proves: 'a granted deny before a URL request publishes a decline', boundary: 'request', grants: ['deny'], effects: [deny('Policy')], url: true },
];

function capabilitiesOf(spec: AtomicSpec): JsonObject {
  const capabilities: JsonObject = { effects: spec.grants };
  if (spec.grants.includes('modify')) capabilities.modify = { content: spec.ops ?? { replace: true, merge: true } };
  return capabilities;
}

function buildRow(spec: AtomicSpec, binding: ElicitationBinding): AtomicRow {
  const name = `atomic-${spec.name}`;
  const selection = spec.selection ?? 'body';
  const request = spec.url ? urlRequest() : formRequest();
  const result = acceptResult();
  const capabilities = capabilitiesOf(spec);
  const envelopes = buildEnvelopes({ name, binding, selection, request, result, mutations: [], capabilities: { [spec.boundary]: capabilities } });
  const uploads =
    binding === 'inline' || selection !== 'body'
      ? []
      : [
          { ref: bodyAlias(name, 'request'), bytes: toBase64(bodyOctets(request)) },
          ...(spec.url ? [] : [{ ref: bodyAlias(name, 'result'), bytes: toBase64(bodyOctets(result)) }]),
        ];
  const input: AtomicInput = { op: 'apply', request: envelopes.request, result: spec.boundary === 'result' ? envelopes.result : null, uploads, effects: spec.effects };
  const outcome = stageAtomicEffects({ boundary: spec.boundary, selection, request, result, capabilities, effects: spec.effects });
  return {
    id: `atomic/${spec.name}`,
    name: spec.name,
    proves: spec.proves,
    boundary: spec.boundary,
    input,
    expected: outcome.accepted ? { accepted: true, result: outcome.result, effects: outcome.effects } : { accepted: false },
  };
}

export function atomicRows(binding: ElicitationBinding): AtomicRow[] {
  return SPECS.map((spec) => buildRow(spec, binding));
}
