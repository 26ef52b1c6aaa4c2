// The execution rows of our catalogue fixture: one accepted notification per execution event type
// (tool, turn, model and compaction events), ordered user/assistant messages with inline text,
// schema-invalid notifications that the SDK would refuse, so they go raw and the receiver must
// reject them, and an ordinary notification after every rejection of the file.

import type { JsonObject } from '../../protocol/json.ts';
import { notify, rawNotify, rowWire, type CatalogueRowSpec } from './wire.ts';

const tool: JsonObject = { name: 'apply_patch', kind: 'edit', input: { file: 'src/app.ts', hunks: [{ at: 12, insert: ['return 0;'] }] }, origin: 'native' };
const call = (id: string): JsonObject => ({ id });
const model: JsonObject = { id: 'conformance-model', provider: 'conformance-provider' };
const executed: JsonObject = { status: 'executed' };

/** One row per type: `event:<type>`, a single accepted notification showing the type's own payload. */
function typeRow(type: string, description: string, payload: (w: ReturnType<typeof rowWire>) => JsonObject): CatalogueRowSpec {
  const id = `event:${type}`;
  const w = rowWire(id);
  return { id, category: 'execution', description, tags: [`type:${type}`], steps: [notify(w.event('event', type, payload(w)))] };
}

export function executionRowSpecs(): CatalogueRowSpec[] {
  return [
    typeRow('tool.before', 'A tool call about to run, with structured native input nested several levels deep.', () => ({
      call: call('call-apply-1'),
      tool,
      path: 'native',
      turn: { id: 'turn-7' },
    })),
    typeRow('tool.after', 'A completed tool call: outcome and execution status are independent facts; result content is a tool message.', (w) => ({
      call: call('call-apply-1'),
      tool,
      path: 'native',
      outcome: 'ok',
      execution: executed,
      durationMs: 41,
      items: [w.message('result', 'tool', [w.inlineText('result-text', 'patched 1 hunk')])],
    })),
    typeRow('turn.start', 'A turn started by a continuation, with the model-visible prompt message.', (w) => ({
      turn: { id: 'turn-8' },
      trigger: 'continuation',
      items: [w.message('prompt', 'user', [w.metadataText('prompt-text')])],
    })),
    typeRow('turn.finish.before', 'The agent is about to end the turn; observed, not intercepted.', () => ({
      turn: { id: 'turn-8' },
      outcome: 'completed',
      continuationCount: 1,
      items: [],
    })),
    typeRow('turn.end', 'A failed turn with a typed error and turn totals.', () => ({
      turn: { id: 'turn-8' },
      outcome: 'failed',
      continuationCount: 1,
      items: [],
      error: { message: 'context window exceeded', class: 'limit' },
      usage: { kind: 'total', scope: 'turn', completeness: 'partial', provenance: 'provider', inputTokens: 1200, outputTokens: 80 },
    })),
    typeRow('turn.progress', 'A streamed delta of the assistant reply: a message whose part carries metadata only.', (w) => ({
      turn: { id: 'turn-8' },
      item: { id: w.item('reply') },
      delta: w.message('reply-delta', 'assistant', [w.metadataText('reply-delta-text')]),
      final: false,
    })),
    typeRow('model.request.before', 'A model request about to go out: model, attempt, parameters and the messages it carries.', (w) => ({
      model,
      attempt: { id: 'attempt-1', number: 1 },
      params: { temperature: 0, maxOutputTokens: 512 },
      items: [w.message('instructions', 'system', [w.inlineText('instructions-text', 'Answer in one sentence.')])],
    })),
    typeRow('model.response.after', 'A model response that executed, with its finish reason, attempt usage and latency.', (w) => ({
      model,
      attempt: { id: 'attempt-1', number: 1 },
      execution: executed,
      finishReason: 'stop',
      usage: { kind: 'amount', scope: 'attempt', completeness: 'complete', provenance: 'provider', inputTokens: 300, outputTokens: 21 },
      latencyMs: 640,
      items: [w.message('answer', 'assistant', [w.inlineText('answer-text', 'It compiles.')])],
    })),
    typeRow('model.error', 'A model call that ran and failed: the typed error (message and class) is required.', () => ({
      model,
      attempt: { id: 'attempt-2', number: 2 },
      execution: executed,
      error: { message: 'upstream overloaded', class: 'overloaded', code: 'provider.overloaded' },
    })),
    typeRow('model.switch.before', 'A proposed model switch: the current and the proposed model, and why.', () => ({
      current: model,
      proposed: { id: 'conformance-model-mini', provider: 'conformance-provider' },
      reason: 'cost ceiling reached',
    })),
    typeRow('model.switch.after', 'A completed model switch: the previous and the current model.', () => ({
      previous: model,
      current: { id: 'conformance-model-mini', provider: 'conformance-provider' },
      reason: 'cost ceiling reached',
    })),
    typeRow('tool.permission.request', 'The host asks for permission: opaque host rule suggestions and a sandbox bypass flag.', () => ({
      call: call('call-shell-2'),
      tool: { name: 'shell', kind: 'execute', input: { command: 'make test' }, origin: 'native' },
      path: 'native',
      suggestions: [{ allowPrefix: 'make ' }],
      sandboxBypass: false,
    })),
    typeRow('tool.permission.resolved', 'The permission question answered: allowed by policy.', () => ({
      call: call('call-shell-2'),
      tool: { name: 'shell', kind: 'execute', input: { command: 'make test' }, origin: 'native' },
      path: 'native',
      decision: 'allow',
      decidedBy: 'policy',
    })),
    typeRow('tool.progress', 'A running call reports partial output as a tool message with a metadata part; no outcome yet.', (w) => ({
      call: call('call-shell-2'),
      tool: { name: 'shell', kind: 'execute', input: { command: 'make test' }, origin: 'native' },
      path: 'native',
      partialOutput: w.message('partial', 'tool', [w.metadataText('partial-text')]),
      backgrounded: false,
    })),
    typeRow('tool.batch.after', 'A parallel batch finished: one completion record per call, a denied one skipped by policy.', () => ({
      batch: { id: 'batch-3' },
      calls: [
        { call: call('call-read-3'), tool: { name: 'read_file', input: { path: 'a.md' }, origin: 'native' }, path: 'native', outcome: 'ok', execution: executed },
        {
          call: call('call-read-4'),
          tool: { name: 'read_file', input: { path: '.env' }, origin: 'native' },
          path: 'native',
          outcome: 'denied',
          execution: { status: 'skipped', reason: 'policy' },
        },
      ],
    })),
    typeRow('context.compact.before', 'A proposed compaction: the trigger, the messages it would compact and its instructions.', (w) => ({
      trigger: 'auto',
      items: [w.message('history', 'user', [w.metadataText('history-text')])],
      instructions: [w.inlineText('instructions', 'Keep open questions.')],
      tokenCounts: { before: 90000 },
    })),
    typeRow('context.compact.after', 'A compaction result: summary text parts, the item ids it replaces, and that it was generated.', (w) => ({
      summary: [w.metadataText('summary')],
      removed: [{ id: w.item('old-history') }],
      execution: executed,
      tokenCounts: { before: 90000, after: 4000 },
      items: [],
    })),
    inlineMessagesRow(),
    ...schemaRejectionRows(),
  ];
}

/** Ordered user and assistant messages inline: Unicode and empty text, a reasoning part, a metadata image. */
function inlineMessagesRow(): CatalogueRowSpec {
  const id = 'execution:inline-messages';
  const w = rowWire(id);
  return {
    id,
    category: 'execution',
    description:
      'A model request whose messages keep their order and roles (user, then assistant), with inline text parts (multi-line Unicode and an empty text), a reasoning category and an image described by metadata only.',
    tags: ['content:inline-messages'],
    steps: [
      notify(
        w.event('event', 'model.request.before', {
          model,
          attempt: { id: 'attempt-3', number: 1 },
          params: {},
          items: [
            w.message('question', 'user', [
              w.inlineText('question-text', 'Zweite Zeile folgt.\nGrüße aus Köln — 東京 ✓'),
              w.metadataAttachment('question-image', 'image/webp', 5120),
              w.inlineText('question-tail', 'Danke.'),
            ]),
            w.message('answer', 'assistant', [w.inlineText('answer-reasoning', 'The user wrote German and Japanese.', { category: 'reasoning' }), w.inlineText('answer-text', '')]),
          ],
        }),
      ),
    ],
  };
}

/**
 * Notifications the receiver's observe schema refuses (the SDK would refuse them too, so they go raw).
 * Each still carries an event id: the client waits on it after sending (CATALOGUE-RULES §5). A
 * notification without an event is the catalogue receiver probe `receiver/event-less-observation`
 * (catalogue/catalogue-receiver-probes.ts), where the harness sends the bytes itself.
 */
function schemaRejectionRows(): CatalogueRowSpec[] {
  const row = (name: string, description: string, message: (w: ReturnType<typeof rowWire>) => CatalogueRowSpec['steps'][number]): CatalogueRowSpec => {
    const id = `execution:${name}`;
    return { id, category: 'execution', description, tags: ['schema:rejected'], steps: [message(rowWire(id))] };
  };
  return [
    row('model-error-without-error', 'A model.error without its typed `error` is not a valid observation.', (w) =>
      rawNotify(w.event('event', 'model.error', { model, attempt: { id: 'attempt-4', number: 1 }, execution: executed })),
    ),
    row('invented-execution-status', 'An execution status outside the closed set (`deferred`) is not a valid observation.', (w) =>
      rawNotify(w.event('event', 'tool.after', { call: call('call-apply-5'), tool, path: 'native', outcome: 'ok', execution: { status: 'deferred' }, items: [] })),
    ),
    row('error-outcome-without-error', 'A tool.after with outcome `error` must carry the typed error.', (w) =>
      rawNotify(w.event('event', 'tool.after', { call: call('call-apply-6'), tool, path: 'native', outcome: 'error', execution: executed, items: [] })),
    ),
    row('progress-with-outcome', 'A tool.progress cannot already carry an outcome.', (w) =>
      rawNotify(
        w.event('event', 'tool.progress', {
          call: call('call-shell-7'),
          tool,
          path: 'native',
          partialOutput: w.message('partial', 'tool', [w.metadataText('partial-text')]),
          backgrounded: true,
          outcome: 'ok',
        }),
      ),
    ),
  ];
}

/** Placed after every rejecting row of the file (schema and lineage). */
export function healthyAfterRejectionsRow(): CatalogueRowSpec {
  const id = 'execution:healthy-after-rejections';
  const w = rowWire(id);
  return {
    id,
    category: 'execution',
    description: 'After the schema and lineage rejections before it, the receiver still accepts an ordinary notification.',
    tags: ['receiver:continues-after-rejections'],
    steps: [notify(w.event('event', 'turn.end', { turn: { id: 'turn-9' }, outcome: 'completed', continuationCount: 0, items: [] }))],
  };
}
