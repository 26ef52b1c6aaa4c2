// Self-tests of the semantic lint: for every rule a row that breaks it (and only it) is flagged at
// the right path under the right rule id, and the valid rows it was made from are not. Also: the
// rows a scenario file means to be invalid (schema-rejected rawNotify) are never flagged, and a
// retry of an unchanged event is not a second event.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, test } from 'vitest';

import { projectRoot } from '../../harness/config/load-config.ts';
import { cloneJson, type JsonObject } from '../../harness/protocol/json.ts';
import { lintSentMessage } from '../../harness/protocol/semantic-lint/message-rules.ts';
import { SEMANTIC_RULES, type SemanticRuleId } from '../../harness/protocol/semantic-lint/rules.ts';
import { formatSemanticProblem, lintScenarioFileSemantics } from '../../harness/protocol/semantic-lint/scenario-file-lint.ts';
import { toolBeforeRequest } from '../harness/support/lifecycle-rows.ts';

/** The self-test fixture host's request, with content items, an extension and every option block advertised. */
function request(id: string): JsonObject {
  const items: JsonObject[] = [
    { id: `${id}:message`, role: 'user', parts: [{ id: `${id}:text`, kind: 'text', mediaType: 'text/plain', selection: 'body', text: 'hello' }] },
    { id: `${id}:file`, kind: 'attachment', mediaType: 'image/png', selection: 'metadata', size: 3, sha256: '0'.repeat(64) },
  ];
  const message = cloneJson(toolBeforeRequest(id, items)) as unknown as JsonObject;
  const params = message.params as JsonObject;
  (params.event as JsonObject).extensions = { 'org.w3c.trace_context': { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } };
  params.capabilities = { effects: ['deny', 'modify', 'flow', 'inject'], modify: { input: { replace: true, merge: false } }, flow: { operations: ['stop'] }, inject: { context: { append: true, deliverAt: ['now'] } } };
  return message;
}

/** The event of `request(id)`, for notifications. */
function event(id: string): JsonObject {
  return (request(id).params as JsonObject).event as JsonObject;
}

function notification(ev: JsonObject): JsonObject {
  return { jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft', event: ev } };
}

const reply = (id: string): JsonObject => ({ jsonrpc: '2.0', id, result: { protocolVersion: 'draft', effects: [] } });

/** One file of each family's shape, all valid: two core rows, a chain row with its proof, a catalogue row. */
function validFile(): JsonObject {
  const chain = request('chain-row:a');
  const settled = cloneJson((chain.params as JsonObject).event as JsonObject);
  (settled.tool as JsonObject).input = { value: 'settled' };
  return {
    version: 1,
    scenarios: [
      { id: 'core-a', request: request('core-a'), response: reply('core-a'), expected: {} },
      // A negative core row breaks its response, not its request: the lint must not care.
      { id: 'core-b', request: request('core-b'), response: { jsonrpc: '1.0', id: 'wrong', result: 7 }, expectError: true },
      {
        id: 'chain-row',
        requests: { a: chain },
        responses: { a: reply('chain-row:a') },
        steps: [],
        chainProof: { requests: [cloneJson(chain), request('chain-row:a')], observations: [notification(settled)] },
      },
      {
        id: 'catalogue-row',
        steps: [
          { op: 'notify', message: notification(event('catalogue-row/one')) },
          // The same event again, unchanged: a retry, not a second event.
          { op: 'rawNotify', message: notification(event('catalogue-row/one')) },
          // Meant to be schema-invalid: never linted.
          { op: 'rawNotify', message: { jsonrpc: '1.0', id: 3, method: 'hooks/observe', params: {} } },
        ],
        expected: { deliveries: [{ accepted: true, errorKind: null }, { accepted: true, errorKind: null }, { accepted: false, errorKind: 'schema' }] },
        requests: {},
        responses: {},
      },
    ],
  };
}

type Rows = { scenarios: JsonObject[] };
const at = (file: JsonObject): Rows => file as unknown as Rows;
const params = (message: unknown): JsonObject => (message as JsonObject).params as JsonObject;
const eventOf = (message: unknown): JsonObject => params(message).event as JsonObject;
const caps = (message: unknown): JsonObject => params(message).capabilities as JsonObject;
const coreRequest = (file: JsonObject, i = 0): JsonObject => at(file).scenarios[i]!.request as JsonObject;
const chainProof = (file: JsonObject): JsonObject => at(file).scenarios[2]!.chainProof as JsonObject;
const catalogueMessage = (file: JsonObject, step: number): JsonObject => ((at(file).scenarios[3]!.steps as JsonObject[])[step]!.message as JsonObject);

interface BreakingCase {
  name: string;
  rule: SemanticRuleId;
  row: string;
  path: string;
  breakIt(file: JsonObject): void;
}

const CASES: BreakingCase[] = [
  { name: 'a request with jsonrpc "1.0"', rule: 'AHP-RPC-001', row: 'core-a', path: 'scenarios[0].request.jsonrpc', breakIt: (f) => void (coreRequest(f).jsonrpc = '1.0') },
  { name: 'an observation with a JSON-RPC id', rule: 'AHP-RPC-002', row: 'chain-row', path: 'scenarios[2].chainProof.observations[0].id', breakIt: (f) => void ((chainProof(f).observations as JsonObject[])[0]!.id = 'obs-1') },
  { name: 'an intercept sent with the observe method', rule: 'AHP-RPC-002', row: 'core-a', path: 'scenarios[0].request.method', breakIt: (f) => void (coreRequest(f).method = 'hooks/observe') },
  { name: 'a JSON-RPC id other than the event id', rule: 'events.md#jsonrpc-id-equals-event-id', row: 'core-a', path: 'scenarios[0].request.params.event.id', breakIt: (f) => void (coreRequest(f).id = 'core-a:rpc') },
  { name: 'a chain call whose JSON-RPC id differs from its event id', rule: 'events.md#jsonrpc-id-equals-event-id', row: 'chain-row', path: 'scenarios[2].chainProof.requests[1].params.event.id', breakIt: (f) => void ((chainProof(f).requests as JsonObject[])[1]!.id = 'chain-row:rpc-a') },
  { name: 'an unknown snapshot identifier', rule: 'AHP-VER-001', row: 'core-a', path: 'scenarios[0].request.params.protocolVersion', breakIt: (f) => void (params(coreRequest(f)).protocolVersion = 'v1') },
  { name: 'two snapshots in one file', rule: 'AHP-VER-001', row: 'core-b', path: 'scenarios[1].request.params.protocolVersion', breakIt: (f) => void (params(coreRequest(f, 1)).protocolVersion = '2026-05-01') },
  { name: 'no capabilities.effects', rule: 'AHP-CAP-002', row: 'core-a', path: 'scenarios[0].request.params.capabilities.effects', breakIt: (f) => void delete caps(coreRequest(f)).effects },
  { name: 'modify advertised without its option block', rule: 'capability-auth.md#per-request-advertisements', row: 'core-a', path: 'scenarios[0].request.params.capabilities.modify', breakIt: (f) => void delete caps(coreRequest(f)).modify },
  { name: 'a flow block without the flow effect', rule: 'capability-auth.md#per-request-advertisements', row: 'core-a', path: 'scenarios[0].request.params.capabilities.flow', breakIt: (f) => void (caps(coreRequest(f)).effects = ['deny', 'modify', 'inject']) },
  { name: 'a modify target enabling neither operation', rule: 'capability-auth.md#per-request-advertisements', row: 'core-a', path: 'scenarios[0].request.params.capabilities.modify.input', breakIt: (f) => void (caps(coreRequest(f)).modify = { input: { replace: false, merge: false } }) },
  { name: 'no injection delivery choice', rule: 'capability-auth.md#per-request-advertisements', row: 'core-a', path: 'scenarios[0].request.params.capabilities.inject.context.deliverAt', breakIt: (f) => void (caps(coreRequest(f)).inject = { context: { append: true, deliverAt: [] } }) },
  { name: 'an unnamespaced experimental effect', rule: 'capabilities.md#experimental-effects', row: 'core-a', path: 'scenarios[0].request.params.capabilities.effects[4]', breakIt: (f) => void (caps(coreRequest(f)).effects as string[]).push('redact') },
  { name: 'a second, different event reusing an event id', rule: 'events.md#event-id-unique', row: 'catalogue-row', path: 'scenarios[3].steps[1].message.params.event.id', breakIt: (f) => void (eventOf(catalogueMessage(f, 1)).type = 'tool.after') },
  { name: 'a core row reusing another row\'s event id', rule: 'events.md#event-id-unique', row: 'core-b', path: 'scenarios[1].request.params.event.id', breakIt: (f) => {
    const r = coreRequest(f, 1);
    r.id = 'core-a';
    eventOf(r).id = 'core-a';
  } },
  { name: 'a chain observation of another event', rule: 'observation-disposition.md#same-logical-event', row: 'chain-row', path: 'scenarios[2].chainProof.observations[0].params.event.id', breakIt: (f) => void (eventOf((chainProof(f).observations as JsonObject[])[0]).id = 'chain-row:b') },
  { name: 'a chain call from another source', rule: 'observation-disposition.md#same-logical-event', row: 'chain-row', path: 'scenarios[2].chainProof.requests[0].params.event.source', breakIt: (f) => void (eventOf((chainProof(f).requests as JsonObject[])[0]).source = 'urn:example:other-host') },
  { name: 'a source with user info', rule: 'events.md#source-not-secret', row: 'core-a', path: 'scenarios[0].request.params.event.source', breakIt: (f) => void (eventOf(coreRequest(f)).source = 'https://agent:hunter2@host.example/runtime') },
  { name: 'a source with a token query parameter', rule: 'events.md#source-not-secret', row: 'core-a', path: 'scenarios[0].request.params.event.source', breakIt: (f) => void (eventOf(coreRequest(f)).source = 'https://host.example/runtime?access_token=abc') },
  { name: 'a source carrying a JWT', rule: 'events.md#source-not-secret', row: 'core-a', path: 'scenarios[0].request.params.event.source', breakIt: (f) => void (eventOf(coreRequest(f)).source = 'urn:host:eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln') },
  { name: 'an unnamespaced extension key', rule: 'AHP-EXT-001', row: 'core-a', path: 'scenarios[0].request.params.event.extensions.trace', breakIt: (f) => void (eventOf(coreRequest(f)).extensions = { trace: {} }) },
  { name: 'a JSON attachment', rule: 'AHP-CONTENT-002', row: 'core-a', path: 'scenarios[0].request.params.event.items[1].mediaType', breakIt: (f) => void ((eventOf(coreRequest(f)).items as JsonObject[])[1]!.mediaType = 'application/vnd.example+json') },
  { name: 'a text/* attachment in a notification', rule: 'AHP-CONTENT-002', row: 'catalogue-row', path: 'scenarios[3].steps[0].message.params.event.items[1].mediaType', breakIt: (f) => {
    for (const step of [0, 1]) ((eventOf(catalogueMessage(f, step)).items as JsonObject[])[1]!.mediaType = 'text/markdown');
  } },
  { name: 'a metadata-selected part carrying text', rule: 'content-upload.md#metadata-and-omit-selection', row: 'core-a', path: 'scenarios[0].request.params.event.items[0].parts[0].text', breakIt: (f) => {
    const part = ((eventOf(coreRequest(f)).items as JsonObject[])[0]!.parts as JsonObject[])[0]!;
    part.selection = 'metadata';
  } },
];

const lint = (file: JsonObject) => lintScenarioFileSemantics(file, 'lint-self-test.json');

describe('semantic lint', () => {
  test('the valid rows of every family are clean', () => {
    expect(lint(validFile()).map(formatSemanticProblem)).toEqual([]);
  });

  test.each(CASES.map((c) => [c.name, c] as const))('flags %s', (_name, c) => {
    const file = validFile();
    c.breakIt(file);
    const problems = lint(file);
    expect(problems.map((p) => p.rule), problems.map(formatSemanticProblem).join('\n')).toEqual(problems.map(() => c.rule));
    expect(problems.map((p) => ({ file: p.file, row: p.row, path: p.path }))).toContainEqual({ file: 'lint-self-test.json', row: c.row, path: c.path });
  });

  test('every rule of the table has a breaking case', () => {
    expect(new Set(CASES.map((c) => c.rule))).toEqual(new Set(Object.values(SEMANTIC_RULES).map((r) => r.id)));
  });

  test('a rawNotify the receiver must reject for lineage may reuse an id, and frees it for later', () => {
    const file = validFile();
    const row = at(file).scenarios[3]!;
    const reused = notification({ ...event('catalogue-row/one'), type: 'tool.after' });
    (row.steps as JsonObject[]).splice(2, 0, { op: 'rawNotify', message: reused });
    (row.expected as { deliveries: JsonObject[] }).deliveries.splice(2, 0, { accepted: false, errorKind: 'lineage' });
    expect(lint(file)).toEqual([]);
    // Identity is what it tests, nothing else: the other rules still apply to it.
    eventOf(reused).extensions = { trace: {} };
    expect(lint(file).map((p) => p.rule)).toEqual(['AHP-EXT-001']);
  });

  test('a problem names file, row, JSON path and rule in one line', () => {
    const file = validFile();
    coreRequest(file).id = 'core-a:rpc';
    expect(lint(file).map(formatSemanticProblem)).toEqual([
      'lint-self-test.json › core-a › scenarios[0].request.params.event.id: [events.md#jsonrpc-id-equals-event-id] expected the request\'s JSON-RPC id "core-a:rpc", got "core-a"',
    ]);
  });

  test('lintSentMessage judges one message with paths relative to it (what the reference adapter calls)', () => {
    const message = request('one');
    expect(lintSentMessage(message, 'intercept')).toEqual([]);
    message.id = 'two';
    expect(lintSentMessage(message, 'intercept')).toEqual([{ path: 'params.event.id', rule: 'events.md#jsonrpc-id-equals-event-id', message: 'expected the request\'s JSON-RPC id "two", got "one"' }]);
    expect(lintSentMessage([message], 'intercept').map((p) => p.rule)).toEqual(['AHP-RPC-001']);
  });

  test('the contract doc\'s rule table lists every rule with its source', () => {
    const readme = readFileSync(path.join(projectRoot(), 'docs', 'contract.md'), 'utf8');
    for (const rule of Object.values(SEMANTIC_RULES)) expect(readme, rule.id).toContain(`| \`${rule.id}\` | ${rule.source} |`);
  });
});
