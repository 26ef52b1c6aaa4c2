// An honest elicitation receiver (rules §3), as a pure model: stored uploads, pending requests keyed by
// (source, event id), and for each intercept the status and the receipt it appends. The generator
// runs every case's steps through it to write the expected statuses and receipts, so no expectation
// is typed in by hand; a fixture whose model outcome disagrees with the rules' table fails the
// generator's own check (generate.ts). Reasons are for those checks only: the runner sees statuses.

import { isJsonObject, type JsonObject, type JsonValue } from '../../protocol/json.ts';
import { parseJsonText } from '../../protocol/json-text.ts';
import { sha256Hex } from '../../protocol/sha256-hex.ts';
import type { Selection, UploadDescriptor } from './case-types.ts';
import type { Stage } from './envelopes.ts';
import { contentPlacementProblems, formAnswerProblems, mcpRequestProblems, mcpResultProblems, parsedMode } from './mcp-model.ts';
import { descriptorOf, toBase64 } from './payloads.ts';
import { requestSummary, resultSummary } from './receipt-summary.ts';

export interface ModelReceipt {
  message: JsonObject;
  bytes: string;
  summary: JsonObject;
}

export type InterceptOutcome = { status: 200; receipt: ModelReceipt } | { status: 400; reason: string };

export interface Pending {
  selection: Selection;
  /** Parsed params when the body was selected. */
  params: JsonObject | undefined;
  sessionId: JsonValue | undefined;
  server: JsonValue | undefined;
  mode: JsonValue | undefined;
}

export type Resolved = { ok: true; bytes: Buffer | undefined; selection: Selection } | { ok: false; reason: string };

const ITEM_KEYS: Record<string, readonly string[]> = {
  upload: ['id', 'kind', 'mediaType', 'selection', 'body', 'gap'],
  inline: ['id', 'kind', 'mediaType', 'selection', 'text', 'gap'],
};

/** A selected body's octets as a valid MCP body of its stage, or why not. */
function parseBody(bytes: Buffer, stage: Stage, problemsOf: (value: JsonValue) => string[]): { ok: true; value: JsonObject } | { ok: false; reason: string } {
  const parsed = parseJsonText(bytes.toString('utf8'));
  if (!parsed.ok) return { ok: false, reason: 'body is not JSON' };
  const problems = problemsOf(parsed.value as JsonValue);
  return problems.length > 0 ? { ok: false, reason: `MCP ${stage}: ${problems.join('; ')}` } : { ok: true, value: parsed.value as JsonObject };
}

export class ReceiverModel {
  protected readonly stored = new Map<string, Buffer>();
  protected readonly pending = new Map<string, Pending>();
  private nextRef = 1;

  constructor(private readonly uploadToken = 'upload-token') {}

  /** `/upload`: a wrong `Authorization` is refused; anything else is stored under a fresh ref. */
  upload(bytes: Buffer, headers: Record<string, string> | undefined): { status: 201; descriptor: UploadDescriptor } | { status: 401 } {
    const authorization = headers?.Authorization ?? headers?.authorization;
    if (authorization !== undefined && authorization !== `Bearer ${this.uploadToken}`) return { status: 401 };
    const ref = `model-ref-${this.nextRef++}`;
    this.stored.set(ref, Buffer.from(bytes));
    return { status: 201, descriptor: descriptorOf(ref, bytes) };
  }

  intercept(message: JsonObject): InterceptOutcome {
    const problem = this.envelopeProblem(message);
    if (problem !== undefined) return { status: 400, reason: problem };
    const { event, stage } = this.parts(message);
    return stage === 'request' ? this.request(message, event) : this.result(message, event);
  }

  private parts(message: JsonObject): { event: JsonObject; stage: Stage } {
    const event = (message.params as JsonObject).event as JsonObject;
    return { event, stage: event.type === 'user.elicitation.request' ? 'request' : 'result' };
  }

  /** A stand-in for the `intercept-request` schema, for the shapes these cases can break. */
  private envelopeProblem(message: JsonObject): string | undefined {
    const params = message.params;
    if (message.jsonrpc !== '2.0' || message.method !== 'hooks/intercept' || !isJsonObject(params)) return 'not a hooks/intercept request';
    const event = params.event;
    if (params.protocolVersion !== 'draft' || !isJsonObject(params.capabilities) || !isJsonObject(event)) return 'params incomplete';
    if (message.id !== event.id || typeof event.id !== 'string') return 'JSON-RPC id is not the event id';
    if (event.type !== 'user.elicitation.request' && event.type !== 'user.elicitation.result') return 'not an elicitation event';
    if (typeof event.source !== 'string' || typeof event.time !== 'string') return 'event source/time missing';
    const elicitation = event.elicitation;
    if (!isJsonObject(elicitation) || typeof elicitation.server !== 'string' || elicitation.server === '') return 'elicitation.server missing';
    if (elicitation.mode !== 'form' && elicitation.mode !== 'url') return 'elicitation.mode is not form or url';
    const stage: Stage = event.type === 'user.elicitation.request' ? 'request' : 'result';
    if (stage === 'result' && !['accept', 'decline', 'cancel'].includes(elicitation.action as string)) return 'elicitation.action invalid';
    const item = elicitation[stage];
    if (item !== undefined) {
      if (!isJsonObject(item) || !['body', 'metadata', 'omit'].includes(item.selection as string)) return 'item selection invalid';
      const binding = item.kind === 'text' ? 'inline' : item.kind === `elicitation.${stage}` ? 'upload' : undefined;
      if (binding === undefined) return 'item kind invalid';
      if (Object.keys(item).some((key) => !(ITEM_KEYS[binding] as readonly string[]).includes(key))) return 'item has a key its binding does not allow';
    }
    return undefined;
  }

  /** The selected body's octets, or why the item cannot give them (unknown ref, bad digest, gap). */
  protected resolve(item: JsonValue | undefined): Resolved {
    if (!isJsonObject(item)) return { ok: true, bytes: undefined, selection: 'omit' };
    const selection = item.selection as Selection;
    if (selection !== 'body') return { ok: true, bytes: undefined, selection };
    if (item.kind === 'text') {
      if (typeof item.text !== 'string') return { ok: false, reason: 'selected gap' };
      return { ok: true, bytes: Buffer.from(item.text, 'utf8'), selection };
    }
    const body = item.body;
    if (!isJsonObject(body)) return { ok: false, reason: 'selected gap' };
    const stored = typeof body.ref === 'string' ? this.stored.get(body.ref) : undefined;
    if (stored === undefined) return { ok: false, reason: 'unknown ref' };
    if (body.size !== stored.length || body.sha256 !== sha256Hex(stored)) return { ok: false, reason: 'digest mismatch' };
    return { ok: true, bytes: stored, selection };
  }

  private request(message: JsonObject, event: JsonObject): InterceptOutcome {
    const key = JSON.stringify([event.source, event.id]);
    if (this.pending.has(key)) return { status: 400, reason: 'duplicate live request' };
    const elicitation = event.elicitation as JsonObject;
    const resolved = this.resolve(elicitation.request);
    if (!resolved.ok) return { status: 400, reason: resolved.reason };
    let params: JsonObject | undefined;
    if (resolved.bytes !== undefined) {
      const parsed = parseBody(resolved.bytes, 'request', mcpRequestProblems);
      if (!parsed.ok) return { status: 400, reason: parsed.reason };
      params = parsed.value;
      if (parsedMode(params) !== elicitation.mode) return { status: 400, reason: 'metadata mode differs from the parsed mode' };
    }
    const session = event.session;
    this.pending.set(key, { selection: resolved.selection, params, sessionId: isJsonObject(session) ? session.id : undefined, server: elicitation.server, mode: elicitation.mode });
    return { status: 200, receipt: { message, bytes: resolved.bytes === undefined ? '' : toBase64(resolved.bytes), summary: requestSummary(resolved.selection, params) } };
  }

  private result(message: JsonObject, event: JsonObject): InterceptOutcome {
    const elicitation = event.elicitation as JsonObject;
    if (typeof event.parentEventId !== 'string') return { status: 400, reason: 'correlation: no parentEventId' };
    const key = JSON.stringify([event.source, event.parentEventId]);
    const pending = this.pending.get(key);
    if (pending === undefined) return { status: 400, reason: 'correlation: no pending request' };
    const session = event.session;
    if (!isJsonObject(session) || session.id !== pending.sessionId) return { status: 400, reason: 'correlation: session differs' };
    if (elicitation.server !== pending.server || elicitation.mode !== pending.mode) return { status: 400, reason: 'server or mode differs from the request' };
    const resolved = this.resolve(elicitation.result);
    if (!resolved.ok) return { status: 400, reason: resolved.reason };
    let result: JsonObject | undefined;
    if (resolved.bytes !== undefined) {
      const parsed = parseBody(resolved.bytes, 'result', mcpResultProblems);
      if (!parsed.ok) return { status: 400, reason: parsed.reason };
      result = parsed.value;
      if (result.action !== elicitation.action) return { status: 400, reason: 'metadata action differs from the parsed action' };
      const mode = elicitation.mode as 'form' | 'url';
      const placement = contentPlacementProblems(result, mode);
      if (placement.length > 0) return { status: 400, reason: placement.join('; ') };
      if (mode === 'form' && result.action === 'accept' && pending.params !== undefined) {
        const answer = formAnswerProblems(result.content, pending.params.requestedSchema ?? null);
        if (answer.length > 0) return { status: 400, reason: `requested form schema: ${answer.join('; ')}` };
      }
    }
    this.pending.delete(key);
    const summary = resultSummary({ request: pending.selection, result: resolved.selection }, { request: pending.params, result });
    return { status: 200, receipt: { message, bytes: resolved.bytes === undefined ? '' : toBase64(resolved.bytes), summary } };
  }
}
