// Differential audit of our draft schemas (schemas/) against the protocol's canonical schemas: every
// message below has an expected verdict, and both schema sets must give exactly that verdict.

import path from 'node:path';

import { describe, expect, test } from 'vitest';

import { PROJECT_ROOT, loadValidators } from '../../harness/protocol/load-validators.ts';
import { ENTRY_POINT_FILES, type EntryPoint } from '../../harness/protocol/validator-types.ts';
import { canonicalSchemaCandidate, canonicalSchemaDir } from '../../harness/protocol/canonical-schemas.ts';
import { bad, ok, type Case, type Json, type Obj } from './schema-corpus/case.ts';
import { catalogueEventCases } from './schema-corpus/catalogue-events.ts';
import { registrationCases } from './schema-corpus/registration.ts';

const OUR_SCHEMAS = path.join(PROJECT_ROOT, 'schemas');
const CANONICAL_SCHEMAS = canonicalSchemaCandidate();
const canonicalPresent = canonicalSchemaDir() !== undefined;

// ---------------------------------------------------------------------------------------------------
// Builders


const textPart = (id: string, text: string): Obj => ({ id, kind: 'text', mediaType: 'text/plain', selection: 'body', text });
const message = (id: string, role: string, text: string): Obj => ({ id, role, parts: [textPart(`${id}-p1`, text)] });

const toolEvent = (extra: Obj = {}): Obj => ({
  id: 'evt-tool-1',
  source: 'https://agent.example/hosts/1',
  type: 'tool.before',
  time: '2025-06-01T12:00:00Z',
  session: { id: 'sess-1', cwd: '/repo' },
  call: { id: 'call-1' },
  tool: { name: 'shell', input: { command: 'ls -la' }, origin: 'native' },
  path: 'shell',
  ...extra,
});

const toolCapabilities = (extra: Obj = {}): Obj => ({
  effects: ['deny', 'allow', 'ask', 'modify', 'inject', 'flow', 'return', 'message'],
  modify: { input: { replace: true, merge: true } },
  flow: { operations: ['stop'] },
  inject: { context: { append: true, deliverAt: ['now', 'next_turn'] } },
  ...extra,
});

const turnEvent = (extra: Obj = {}): Obj => ({
  id: 'evt-turn-1',
  source: 'https://agent.example/hosts/1',
  type: 'turn.finish.before',
  time: '2025-06-01T12:00:05.250Z',
  turn: { id: 'turn-1' },
  outcome: 'completed',
  continuationCount: 0,
  items: [message('msg-1', 'assistant', 'All done.')],
  ...extra,
});

const turnCapabilities = (extra: Obj = {}): Obj => ({
  effects: ['modify', 'flow', 'message'],
  modify: { response: { replace: true, merge: false } },
  flow: { operations: ['stop', 'continue'], remainingContinuations: 2, continuationCount: 0, maxContinuations: 2 },
  ...extra,
});

const interceptRequest = (event: Obj, capabilities: Obj, extraParams: Obj = {}, envelope: Obj = {}): Obj => ({
  jsonrpc: '2.0',
  id: String(event['id']),
  method: 'hooks/intercept',
  params: { protocolVersion: 'draft', event, capabilities, ...extraParams },
  ...envelope,
});

const toolRequest = (extraParams: Obj = {}, event: Obj = toolEvent(), capabilities: Obj = toolCapabilities()): Obj =>
  interceptRequest(event, capabilities, extraParams);

const response = (effects: Json[], extraResult: Obj = {}, envelope: Obj = {}): Obj => ({
  jsonrpc: '2.0',
  id: 'evt-tool-1',
  result: { protocolVersion: 'draft', effects, ...extraResult },
  ...envelope,
});

const manifest = (extra: Obj = {}): Obj => ({
  events: [
    { event: 'tool.before', modes: ['intercept', 'observe'], capabilities: toolCapabilities() },
    { event: 'turn.finish.before', modes: ['intercept'], capabilities: turnCapabilities() },
    { event: 'tool.after', modes: ['observe'] },
  ],
  gaps: [{ path: 'limits.maxUploadBytes', reason: 'uploads not supported' }],
  transports: ['http', 'stdio'],
  authentication: ['bearer'],
  toolPaths: ['shell', 'mcp/*'],
  contentCategories: ['reasoning'],
  limits: { maxContinuations: 2, minTimeoutMs: 100, maxTimeoutMs: 30000 },
  managedPolicy: { scopes: ['user', 'project'], disableable: true },
  correlationIdentityFields: ['session.id', 'turn.id'],
  ...extra,
});

const capabilitiesResponse = (manifestValue: Json, extraResult: Obj = {}): Obj => ({
  jsonrpc: '2.0',
  id: 7,
  result: { protocolVersion: 'draft', manifest: manifestValue, ...extraResult },
});

// ---------------------------------------------------------------------------------------------------
// The corpus


const deny: Obj = { type: 'deny', reason: 'blocked by policy' };

const corpus: Case[] = [
  // hooks/intercept requests ---------------------------------------------------------------------
  ok('interceptRequest', 'tool.before with tool input and full tool.before capabilities', toolRequest()),
  ok('interceptRequest', 'tool.before with integer JSON-RPC id and extra envelope member', {
    ...toolRequest(),
    id: 42,
    'x-trace': 'abc',
  }),
  ok('interceptRequest', 'state: permission allow, no candidate', toolRequest({ state: { permission: 'allow', candidate: null } })),
  ok(
    'interceptRequest',
    'state: candidate with provenance, flow, instructions, injections',
    toolRequest({
      state: {
        permission: 'ask',
        candidate: { value: { command: 'pwd' }, provenance: { hook: 'rewrite' } },
        flow: 'stop',
        instructions: ['keep going'],
        injections: [{ any: 'thing' }],
      },
    }),
  ),
  ok(
    'interceptRequest',
    'tool.before from an MCP server over http',
    toolRequest(
      {},
      toolEvent({
        tool: {
          name: 'search',
          input: { q: 'x' },
          origin: 'mcp',
          mcp: {
            server: { id: 'srv-1' },
            toolName: 'search',
            provenance: 'runtime',
            connection: { transport: 'http', url: 'https://mcp.example/rpc' },
          },
        },
      }),
    ),
  ),
  ok(
    'interceptRequest',
    'tool.before with content items (text metadata and attachment body)',
    toolRequest(
      {},
      toolEvent({
        items: [
          { id: 'i1', kind: 'text', mediaType: 'text/plain', selection: 'metadata', size: 12 },
          { id: 'i2', kind: 'attachment', mediaType: 'image/png', selection: 'body', body: { ref: 'blob-1' } },
        ],
      }),
    ),
  ),
  ok('interceptRequest', 'turn.finish.before with continuation capabilities', interceptRequest(turnEvent(), turnCapabilities())),
  ok(
    'interceptRequest',
    'turn.finish.before with only message effects',
    interceptRequest(turnEvent({ outcome: 'max_iterations', continuationCount: 3 }), { effects: ['message'] }),
  ),
  bad(
    'interceptRequest',
    'capabilities advertise continue at tool.before',
    toolRequest(
      {},
      toolEvent(),
      toolCapabilities({ flow: { operations: ['stop', 'continue'], remainingContinuations: 1, continuationCount: 0 } }),
    ),
  ),
  bad(
    'interceptRequest',
    'capabilities advertise modify output at tool.before',
    toolRequest({}, toolEvent(), toolCapabilities({ modify: { output: { replace: true, merge: false } } })),
  ),
  bad('interceptRequest', 'deny advertised at turn.finish.before', interceptRequest(turnEvent(), turnCapabilities({ effects: ['modify', 'flow', 'message', 'deny'] }))),
  bad(
    'interceptRequest',
    'continue without remainingContinuations',
    interceptRequest(turnEvent(), turnCapabilities({ flow: { operations: ['continue'], continuationCount: 0 } })),
  ),
  bad('interceptRequest', 'flow effect listed without flow block', toolRequest({}, toolEvent(), { effects: ['deny', 'flow'] })),
  bad('interceptRequest', 'flow block without flow effect', toolRequest({}, toolEvent(), { effects: ['deny'], flow: { operations: ['stop'] } })),
  bad('interceptRequest', 'modify block without modify effect', toolRequest({}, toolEvent(), { effects: ['deny'], modify: { input: { replace: true, merge: false } } })),
  bad('interceptRequest', 'modify target with neither operation', toolRequest({}, toolEvent(), toolCapabilities({ modify: { input: { replace: false, merge: false } } }))),
  bad(
    'interceptRequest',
    'inject deliverAt empty',
    toolRequest({}, toolEvent(), toolCapabilities({ inject: { context: { append: true, deliverAt: [] } } })),
  ),
  bad(
    'interceptRequest',
    'inject deliverAt duplicate entries',
    toolRequest({}, toolEvent(), toolCapabilities({ inject: { context: { append: true, deliverAt: ['now', 'now'] } } })),
  ),
  bad('interceptRequest', 'state permission outside the enum', toolRequest({ state: { permission: 'maybe', candidate: null } })),
  bad('interceptRequest', 'state without candidate', toolRequest({ state: { permission: 'none' } })),
  bad('interceptRequest', 'state with an empty instruction', toolRequest({ state: { permission: 'none', candidate: null, instructions: [''] } })),
  bad('interceptRequest', 'wrong protocolVersion', { ...toolRequest(), params: { ...(toolRequest()['params'] as Obj), protocolVersion: '2025-01' } }),
  bad('interceptRequest', 'wrong method', { ...toolRequest(), method: 'hooks/observe' }),
  bad('interceptRequest', 'tool.before without call', toolRequest({}, (({ call: _call, ...rest }) => rest)(toolEvent()))),
  bad('interceptRequest', 'tool.before carrying an outcome', toolRequest({}, toolEvent({ outcome: 'success' }))),
  bad('interceptRequest', 'MCP origin without mcp block', toolRequest({}, toolEvent({ tool: { name: 'search', input: {}, origin: 'mcp' } }))),
  bad('interceptRequest', 'event time is not a date-time', toolRequest({}, toolEvent({ time: 'yesterday' }))),
  bad('interceptRequest', 'turn.finish.before with an unknown outcome', interceptRequest(turnEvent({ outcome: 'done' }), turnCapabilities())),

  ok(
    'interceptRequest',
    'tool.before in a batch, open turn, MCP over stdio with a gap for args',
    toolRequest(
      {},
      toolEvent({
        turn: { id: 'turn-1', vendorField: true },
        batch: { id: 'b-1', callIds: ['call-1', 'call-2'] },
        tool: {
          name: 'fs_read',
          kind: 'read',
          input: {},
          origin: 'mcp',
          mcp: {
            server: { id: 'srv-2', name: 'files' },
            toolName: 'read',
            provenance: 'inferred',
            connection: { transport: 'stdio', command: 'mcp-files', cwd: '/srv', gaps: [{ path: 'args', reason: 'not exposed' }] },
          },
        },
      }),
    ),
  ),
  ok('interceptRequest', 'unknown capability members are ignored', toolRequest({}, toolEvent(), toolCapabilities({ futureThing: { on: true } }))),
  ok(
    'interceptRequest',
    'turn.finish.before with usage totals and last assistant item',
    interceptRequest(
      turnEvent({
        lastAssistantItem: { id: 'msg-1' },
        usage: { kind: 'total', scope: 'turn', completeness: 'partial', provenance: 'mixed', inputTokens: 10, cost: { amount: 0.5, currency: 'EUR', basis: 'estimated' } },
      }),
      turnCapabilities(),
    ),
  ),
  bad('interceptRequest', 'call with an extra member', toolRequest({}, toolEvent({ call: { id: 'call-1', attempt: 2 } }))),
  bad(
    'interceptRequest',
    'MCP http connection with neither url nor gap',
    toolRequest(
      {},
      toolEvent({
        tool: { name: 's', input: {}, origin: 'mcp', mcp: { server: { id: 's' }, toolName: 's', provenance: 'runtime', connection: { transport: 'http' } } },
      }),
    ),
  ),
  bad('interceptRequest', 'event extensions with a non-dotted key', toolRequest({}, toolEvent({ extensions: { plain: 1 } }))),
  bad('interceptRequest', 'turn usage with kind amount', interceptRequest(turnEvent({ usage: { kind: 'amount', scope: 'turn', completeness: 'complete', provenance: 'provider' } }), turnCapabilities())),
  bad('interceptRequest', 'turn items holding a bare text part', interceptRequest(turnEvent({ items: [textPart('p', 'x')] }), turnCapabilities())),
  bad('interceptRequest', 'text body part carrying a size', toolRequest({}, toolEvent({ items: [{ ...textPart('p', 'x'), size: 1 }] }))),
  bad('interceptRequest', 'JSON attachment', toolRequest({}, toolEvent({ items: [{ id: 'a', kind: 'attachment', mediaType: 'application/json', selection: 'omit' }] }))),
  bad('interceptRequest', 'extension effect advertised at tool.before', toolRequest({}, toolEvent(), toolCapabilities({ effects: ['deny', 'org.example.custom'] }))),
  bad('interceptRequest', 'modify advertised for an unknown target', toolRequest({}, toolEvent(), toolCapabilities({ modify: { input: { replace: true, merge: true }, foo: { replace: true, merge: true } } }))),
  bad('interceptRequest', 'modify advertised with no target', toolRequest({}, toolEvent(), toolCapabilities({ modify: {} }))),
  bad('interceptRequest', 'flow advertised with no operation', toolRequest({}, toolEvent(), toolCapabilities({ flow: { operations: [] } }))),
  bad('interceptRequest', 'elicitation capability that is not an object', toolRequest({}, toolEvent(), toolCapabilities({ elicitation: true }))),
  bad('interceptRequest', 'candidate without value', toolRequest({ state: { permission: 'none', candidate: { provenance: {} } } })),

  // hooks/intercept responses --------------------------------------------------------------------
  ok('interceptResponse', 'no effects', response([])),
  ok('interceptResponse', 'deny with code and extensions', response([{ ...deny, code: 'policy.shell', extensions: { 'org.example.rule': 7 } }])),
  ok('interceptResponse', 'allow', response([{ type: 'allow' }])),
  ok('interceptResponse', 'ask', response([{ type: 'ask' }])),
  ok('interceptResponse', 'modify input replace with an object', response([{ type: 'modify', target: 'input', operation: 'replace', value: { command: 'ls' } }])),
  ok(
    'interceptResponse',
    'modify response merge with messages',
    response([{ type: 'modify', target: 'response', operation: 'merge', value: [message('m2', 'assistant', 'Addendum')] }]),
  ),
  ok('interceptResponse', 'modify instructions with text parts', response([{ type: 'modify', target: 'instructions', operation: 'replace', value: [textPart('t1', 'Be brief.')] }])),
  ok('interceptResponse', 'modify content with an answer object', response([{ type: 'modify', target: 'content', operation: 'replace', value: { action: 'accept' } }])),
  ok('interceptResponse', 'message (empty text allowed)', response([{ type: 'message', text: '' }])),
  ok('interceptResponse', 'return with a null value', response([{ type: 'return', value: null }])),
  ok('interceptResponse', 'flow stop', response([{ type: 'flow', operation: 'stop', reason: 'enough' }])),
  ok('interceptResponse', 'flow continue with instruction', response([{ type: 'flow', operation: 'continue', instruction: 'run the tests' }])),
  ok('interceptResponse', 'flow continue without instruction', response([{ type: 'flow', operation: 'continue' }])),
  ok(
    'interceptResponse',
    'inject context next_turn',
    response([{ type: 'inject', target: 'context', operation: 'append', deliverAt: 'next_turn', value: [message('m3', 'user', 'Reminder')] }]),
  ),
  ok('interceptResponse', 'extra envelope and result members', response([deny], { 'vendor.note': 'x', extensions: { 'org.example.trace': 1 } }, { 'x-extra': true })),
  ok('interceptResponse', 'several effects in order', response([{ type: 'allow' }, { type: 'message', text: 'ok' }, { type: 'flow', operation: 'stop', reason: 'r' }])),
  bad('interceptResponse', 'deny without reason', response([{ type: 'deny' }])),
  bad('interceptResponse', 'deny with empty reason', response([{ type: 'deny', reason: '' }])),
  bad('interceptResponse', 'deny with an extra field', response([{ ...deny, severity: 'high' }])),
  bad('interceptResponse', 'deny code that is not dotted', response([{ ...deny, code: 'nodots' }])),
  bad('interceptResponse', 'allow with an extra field', response([{ type: 'allow', reason: 'fine' }])),
  bad('interceptResponse', 'modify without value', response([{ type: 'modify', target: 'input', operation: 'replace' }])),
  bad('interceptResponse', 'modify input with an array value', response([{ type: 'modify', target: 'input', operation: 'replace', value: ['ls'] }])),
  bad('interceptResponse', 'modify response with an object value', response([{ type: 'modify', target: 'response', operation: 'replace', value: { text: 'x' } }])),
  bad('interceptResponse', 'modify prompt with a malformed message', response([{ type: 'modify', target: 'prompt', operation: 'replace', value: [{ id: 'm', role: 'robot', parts: [] }] }])),
  bad('interceptResponse', 'modify summary with an attachment part', response([{ type: 'modify', target: 'summary', operation: 'replace', value: [{ id: 'a', kind: 'attachment', mediaType: 'image/png', selection: 'omit' }] }])),
  bad('interceptResponse', 'modify unknown target', response([{ type: 'modify', target: 'everything', operation: 'replace', value: {} }])),
  bad('interceptResponse', 'modify unknown operation', response([{ type: 'modify', target: 'input', operation: 'append', value: {} }])),
  bad('interceptResponse', 'message without text', response([{ type: 'message' }])),
  bad('interceptResponse', 'return without value', response([{ type: 'return' }])),
  bad('interceptResponse', 'flow stop without reason', response([{ type: 'flow', operation: 'stop' }])),
  bad('interceptResponse', 'flow stop with an instruction', response([{ type: 'flow', operation: 'stop', reason: 'r', instruction: 'i' }])),
  bad('interceptResponse', 'flow continue with a reason', response([{ type: 'flow', operation: 'continue', reason: 'r' }])),
  bad('interceptResponse', 'flow continue with empty instruction', response([{ type: 'flow', operation: 'continue', instruction: '' }])),
  bad('interceptResponse', 'flow unknown operation', response([{ type: 'flow', operation: 'pause', reason: 'r' }])),
  bad('interceptResponse', 'inject deliverAt outside the enum', response([{ type: 'inject', target: 'context', operation: 'append', deliverAt: 'later', value: [] }])),
  bad('interceptResponse', 'inject to another target', response([{ type: 'inject', target: 'prompt', operation: 'append', deliverAt: 'now', value: [] }])),
  bad('interceptResponse', 'inject a text part instead of a message', response([{ type: 'inject', target: 'context', operation: 'append', deliverAt: 'now', value: [textPart('t', 'x')] }])),
  bad('interceptResponse', 'unknown effect type', response([{ type: 'escalate' }])),
  bad('interceptResponse', 'extension-named effect type', response([{ type: 'org.example.custom' }])),
  bad('interceptResponse', 'effect that is a string', response(['deny'])),
  bad('interceptResponse', 'wrong protocolVersion', { ...response([]), result: { protocolVersion: '1.0', effects: [] } }),
  bad('interceptResponse', 'missing effects', { jsonrpc: '2.0', id: 'evt-tool-1', result: { protocolVersion: 'draft' } }),
  bad('interceptResponse', 'result carrying a manifest', response([], { manifest: manifest() })),
  bad('interceptResponse', 'error response', { jsonrpc: '2.0', id: 'evt-tool-1', error: { code: -32603, message: 'internal' } }),
  bad('interceptResponse', 'both result and error', response([], {}, { error: { code: 1, message: 'x' } })),
  bad('interceptResponse', 'wrong jsonrpc version', response([], {}, { jsonrpc: '1.0' })),
  bad('interceptResponse', 'empty string id', response([], {}, { id: '' })),

  // Single effects -------------------------------------------------------------------------------
  ok('effect', 'deny', deny),
  ok('effect', 'modify workspace merge', { type: 'modify', target: 'workspace', operation: 'merge', value: { a: 1 } }),
  bad('effect', 'null', null),
  bad('effect', 'no type', { reason: 'x' }),

  // Any JSON-RPC message ---------------------------------------------------------------------------
  ok('jsonRpcMessage', 'request', toolRequest()),
  ok('jsonRpcMessage', 'notification', { jsonrpc: '2.0', method: 'hooks/observe', params: {} }),
  ok('jsonRpcMessage', 'error response with null id and data', { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error', data: { at: 3 } } }),
  ok('jsonRpcMessage', 'success response', response([])),
  bad('jsonRpcMessage', 'request with null id', { jsonrpc: '2.0', id: null, method: 'x', params: {} }),
  bad('jsonRpcMessage', 'error without code', { jsonrpc: '2.0', id: 1, error: { message: 'x' } }),
  bad('jsonRpcMessage', 'message that is both a request and a response', { ...toolRequest(), result: {} }),
  bad('jsonRpcMessage', 'missing jsonrpc', { id: 1, method: 'x', params: {} }),

  // hooks/capabilities ---------------------------------------------------------------------------
  ok('capabilitiesRequest', 'discovery request', { jsonrpc: '2.0', id: 7, method: 'hooks/capabilities', params: { protocolVersion: 'draft' } }),
  bad('capabilitiesRequest', 'discovery request with extra params', { jsonrpc: '2.0', id: 7, method: 'hooks/capabilities', params: { protocolVersion: 'draft', session: {} } }),
  bad('capabilitiesRequest', 'discovery request with another method', { jsonrpc: '2.0', id: 7, method: 'hooks/intercept', params: { protocolVersion: 'draft' } }),
  ok('capabilitiesResponse', 'manifest advertising tool.before and turn.finish.before interception', capabilitiesResponse(manifest())),
  ok('capabilitiesResponse', 'managed scope that cannot be disabled', capabilitiesResponse(manifest({ managedPolicy: { scopes: ['managed'], disableable: false } }))),
  bad('capabilitiesResponse', 'manifest without limits', capabilitiesResponse((({ limits: _limits, ...rest }) => rest)(manifest()))),
  bad('capabilitiesResponse', 'manifest with an identity block', capabilitiesResponse(manifest({ identity: { subject: 'x' } }))),
  bad('capabilitiesResponse', 'managed scope that can be disabled', capabilitiesResponse(manifest({ managedPolicy: { scopes: ['managed'], disableable: true } }))),
  bad('capabilitiesResponse', 'intercept entry without capabilities', capabilitiesResponse(manifest({ events: [{ event: 'tool.before', modes: ['intercept'] }] }))),
  bad('capabilitiesResponse', 'observe-only entry claiming effects', capabilitiesResponse(manifest({ events: [{ event: 'tool.after', modes: ['observe'], capabilities: { effects: ['deny'] } }] }))),
  bad('capabilitiesResponse', 'intercept on an observe-only event', capabilitiesResponse(manifest({ events: [{ event: 'tool.progress', modes: ['intercept'], capabilities: { effects: [] } }] }))),
  bad(
    'capabilitiesResponse',
    'tool.before entry advertising continue',
    capabilitiesResponse(
      manifest({
        events: [
          {
            event: 'tool.before',
            modes: ['intercept'],
            capabilities: toolCapabilities({ flow: { operations: ['continue'], remainingContinuations: 1, continuationCount: 0 } }),
          },
        ],
      }),
    ),
  ),
  bad('capabilitiesResponse', 'result carrying effects', capabilitiesResponse(manifest(), { effects: [] })),
  bad('capabilitiesResponse', 'unknown transport', capabilitiesResponse(manifest({ transports: ['carrier-pigeon'] }))),

  // A bare capability set: what HTTP GET /capabilities answers in the ecosystem's binding -----------
  ok('capabilities', 'every tool.before effect with modify, flow and inject details', toolCapabilities()),
  ok('capabilities', 'finish-boundary flow with its allowance', turnCapabilities()),
  ok('capabilities', 'no effects at all', { effects: [] }),
  bad('capabilities', 'no effects list', { modify: { input: { replace: true } } }),
  bad('capabilities', 'duplicate effect', { effects: ['deny', 'deny'] }),
  bad('capabilities', 'a JSON-RPC envelope instead of the set', { jsonrpc: '2.0', id: 'capabilities', result: { protocolVersion: 'draft', manifest: manifest() } }),
];

// hooks/observe notifications and content upload receipts (the lifecycle family) -----------------

const observe = (event: Obj = toolEvent(), extraParams: Obj = {}, envelope: Obj = {}): Obj => ({
  jsonrpc: '2.0',
  method: 'hooks/observe',
  params: { protocolVersion: 'draft', event, ...extraParams },
  ...envelope,
});
const attachment = (id: string, extra: Obj): Obj => ({ id, kind: 'attachment', mediaType: 'application/octet-stream', ...extra });
const digest = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

corpus.push(
  ok('observeNotification', 'settled tool.before with metadata text items', observe(toolEvent({ tool: { name: 'task', kind: 'task', input: { value: 'settled' }, origin: 'native' }, items: [{ id: 'i1', kind: 'text', mediaType: 'text/plain', selection: 'metadata' }] }))),
  ok('observeNotification', 'attachment body reference', observe(toolEvent({ items: [attachment('a1', { selection: 'body', body: { ref: 'receiver-ref-1' } })] }))),
  ok('observeNotification', 'attachment content gap (permission denied)', observe(toolEvent({ items: [attachment('a1', { selection: 'body', gap: { reason: 'content permission denied', path: 'items.a1' } })] }))),
  ok('observeNotification', 'omitted view: no items', observe(toolEvent({ items: [] }))),
  ok('observeNotification', 'turn.finish.before observation', observe(turnEvent())),
  ok('observeNotification', 'extra params member (only the verifier rejects a disposition)', observe(toolEvent(), { disposition: 'deny' })),
  ok('observeNotification', 'extra envelope member', observe(toolEvent(), {}, { 'x-trace': 1 })),
  bad('observeNotification', 'carries a JSON-RPC id', observe(toolEvent(), {}, { id: 'evt-tool-1' })),
  bad('observeNotification', 'carries a null id', observe(toolEvent(), {}, { id: null })),
  bad('observeNotification', 'intercept method', observe(toolEvent(), {}, { method: 'hooks/intercept' })),
  bad('observeNotification', 'no event', { jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft' } }),
  bad('observeNotification', 'no protocolVersion', { jsonrpc: '2.0', method: 'hooks/observe', params: { event: toolEvent() } }),
  bad('observeNotification', 'wrong protocolVersion', observe(toolEvent(), { protocolVersion: '2024-01' })),
  bad('observeNotification', 'params that is an array', { jsonrpc: '2.0', method: 'hooks/observe', params: [toolEvent()] }),
  bad('observeNotification', 'wrong jsonrpc version', observe(toolEvent(), {}, { jsonrpc: '1.0' })),
  bad('observeNotification', 'tool.before without call', observe((({ call: _call, ...rest }) => rest)(toolEvent()))),
  bad('observeNotification', 'event of an unknown type', observe(toolEvent({ type: 'tool.teleport' }))),
  bad('observeNotification', 'body reference carrying size and sha256', observe(toolEvent({ items: [attachment('a1', { selection: 'body', body: { ref: 'r', size: 0, sha256: digest } })] }))),
  bad('observeNotification', 'body reference with an empty ref', observe(toolEvent({ items: [attachment('a1', { selection: 'body', body: { ref: '' } })] }))),
  bad('observeNotification', 'body item without body or gap', observe(toolEvent({ items: [attachment('a1', { selection: 'body' })] }))),
  bad('observeNotification', 'JSON attachment by reference', observe(toolEvent({ items: [{ id: 'a1', kind: 'attachment', mediaType: 'application/json', selection: 'body', body: { ref: 'r' } }] }))),
  bad('observeNotification', 'content gap without a reason', observe(toolEvent({ items: [attachment('a1', { selection: 'body', gap: { path: 'items.a1' } })] }))),

  ok('contentUploadReceipt', 'receipt for 14 bytes', { ref: 'ref-0001', size: 14, sha256: '52c3935626c104b2cbc9031291a1c4d56614c38f52072a361d658a58a9c48698' }),
  ok('contentUploadReceipt', 'receipt for the empty body', { ref: 'urn:uuid:6f1c', size: 0, sha256: digest }),
  bad('contentUploadReceipt', 'no ref', { size: 0, sha256: digest }),
  bad('contentUploadReceipt', 'empty ref', { ref: '', size: 0, sha256: digest }),
  bad('contentUploadReceipt', 'no size', { ref: 'r', sha256: digest }),
  bad('contentUploadReceipt', 'negative size', { ref: 'r', size: -1, sha256: digest }),
  bad('contentUploadReceipt', 'fractional size', { ref: 'r', size: 1.5, sha256: digest }),
  bad('contentUploadReceipt', 'size as a string', { ref: 'r', size: '14', sha256: digest }),
  bad('contentUploadReceipt', 'no sha256', { ref: 'r', size: 0 }),
  bad('contentUploadReceipt', 'uppercase sha256', { ref: 'r', size: 0, sha256: digest.toUpperCase() }),
  bad('contentUploadReceipt', 'sha256 one digit short', { ref: 'r', size: 0, sha256: digest.slice(1) }),
  bad('contentUploadReceipt', 'extra member', { ref: 'r', size: 0, sha256: digest, status: 201 }),
  bad('contentUploadReceipt', 'array', [{ ref: 'r', size: 0, sha256: digest }]),
  bad('contentUploadReceipt', 'null', null),

  bad('interceptResponse', 'ask with a reason (LIFECYCLE-RULES §11)', response([{ type: 'ask', reason: 'confirm first' }])),
);

// The catalogue family: every catalogue event type and portable registration documents -----------

corpus.push(...catalogueEventCases(), ...registrationCases());

// ---------------------------------------------------------------------------------------------------

function verdictOf(dir: string, c: Case): { valid: boolean; errors: string[] } {
  return loadValidators(dir)[c.entry](c.message);
}

function describeFailure(label: string, c: Case, errors: string[]): string {
  const expected = c.valid ? 'valid' : 'invalid';
  const detail = errors.length > 0 ? `\n  ${errors.join('\n  ')}` : '';
  return `${label} schemas: ${c.entry} › ${c.name} should be ${expected}${detail}`;
}

test('the corpus covers every entry point with both verdicts', () => {
  const entries = new Set(corpus.map((c) => c.entry));
  expect([...entries].sort()).toEqual(
    (Object.keys(ENTRY_POINT_FILES) as EntryPoint[]).sort(),
  );
  for (const entry of entries) {
    expect(corpus.some((c) => c.entry === entry && c.valid), `${entry} has a valid case`).toBe(true);
    expect(corpus.some((c) => c.entry === entry && !c.valid), `${entry} has an invalid case`).toBe(true);
  }
  expect(new Set(corpus.map((c) => `${c.entry} › ${c.name}`)).size).toBe(corpus.length);
});

describe('our schemas give the expected verdict', () => {
  test.each(corpus.map((c) => [`${c.entry} › ${c.name}`, c] as const))('%s', (_name, c) => {
    const check = verdictOf(OUR_SCHEMAS, c);
    expect(check.valid, describeFailure('our', c, check.errors)).toBe(c.valid);
    if (!c.valid) expect(check.errors.length).toBeGreaterThan(0);
  });
});

describe.skipIf(!canonicalPresent)(
  canonicalPresent
    ? 'canonical schemas give the same verdict as ours'
    : `canonical schemas give the same verdict as ours (SKIPPED: no canonical schemas at ${CANONICAL_SCHEMAS})`,
  () => {
    test.each(corpus.map((c) => [`${c.entry} › ${c.name}`, c] as const))('%s', (_name, c) => {
      const canonical = verdictOf(CANONICAL_SCHEMAS, c);
      const ours = verdictOf(OUR_SCHEMAS, c);
      expect(canonical.valid, describeFailure('canonical', c, canonical.errors)).toBe(c.valid);
      expect(ours.valid, `ours and canonical disagree on ${c.entry} › ${c.name}`).toBe(canonical.valid);
    });
  },
);
