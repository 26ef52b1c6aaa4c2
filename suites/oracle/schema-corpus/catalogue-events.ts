// Corpus cases for every catalogue event type, each sent as a `hooks/observe` notification: one or
// more valid events per type (the richest shape the type allows) and invalid ones for each kind of
// rule the type has — a missing required member, a member of another boundary, a closed object with
// an unknown member, a value outside its enum, a conditional rule — plus the two content shapes the
// catalogue's fixture tests name (a legacy `kind:"message"` item, a text part with `body:{uri}`).

import { bad, ok, without, type Case, type Obj } from './case.ts';

const SOURCE = 'urn:ahp-conformance:corpus';
const TIME = '2026-03-01T09:30:00Z';

const observe = (event: Obj): Obj => ({ jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft', event } });
const valid = (name: string, event: Obj): Case => ok('observeNotification', name, observe(event));
const invalid = (name: string, event: Obj): Case => bad('observeNotification', name, observe(event));

const base = (type: string, id: string): Obj => ({ id, source: SOURCE, type, time: TIME, session: { id: 'corpus-session' } });
const metadataText = (id: string): Obj => ({ id, kind: 'text', mediaType: 'text/plain', selection: 'metadata' });
const inlineText = (id: string, text: string): Obj => ({ id, kind: 'text', mediaType: 'text/plain', selection: 'body', text });
const message = (id: string, role: string, parts: Obj[]): Obj => ({ id, role, parts });
const model: Obj = { id: 'corpus-model-large', provider: 'corpus-provider' };
const attempt: Obj = { id: 'corpus-attempt-1', number: 1 };
const tool: Obj = { name: 'write_file', kind: 'edit', input: { path: 'notes.md' }, origin: 'native' };
const executed: Obj = { status: 'executed' };

// ----- tool events ---------------------------------------------------------------------------------

const toolAfter = (extra: Obj = {}): Obj => ({
  ...base('tool.after', 'corpus-tool-after'),
  call: { id: 'corpus-call-7' },
  tool,
  path: 'native',
  outcome: 'ok',
  execution: executed,
  items: [message('corpus-tool-result', 'tool', [inlineText('corpus-tool-result-text', 'wrote 12 lines')])],
  ...extra,
});

const permissionRequest = (extra: Obj = {}): Obj => ({
  ...base('tool.permission.request', 'corpus-permission-request'),
  turn: { id: 'corpus-turn-2' },
  call: { id: 'corpus-call-8' },
  tool,
  path: 'native',
  suggestions: [{ rule: 'allow write_file in notes/' }],
  sandboxBypass: true,
  ...extra,
});

const permissionResolved = (extra: Obj = {}): Obj => ({
  ...base('tool.permission.resolved', 'corpus-permission-resolved'),
  call: { id: 'corpus-call-8' },
  tool,
  path: 'native',
  decision: 'deny',
  decidedBy: 'classifier',
  ...extra,
});

const toolProgress = (extra: Obj = {}): Obj => ({
  ...base('tool.progress', 'corpus-tool-progress'),
  call: { id: 'corpus-call-9' },
  tool,
  path: 'native',
  partialOutput: message('corpus-partial', 'tool', [metadataText('corpus-partial-text')]),
  backgrounded: true,
  ...extra,
});

const batchCall = (extra: Obj = {}): Obj => ({ call: { id: 'corpus-call-10' }, tool, path: 'native', outcome: 'ok', execution: executed, ...extra });
const batchAfter = (calls: Obj[] = [batchCall()], extra: Obj = {}): Obj => ({
  ...base('tool.batch.after', 'corpus-batch-after'),
  batch: { id: 'corpus-batch-1' },
  calls,
  ...extra,
});

const skippedByPolicy: Obj = { status: 'skipped', reason: 'policy', detail: 'blocked by rule 4' };

const toolCases: Case[] = [
  valid('tool.after › ok and executed with result messages', toolAfter()),
  valid(
    'tool.after › error outcome with a typed error, duration and file changes',
    toolAfter({
      outcome: 'error',
      error: { message: 'disk full', class: 'io', code: 'ENOSPC', status: 28 },
      durationMs: 12.5,
      fileChanges: [
        { path: 'notes.md', change: 'modified', before: metadataText('corpus-before'), after: inlineText('corpus-after', 'new text') },
        { path: 'b.md', change: 'moved', previousPath: 'a.md' },
      ],
    }),
  ),
  valid('tool.after › denied and skipped by policy', toolAfter({ outcome: 'denied', execution: skippedByPolicy })),
  valid('tool.after › cancelled although it executed', toolAfter({ outcome: 'cancelled' })),
  valid('tool.after › supplied result', toolAfter({ execution: { status: 'skipped', reason: 'supplied_result' } })),
  valid('tool.after › open turn reference', toolAfter({ turn: { id: 'corpus-turn-2', vendor: 'x' } })),
  invalid('tool.after › without items', without(toolAfter(), 'items')),
  invalid('tool.after › without execution', without(toolAfter(), 'execution')),
  invalid('tool.after › error outcome without error', toolAfter({ outcome: 'error' })),
  invalid('tool.after › ok outcome with an error', toolAfter({ error: { message: 'x', class: 'y' } })),
  invalid('tool.after › error without class', toolAfter({ outcome: 'error', error: { message: 'x' } })),
  invalid('tool.after › denied although executed', toolAfter({ outcome: 'denied' })),
  invalid('tool.after › execution status outside the enum', toolAfter({ execution: { status: 'invented' } })),
  invalid('tool.after › skipped without a reason', toolAfter({ execution: { status: 'skipped' } })),
  invalid('tool.after › supplied result with a detail', toolAfter({ execution: { status: 'skipped', reason: 'supplied_result', detail: 'x' } })),
  invalid('tool.after › skipped call with a duration', toolAfter({ execution: skippedByPolicy, outcome: 'denied', durationMs: 3 })),
  invalid('tool.after › output inside the tool descriptor', toolAfter({ tool: { ...tool, output: 'wrote' } })),
  invalid('tool.after › outcome outside the enum', toolAfter({ outcome: 'partial' })),
  invalid('tool.after › moved file without previous path', toolAfter({ fileChanges: [{ path: 'b.md', change: 'moved' }] })),
  invalid('tool.after › created file with a before snapshot', toolAfter({ fileChanges: [{ path: 'n.md', change: 'created', before: metadataText('x') }] })),
  invalid('tool.after › deleted file with an after snapshot', toolAfter({ fileChanges: [{ path: 'n.md', change: 'deleted', after: metadataText('x') }] })),
  invalid('tool.after › items holding a bare part', toolAfter({ items: [metadataText('corpus-bare')] })),

  valid('tool.permission.request › suggestions, sandbox bypass, closed turn', permissionRequest()),
  valid('tool.permission.request › no suggestions, content parts', permissionRequest({ suggestions: [], sandboxBypass: false, items: [metadataText('p1')] })),
  invalid('tool.permission.request › without sandboxBypass', without(permissionRequest(), 'sandboxBypass')),
  invalid('tool.permission.request › carrying a decision', permissionRequest({ decision: 'allow' })),
  invalid('tool.permission.request › carrying an execution', permissionRequest({ execution: executed })),
  invalid('tool.permission.request › suggestion that is a string', permissionRequest({ suggestions: ['allow all'] })),
  invalid('tool.permission.request › turn with an extra member', permissionRequest({ turn: { id: 't', index: 1 } })),

  valid('tool.permission.resolved › denied by a classifier', permissionResolved()),
  invalid('tool.permission.resolved › without decidedBy', without(permissionResolved(), 'decidedBy')),
  invalid('tool.permission.resolved › decision ask', permissionResolved({ decision: 'ask' })),
  invalid('tool.permission.resolved › decided by an unknown party', permissionResolved({ decidedBy: 'admin' })),

  valid('tool.progress › backgrounded partial output', toolProgress()),
  invalid('tool.progress › without backgrounded', without(toolProgress(), 'backgrounded')),
  invalid('tool.progress › partial output that is a part, not a message', toolProgress({ partialOutput: metadataText('corpus-partial-text') })),
  invalid('tool.progress › carrying an outcome', toolProgress({ outcome: 'ok' })),
  invalid('tool.progress › items holding messages', toolProgress({ items: [message('m', 'tool', [])] })),

  valid('tool.batch.after › one ok call', batchAfter()),
  valid(
    'tool.batch.after › a denied call skipped by policy beside a timed-out one',
    batchAfter([batchCall({ outcome: 'denied', execution: skippedByPolicy }), batchCall({ call: { id: 'corpus-call-11' }, outcome: 'timeout' })]),
  ),
  invalid('tool.batch.after › no calls', batchAfter([])),
  invalid('tool.batch.after › denied call that executed', batchAfter([batchCall({ outcome: 'denied' })])),
  invalid('tool.batch.after › call with an extra member', batchAfter([batchCall({ durationMs: 4 })])),
  invalid('tool.batch.after › call without execution', batchAfter([without(batchCall(), 'execution')])),
  invalid('tool.batch.after › batch with call ids', batchAfter(undefined, { batch: { id: 'b', callIds: ['c'] } })),
];

// ----- turn events ---------------------------------------------------------------------------------

const turnStart = (extra: Obj = {}): Obj => ({
  ...base('turn.start', 'corpus-turn-start'),
  turn: { id: 'corpus-turn-3', synthesized: true },
  trigger: 'hook',
  expandedFrom: '/review',
  items: [message('corpus-prompt', 'user', [inlineText('corpus-prompt-text', 'Review the diff.')])],
  ...extra,
});

const turnEnd = (extra: Obj = {}): Obj => ({
  ...base('turn.end', 'corpus-turn-end'),
  turn: { id: 'corpus-turn-3' },
  outcome: 'failed',
  continuationCount: 2,
  items: [],
  lastAssistantItem: { id: 'corpus-reply' },
  usage: { kind: 'total', scope: 'turn', completeness: 'complete', provenance: 'mixed', outputTokens: 40 },
  error: { message: 'model unavailable', class: 'provider' },
  ...extra,
});

const turnFinish = (extra: Obj = {}): Obj => ({
  ...base('turn.finish.before', 'corpus-turn-finish'),
  turn: { id: 'corpus-turn-3' },
  outcome: 'completed',
  continuationCount: 0,
  items: [],
  ...extra,
});

const turnProgress = (extra: Obj = {}): Obj => ({
  ...base('turn.progress', 'corpus-turn-progress'),
  turn: { id: 'corpus-turn-3' },
  item: { id: 'corpus-reply' },
  delta: message('corpus-reply-delta', 'assistant', [inlineText('corpus-reply-delta-text', 'Looking')]),
  final: false,
  ...extra,
});

const turnCases: Case[] = [
  valid('turn.start › triggered by a hook, expanded from a command', turnStart()),
  invalid('turn.start › without items', without(turnStart(), 'items')),
  invalid('turn.start › trigger outside the enum', turnStart({ trigger: 'timer' })),
  invalid('turn.start › turn with an extra member', turnStart({ turn: { id: 't', index: 1 } })),
  invalid('turn.start › without turn', without(turnStart(), 'turn')),

  valid('turn.finish.before › observed', turnFinish()),
  invalid('turn.finish.before › without continuationCount', without(turnFinish(), 'continuationCount')),

  valid('turn.end › failed with a typed error and turn totals', turnEnd()),
  valid('turn.end › completed without an error', without(turnEnd({ outcome: 'completed' }), 'error')),
  invalid('turn.end › completed with an error', turnEnd({ outcome: 'completed' })),
  invalid('turn.end › attempt usage instead of turn totals', turnEnd({ usage: { kind: 'amount', scope: 'attempt', completeness: 'complete', provenance: 'provider' } })),
  invalid('turn.end › negative continuation count', turnEnd({ continuationCount: -1 })),
  invalid('turn.end › outcome outside the enum', turnEnd({ outcome: 'done' })),

  valid('turn.progress › streamed delta', turnProgress()),
  valid('turn.progress › final delta with content parts', turnProgress({ final: true, items: [metadataText('corpus-progress-part')] })),
  invalid('turn.progress › without final', without(turnProgress(), 'final')),
  invalid('turn.progress › delta that is a part', turnProgress({ delta: metadataText('corpus-reply-delta-text') })),
  invalid('turn.progress › item reference with an extra member', turnProgress({ item: { id: 'corpus-reply', role: 'assistant' } })),
];

// ----- model events --------------------------------------------------------------------------------

const modelRequest = (extra: Obj = {}): Obj => ({
  ...base('model.request.before', 'corpus-model-request'),
  turn: { id: 'corpus-turn-4' },
  model,
  attempt,
  params: { temperature: 0.2 },
  items: [message('corpus-request-message', 'system', [inlineText('corpus-request-text', 'Be terse.')])],
  ...extra,
});

const modelResponse = (extra: Obj = {}): Obj => ({
  ...base('model.response.after', 'corpus-model-response'),
  model,
  attempt: { ...attempt, synthesized: true },
  execution: executed,
  items: [message('corpus-response-message', 'assistant', [metadataText('corpus-response-text')])],
  finishReason: 'stop',
  usage: { kind: 'amount', scope: 'attempt', completeness: 'partial', provenance: 'estimate', inputTokens: 90, cost: { amount: 0.01, currency: 'USD', basis: 'estimated' } },
  latencyMs: 812.5,
  ...extra,
});

const modelError = (extra: Obj = {}): Obj => ({
  ...base('model.error', 'corpus-model-error'),
  model,
  attempt: { id: 'corpus-attempt-2', number: 2 },
  execution: executed,
  error: { message: 'rate limited', class: 'rate_limit', status: '429' },
  recovery: 'retry after backoff',
  ...extra,
});

const modelSwitchBefore = (extra: Obj = {}): Obj => ({
  ...base('model.switch.before', 'corpus-switch-before'),
  current: model,
  proposed: { id: 'corpus-model-small', provider: 'corpus-provider' },
  reason: 'budget',
  pricing: { currency: 'EUR', inputPerMillionTokens: 0.5, outputPerMillionTokens: 1.5 },
  ...extra,
});

const modelSwitchAfter = (extra: Obj = {}): Obj => ({
  ...base('model.switch.after', 'corpus-switch-after'),
  previous: model,
  current: { id: 'corpus-model-small', provider: 'corpus-provider' },
  reason: 'budget',
  ...extra,
});

const modelCases: Case[] = [
  valid('model.request.before › model, attempt, params and messages', modelRequest()),
  invalid('model.request.before › without params', without(modelRequest(), 'params')),
  invalid('model.request.before › carrying a finish reason', modelRequest({ finishReason: 'stop' })),
  invalid('model.request.before › carrying usage', modelRequest({ usage: { kind: 'amount', scope: 'attempt', completeness: 'unknown', provenance: 'provider' } })),
  invalid('model.request.before › attempt number 0', modelRequest({ attempt: { id: 'a', number: 0 } })),
  invalid('model.request.before › model with an extra member', modelRequest({ model: { ...model, version: '2' } })),
  invalid('model.request.before › model without provider', modelRequest({ model: { id: 'corpus-model-large' } })),

  valid('model.response.after › executed with attempt usage and latency', modelResponse()),
  valid('model.response.after › supplied result without usage or latency', without(modelResponse({ execution: { status: 'skipped', reason: 'supplied_result' } }), 'usage', 'latencyMs')),
  invalid('model.response.after › supplied result with latency', without(modelResponse({ execution: { status: 'skipped', reason: 'supplied_result' } }), 'usage')),
  invalid('model.response.after › skipped by policy', without(modelResponse({ execution: { status: 'skipped', reason: 'policy' } }), 'usage', 'latencyMs')),
  invalid('model.response.after › without finish reason', without(modelResponse(), 'finishReason')),
  invalid('model.response.after › carrying an error', modelResponse({ error: { message: 'x', class: 'y' } })),
  invalid('model.response.after › mixed provenance for one attempt', modelResponse({ usage: { kind: 'amount', scope: 'attempt', completeness: 'complete', provenance: 'mixed' } })),
  invalid('model.response.after › turn totals for one attempt', modelResponse({ usage: { kind: 'total', scope: 'turn', completeness: 'complete', provenance: 'provider' } })),
  invalid('model.response.after › lower-case currency', modelResponse({ usage: { kind: 'amount', scope: 'attempt', completeness: 'complete', provenance: 'provider', cost: { amount: 1, currency: 'usd', basis: 'billed' } } })),
  invalid('model.response.after › negative latency', modelResponse({ latencyMs: -1 })),

  valid('model.error › typed error with recovery', modelError()),
  valid('model.error › with attempt usage and content parts', modelError({ usage: { kind: 'amount', scope: 'attempt', completeness: 'unknown', provenance: 'provider' }, items: [metadataText('corpus-error-part')] })),
  invalid('model.error › without error', without(modelError(), 'error')),
  invalid('model.error › error without message', modelError({ error: { class: 'rate_limit' } })),
  invalid('model.error › error with an extra member', modelError({ error: { message: 'm', class: 'c', retryable: true } })),
  invalid('model.error › skipped execution', modelError({ execution: { status: 'skipped', reason: 'timeout' } })),
  invalid('model.error › carrying a finish reason', modelError({ finishReason: 'error' })),

  valid('model.switch.before › with pricing', modelSwitchBefore()),
  invalid('model.switch.before › without proposed', without(modelSwitchBefore(), 'proposed')),
  invalid('model.switch.before › carrying previous', modelSwitchBefore({ previous: model })),
  invalid('model.switch.before › pricing without currency', modelSwitchBefore({ pricing: { inputPerMillionTokens: 1 } })),
  invalid('model.switch.before › empty reason', modelSwitchBefore({ reason: '' })),

  valid('model.switch.after › previous and current', modelSwitchAfter()),
  invalid('model.switch.after › carrying proposed', modelSwitchAfter({ proposed: model })),
  invalid('model.switch.after › without previous', without(modelSwitchAfter(), 'previous')),
];

// ----- context compaction --------------------------------------------------------------------------

const compactBefore = (extra: Obj = {}): Obj => ({
  ...base('context.compact.before', 'corpus-compact-before'),
  trigger: 'manual',
  items: [message('corpus-history', 'user', [metadataText('corpus-history-text')])],
  instructions: [inlineText('corpus-instructions', 'Keep the decisions.')],
  tokenCounts: { before: 120000 },
  ...extra,
});

const compactAfter = (extra: Obj = {}): Obj => ({
  ...base('context.compact.after', 'corpus-compact-after'),
  summary: [inlineText('corpus-summary', 'Decided to ship on Friday.')],
  removed: [{ id: 'corpus-history' }],
  execution: executed,
  tokenCounts: { before: 120000, after: 8000 },
  items: [],
  ...extra,
});

const compactionCases: Case[] = [
  valid('context.compact.before › manual with instructions', compactBefore()),
  invalid('context.compact.before › without trigger', without(compactBefore(), 'trigger')),
  invalid('context.compact.before › carrying a summary', compactBefore({ summary: [] })),
  invalid('context.compact.before › token count after compaction', compactBefore({ tokenCounts: { before: 1, after: 1 } })),
  invalid('context.compact.before › instructions holding an attachment', compactBefore({ instructions: [{ id: 'a', kind: 'attachment', mediaType: 'image/png', selection: 'metadata' }] })),

  valid('context.compact.after › generated summary', compactAfter()),
  valid('context.compact.after › supplied summary', compactAfter({ execution: { status: 'skipped', reason: 'supplied_result' } })),
  invalid('context.compact.after › skipped on timeout', compactAfter({ execution: { status: 'skipped', reason: 'timeout' } })),
  invalid('context.compact.after › without removed', without(compactAfter(), 'removed')),
  invalid('context.compact.after › removed entry with an extra member', compactAfter({ removed: [{ id: 'x', role: 'user' }] })),
  invalid('context.compact.after › token counts with an extra member', compactAfter({ tokenCounts: { saved: 3 } })),
];

// ----- task, workspace and file changes -------------------------------------------------------------

const task = (extra: Obj = {}): Obj => ({ id: 'corpus-task-5', operation: 'update', change: { status: 'review', owner: 'ana' }, ...extra });
const taskEvent = (type: string, extra: Obj = {}): Obj => ({ ...base(type, `corpus-${type}`), task: task(), ...extra });
const workspaceEvent = (type: string, extra: Obj = {}): Obj => ({
  ...base(type, `corpus-${type}`),
  workspace: { kind: 'roots', change: { workspaceRoots: [] }, prior: { workspaceRoots: ['/srv/app'] }, reason: 'closing project' },
  ...extra,
});
const fileChanged = (changes: Obj[], extra: Obj = {}): Obj => ({ ...base('file.changed', 'corpus-file-changed'), changes, ...extra });

const changeCases: Case[] = [
  valid('task.change.before › update proposal with open change', taskEvent('task.change.before', { turn: { id: 't', any: 1 }, items: [metadataText('corpus-task-part')] })),
  valid('task.change.before › removal with an empty change', taskEvent('task.change.before', { task: task({ operation: 'remove', change: {}, description: '' }) })),
  invalid('task.change.before › without task', without(taskEvent('task.change.before'), 'task')),
  invalid('task.change.before › task with a misspelled member', taskEvent('task.change.before', { task: task({ chnage: {} }) })),
  invalid('task.change.before › operation outside the enum', taskEvent('task.change.before', { task: task({ operation: 'rename' }) })),
  invalid('task.change.before › change that is a string', taskEvent('task.change.before', { task: task({ change: 'done' }) })),

  valid('task.change.after › applied with prior and a parent', taskEvent('task.change.after', { task: task({ prior: { status: 'open' }, synthesized: false }), parentEventId: 'corpus-task.change.before' })),
  invalid('task.change.after › task without id', taskEvent('task.change.after', { task: without(task(), 'id') })),
  invalid('task.change.after › empty parent id', taskEvent('task.change.after', { parentEventId: '' })),
  invalid('task.change.after › items holding messages', taskEvent('task.change.after', { items: [message('m', 'user', [])] })),

  valid('workspace.change.before › all roots removed', workspaceEvent('workspace.change.before')),
  invalid('workspace.change.before › empty change', workspaceEvent('workspace.change.before', { workspace: { kind: 'cwd', change: {} } })),
  invalid('workspace.change.before › kind outside the enum', workspaceEvent('workspace.change.before', { workspace: { kind: 'plugin', change: { cwd: '/x' } } })),

  valid('workspace.change.after › cwd applied', workspaceEvent('workspace.change.after', { workspace: { kind: 'cwd', change: { cwd: '/srv/app/api' } } })),
  invalid('workspace.change.after › change with an unknown member', workspaceEvent('workspace.change.after', { workspace: { kind: 'cwd', change: { cwd: '/x', branch: 'main' } } })),
  invalid('workspace.change.after › duplicate roots', workspaceEvent('workspace.change.after', { workspace: { kind: 'roots', change: { workspaceRoots: ['/a', '/a'] } } })),
  invalid('workspace.change.after › empty cwd', workspaceEvent('workspace.change.after', { workspace: { kind: 'cwd', change: { cwd: '' } } })),

  valid(
    'file.changed › snapshots as inline text and attachment metadata',
    fileChanged([
      { path: '/srv/app/README.md', operation: 'update', agentCaused: true, before: inlineText('corpus-file-before', 'old'), after: inlineText('corpus-file-after', 'new') },
      { path: '/srv/app/logo.png', operation: 'create', agentCaused: false, after: { id: 'corpus-logo', kind: 'attachment', mediaType: 'image/png', selection: 'metadata', size: 2048 } },
    ]),
  ),
  invalid('file.changed › no changes', fileChanged([])),
  invalid('file.changed › change without agentCaused', fileChanged([{ path: '/x', operation: 'remove' }])),
  invalid('file.changed › change with a rename', fileChanged([{ path: '/x', operation: 'update', agentCaused: true, previousPath: '/y' }])),
  invalid('file.changed › JSON snapshot as an attachment', fileChanged([{ path: '/x.json', operation: 'update', agentCaused: true, after: { id: 'j', kind: 'attachment', mediaType: 'application/json', selection: 'metadata' } }])),
];

// ----- shapes every event shares ---------------------------------------------------------------------

const sharedCases: Case[] = [
  invalid('a legacy kind "message" item', compactBefore({ items: [{ id: 'corpus-legacy', kind: 'message', role: 'user', parts: [] }] })),
  invalid('a text part with body {uri}', toolAfter({ items: [message('corpus-uri', 'tool', [{ id: 'corpus-uri-text', kind: 'text', mediaType: 'text/plain', selection: 'body', body: { uri: 'file:///tmp/x' } }])] })),
  invalid('a message with a role outside the enum', turnStart({ items: [message('corpus-robot', 'robot', [])] })),
  invalid('an event without a type', without(turnStart(), 'type')),
  invalid('an event without a source', without(turnStart(), 'source')),
  invalid('an event source that is not a URI', turnStart({ source: 'not a uri' })),
  valid('an event with extension members and an unknown member', turnStart({ extensions: { 'org.example.trace': { span: 1 } }, vendorHint: true })),
];

export function catalogueEventCases(): Case[] {
  return [...toolCases, ...turnCases, ...modelCases, ...compactionCases, ...changeCases, ...sharedCases];
}
