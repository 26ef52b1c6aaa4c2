// The atomic helper's 16 published rows (ELICITATION-RULES §7.2) in either binding, with what each
// must publish (null: the whole list is rejected), for the reference adapter's self-tests.

import type { JsonObject } from '../../../harness/protocol/json.ts';
import { bodyBytes, envelope, FORM_ACCEPT, FORM_REQUEST, sha256, URL_REQUEST, type Binding, type Selection, type Stage } from './elicitation-wire.ts';

export interface AtomicRow {
  name: string;
  row: JsonObject;
  /** The result the helper must publish, or null for a rejected list. */
  expected: JsonObject | null;
  /** Effect types in the accepted provenance. */
  effectTypes: string[];
}

const RETURNED: JsonObject = { action: 'accept', content: { answer: 'returned by hook', tags: ['b'] }, _meta: { preserved: true } };
const STAGED_REPLACE: JsonObject = { type: 'modify', target: 'content', operation: 'replace', value: { answer: 'staged', tags: ['a'] } };
const ALL_OPS = { replace: true, merge: true };

interface RowSpec {
  name: string;
  boundary: Stage;
  grants: string[];
  effects: JsonObject[];
  expected: JsonObject | null;
  ops?: { replace: boolean; merge: boolean };
  selection?: Selection;
  request?: JsonObject;
  /** false: only the request body exists (the URL rows). */
  withResult?: boolean;
}

function capabilities(spec: RowSpec): JsonObject {
  const granted: JsonObject = { effects: spec.grants };
  if (spec.grants.includes('modify')) granted['modify'] = { content: spec.ops ?? ALL_OPS };
  return granted;
}

function buildRow(binding: Binding, spec: RowSpec): AtomicRow {
  const name = `atomic-${spec.name}`;
  const selection = spec.selection ?? 'body';
  const requestBody = spec.request ?? FORM_REQUEST;
  const mode = requestBody['mode'] === 'url' ? 'url' : 'form';
  const stageEnvelope = (stage: Stage, body: JsonObject, granted: JsonObject): JsonObject => {
    const bytes = bodyBytes(body);
    const local = `${name}:${stage}`;
    return envelope({
      binding,
      stage,
      name,
      mode,
      selection,
      capabilities: granted,
      ...(selection === 'body' ? (binding === 'upload' ? { body: { ref: local, size: bytes.length, sha256: sha256(bytes) } } : { text: bytes.toString('utf8') }) : {}),
    });
  };
  const granted = capabilities(spec);
  const request = stageEnvelope('request', requestBody, spec.boundary === 'request' ? granted : { effects: [] });
  const result = spec.boundary === 'result' ? stageEnvelope('result', FORM_ACCEPT, granted) : null;
  const uploads: JsonObject[] = [];
  if (binding === 'upload' && selection === 'body') {
    uploads.push({ ref: `${name}:request`, bytes: bodyBytes(requestBody).toString('base64') });
    if (spec.withResult !== false) uploads.push({ ref: `${name}:result`, bytes: bodyBytes(FORM_ACCEPT).toString('base64') });
  }
  return {
    name,
    row: { op: 'apply', request, result, uploads, effects: spec.effects },
    expected: spec.expected,
    effectTypes: spec.effects.map((effect) => effect['type'] as string),
  };
}

export function atomicRows(binding: Binding): AtomicRow[] {
  const specs: RowSpec[] = [
    { name: 'before-return', boundary: 'request', grants: ['return'], effects: [{ type: 'return', value: RETURNED }], expected: RETURNED },
    { name: 'before-deny', boundary: 'request', grants: ['deny'], effects: [{ type: 'deny', reason: 'Policy' }], expected: { action: 'decline' } },
    {
      name: 'result-replace',
      boundary: 'result',
      grants: ['modify'],
      effects: [{ type: 'modify', target: 'content', operation: 'replace', value: { answer: 'modified', tags: ['b'] } }],
      expected: { ...FORM_ACCEPT, content: { answer: 'modified', tags: ['b'] } },
    },
    {
      name: 'result-merge',
      boundary: 'result',
      grants: ['modify'],
      effects: [{ type: 'modify', target: 'content', operation: 'merge', value: { answer: 'merged' } }],
      expected: { ...FORM_ACCEPT, content: { ...(FORM_ACCEPT['content'] as JsonObject), answer: 'merged' } },
    },
    {
      name: 'invalid-second-effect-rollback',
      boundary: 'result',
      grants: ['modify'],
      effects: [STAGED_REPLACE, { type: 'modify', target: 'content', operation: 'merge', value: { answer: 9 } }],
      expected: null,
    },
    { name: 'ungranted-second-effect-rollback', boundary: 'result', grants: ['modify'], effects: [STAGED_REPLACE, { type: 'deny', reason: 'Not granted' }], expected: null },
    { name: 'invalid-returned-form', boundary: 'request', grants: ['return'], effects: [{ type: 'return', value: { action: 'accept', content: {} } }], expected: null },
    { name: 'ungranted-return', boundary: 'request', grants: [], effects: [{ type: 'return', value: RETURNED }], expected: null },
    { name: 'ungranted-deny', boundary: 'request', grants: [], effects: [{ type: 'deny', reason: 'Policy' }], expected: null },
    {
      name: 'conflicting-terminal-effects',
      boundary: 'request',
      grants: ['return', 'deny'],
      effects: [{ type: 'return', value: RETURNED }, { type: 'deny', reason: 'Policy' }],
      expected: null,
    },
    { name: 'operation-not-granted', boundary: 'result', grants: ['modify'], ops: { replace: false, merge: true }, effects: [STAGED_REPLACE], expected: null },
    { name: 'metadata-cannot-execute', boundary: 'request', grants: ['return'], selection: 'metadata', effects: [{ type: 'return', value: RETURNED }], expected: null },
    { name: 'omit-cannot-execute', boundary: 'request', grants: ['deny'], selection: 'omit', effects: [{ type: 'deny', reason: 'Policy' }], expected: null },
    { name: 'url-return', boundary: 'request', grants: ['return'], request: URL_REQUEST, withResult: false, effects: [{ type: 'return', value: { action: 'accept' } }], expected: { action: 'accept' } },
    {
      name: 'url-return-content-rejected',
      boundary: 'request',
      grants: ['return'],
      request: URL_REQUEST,
      withResult: false,
      effects: [{ type: 'return', value: { action: 'accept', content: {} } }],
      expected: null,
    },
    { name: 'url-deny', boundary: 'request', grants: ['deny'], request: URL_REQUEST, withResult: false, effects: [{ type: 'deny', reason: 'Policy' }], expected: { action: 'decline' } },
  ];
  return specs.map((spec) => buildRow(binding, spec));
}
