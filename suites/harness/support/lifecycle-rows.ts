// A small, clean lifecycle scenario file for the lifecycle model's self-tests, independent of the
// protocol's canonical files: one row of each kind the loader distinguishes (a held publish with an
// observation, uploads with a body reference, a stdio-only stray frame, an HTTP-only row with a
// reason, and an observation chain).

import { createHash } from 'node:crypto';

import type { JsonObject } from '../../../harness/protocol/json.ts';
import type { InterceptRequest, ObserveNotification } from '../../../harness/protocol/messages.ts';
import type { ChainScenario, LifecycleScenarioFile, LifecycleStep, StepScenario, UploadStep } from '../../../harness/lifecycle-adapters/scenario-types.ts';

export function toolBeforeRequest(id: string, items?: JsonObject[]): InterceptRequest {
  return {
    jsonrpc: '2.0',
    id,
    method: 'hooks/intercept',
    params: {
      protocolVersion: 'draft',
      event: {
        id,
        source: 'urn:ahp:selftest',
        type: 'tool.before',
        time: '2026-02-01T00:00:00Z',
        session: { id: 'selftest' },
        call: { id: 'call-1' },
        path: 'native',
        tool: { origin: 'native', name: 'task', kind: 'task', input: { value: 'original' } },
        ...(items ? { items } : {}),
      },
      capabilities: { effects: ['allow', 'deny', 'modify'], modify: { input: { replace: true, merge: true } } },
      state: { permission: 'none', candidate: null },
    },
  };
}

export function allowResponse(id: string, value = 'settled'): JsonObject {
  return {
    jsonrpc: '2.0',
    id,
    result: {
      protocolVersion: 'draft',
      effects: [{ type: 'modify', target: 'input', operation: 'replace', value: { value } }, { type: 'allow' }],
    },
  };
}

/** An upload step declaring the true size and digest of `bytes`, given as base64. */
export function uploadStep(ref: string, bytes: Buffer, extra: Partial<UploadStep> = {}): UploadStep {
  return { op: 'upload', subscription: 'body', ref, bodyBase64: bytes.toString('base64'), ...declared(bytes), ...extra } as UploadStep;
}

/** The same for a UTF-8 text `body`. */
export function textUploadStep(ref: string, text: string): UploadStep {
  return { op: 'upload', subscription: 'body', ref, body: text, ...declared(Buffer.from(text, 'utf8')) };
}

function declared(bytes: Buffer): { size: number; sha256: string } {
  return { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

const settledState = { decision: 'allow' as const, executed: true, input: { value: 'settled' }, messages: [] };

/** Send, hold, release, receive and accept request `a`: a plain publication. */
export const PUBLISH_STEPS: readonly LifecycleStep[] = [
  { op: 'send', key: 'a', slot: 'a' },
  { op: 'wait', key: 'a', count: 1 },
  { op: 'release', key: 'a' },
  { op: 'receive', slot: 'a' },
  { op: 'accept', key: 'a' },
];

export function heldPublishRow(id = 'held-publish'): StepScenario {
  const rid = `${id}:a`;
  return {
    id,
    requests: { a: toolBeforeRequest(rid) },
    responses: { a: allowResponse(rid) },
    steps: [...PUBLISH_STEPS, { op: 'observe', key: 'a', subscription: 'metadata' }],
    expected: {
      published: [rid],
      cancelled: [],
      ignored: [],
      states: { [rid]: settledState },
      observations: [{ eventId: rid, subscription: 'metadata', input: { value: 'settled' } }],
      uploadStatuses: [],
    },
  };
}

export const BINARY = Buffer.from([0, 1, 2, 254, 255]);
export const TEXT = 'plain text body';

export function uploadsRow(id = 'uploads'): StepScenario {
  const rid = `${id}:a`;
  const item = { id: 'item-1', kind: 'attachment', mediaType: 'application/octet-stream', selection: 'body', body: { ref: 'binary-alias' } };
  return {
    id,
    requests: { a: toolBeforeRequest(rid, [item]) },
    responses: { a: allowResponse(rid) },
    steps: [
      uploadStep('binary-alias', BINARY),
      textUploadStep('text-alias', TEXT),
      uploadStep('binary-alias', BINARY, {
        subscription: 'metadata',
        upload: { auth: { type: 'bearer', tokenEnv: 'AHP_INTEROP_UNAUTHORIZED_UPLOAD_TOKEN' }, timeoutMs: 5000, maxBytes: 1048576 },
      }),
      ...PUBLISH_STEPS,
    ],
    expected: { published: [rid], cancelled: [], ignored: [], states: { [rid]: settledState }, observations: [], uploadStatuses: [201, 201, 401] },
  };
}

export function strayFrameRow(id = 'stdio-stray'): StepScenario {
  const rid = `${id}:a`;
  return {
    id,
    requests: { a: toolBeforeRequest(rid) },
    responses: { a: allowResponse(rid) },
    steps: [
      { op: 'send', key: 'a', slot: 'a' },
      { op: 'wait', key: 'a', count: 1 },
      { op: 'emit', response: allowResponse(`unknown:${id}`, 'stale') },
      { op: 'release', key: 'a' },
      { op: 'receive', slot: 'a' },
      { op: 'accept', key: 'a' },
    ],
    expected: { published: [rid], cancelled: [], ignored: [`unsolicited:unknown:${id}`], states: { [rid]: settledState }, observations: [], uploadStatuses: [] },
    transports: ['stdio'],
  };
}

export function httpOnlyRow(id = 'two-pending'): StepScenario {
  const a = `${id}:a`;
  const b = `${id}:b`;
  return {
    id,
    requests: { a: toolBeforeRequest(a), b: toolBeforeRequest(b) },
    responses: { a: allowResponse(a), b: allowResponse(b) },
    steps: [
      { op: 'send', key: 'a', slot: 'a' },
      { op: 'send', key: 'b', slot: 'b' },
      { op: 'wait', key: 'b', count: 1 },
      { op: 'cancel', key: 'a' },
      { op: 'failOpen', key: 'a' },
      { op: 'release', key: 'a' },
      { op: 'release', key: 'b' },
      { op: 'receive', slot: 'a' },
      { op: 'receive', slot: 'b' },
      { op: 'accept', key: 'b' },
    ],
    expected: { published: [b], cancelled: [a], ignored: ['a'], states: { [b]: settledState }, observations: [], uploadStatuses: [] },
    transports: ['http'],
    inapplicableReason: 'two outstanding requests need HTTP',
  };
}

export function chainRow(id = 'chain-deny'): ChainScenario {
  const request = toolBeforeRequest(id, [{ id: `${id}:item`, kind: 'text', mediaType: 'text/plain', selection: 'metadata' }]);
  const deny: JsonObject = { jsonrpc: '2.0', id, result: { protocolVersion: 'draft', effects: [{ type: 'deny', reason: 'policy' }] } };
  const observation = (items: JsonObject[]): ObserveNotification => ({
    jsonrpc: '2.0',
    method: 'hooks/observe',
    params: { protocolVersion: 'draft', event: { ...request.params.event, items } },
  });
  const item = (request.params.event.items as JsonObject[])[0]!;
  return {
    id,
    requests: { a: request },
    responses: { a: deny },
    responseSequences: { a: [deny] },
    steps: [],
    expected: { called: [`${id}:a`], failures: [], observations: [`${id}:b`, `${id}:audit`], input: { value: 'original' } },
    chain: {
      subscriptions: [
        { id: `${id}:a`, backend: 'shared', mode: 'intercept', failurePolicy: 'fail-open', content: 'metadata' },
        { id: `${id}:b`, backend: 'b', mode: 'intercept', failurePolicy: 'fail-open', content: 'omit' },
        { id: `${id}:audit`, backend: 'shared', mode: 'observe', failurePolicy: 'fail-open', content: 'metadata' },
      ],
      interrupt: false,
      holdObservers: false,
    },
    chainProof: { requests: [request], observations: [observation([]), observation([item])] },
  };
}

export function sampleLifecycleFile(): LifecycleScenarioFile {
  return { version: 1, scenarios: [heldPublishRow(), uploadsRow(), strayFrameRow(), httpOnlyRow(), chainRow()] };
}
