// The host run's verdicts (COMPACTION-RULES §7, per case rather than first failure): the host's
// outputs against the simulator's expectations, its trace exchange by exchange, the receiver's
// receipts matched by subscription (event ids repeat across cases' exchanges, subscriptions never),
// and — our additions — each receipt's reply against the receiver's own config, the hook order, and
// on stdio what the recorder saw cross the wire, which decides whether a disagreement between trace
// and receipt is the sender's or the receiver's.

import { isJsonObject, jsonEqual, type JsonObject } from '../../../protocol/json.ts';
import type { CompactionCase, ReceiverAction } from '../case-types.ts';
import { receiverEffects } from '../simulate.ts';
import { tryInlineText } from '../text-parts.ts';
import { LABEL, type CompactionCheck, type CompactionParty } from './labels.ts';
import { pyRepr, pyTuple } from './py-repr.ts';
import type { StdioWireRecord } from './wire-record.ts';

export interface HostEvidence {
  /** The cases the host was given, in plan order. */
  cases: readonly CompactionCase[];
  /** The host's stdout, parsed. */
  outputs: unknown;
  /** Every receipt line the receivers wrote during the host run, parsed. */
  receipts: readonly unknown[];
  /** The receivers' subscription config. */
  subscriptions: Readonly<Record<string, ReceiverAction>>;
  /** stdio only: every receiver process the sender spawned. */
  wire?: readonly StdioWireRecord[];
}

export interface HostVerification {
  /** Case id → its failures (empty: passed). */
  rows: Map<string, CompactionCheck[]>;
  /** Failures that belong to no case; no case of the run may pass with one. */
  pair: CompactionCheck[];
}

type Record_ = { [key: string]: unknown };
const obj = (value: unknown): Record_ | undefined => (isJsonObject(value) ? (value as Record_) : undefined);

export function verifyHostRun(evidence: HostEvidence): HostVerification {
  const rows = new Map<string, CompactionCheck[]>(evidence.cases.map((c) => [c.id, []]));
  const pair: CompactionCheck[] = [];
  const caseOfScope = new Map<string, string>();
  for (const c of evidence.cases) for (const b of ['before', 'after'] as const) c[b].forEach((_h, i) => caseOfScope.set(`${c.id}-${b}-${i}`, c.id));

  if (!Array.isArray(evidence.outputs)) {
    pair.push({ label: LABEL.hostOutput, party: 'sender', message: `the host's stdout is not a JSON array of case outputs (got ${describe(evidence.outputs)})` });
    return { rows, pair };
  }
  const outputs = evidence.outputs as unknown[];
  if (outputs.length !== evidence.cases.length) {
    pair.push({ label: LABEL.caseCount, party: 'sender', message: `the host reported ${outputs.length} case outputs for the ${evidence.cases.length} cases of its plan` });
  }
  const byName = new Map<unknown, unknown>();
  for (const output of outputs) byName.set(obj(output)?.name, output);

  const receipts = evidence.receipts.map(obj);
  const matched = new Set<number>();
  /** Every subscription some case's chain sent a hooks/intercept to. */
  const called = new Set<unknown>();
  const wireOf = (scope: string) => (evidence.wire ?? []).filter((record) => !record.probe && record.scope === scope);

  for (const c of evidence.cases) {
    const fail = (label: string, party: CompactionParty, message: string) => rows.get(c.id)!.push({ label, party, message });
    const output = obj(byName.get(c.id));
    if (!output) {
      fail(LABEL.caseCount, 'sender', `the host's output has no case named ${JSON.stringify(c.id)} (KeyError: ${pyRepr(c.id)})`);
      continue;
    }
    const expected = c.expected;
    const result = obj(output.result) ?? {};
    if (!obj(output.result)) fail(LABEL.hostOutput, 'sender', `case ${c.id}: result is ${describe(output.result)}, not an object`);
    const bodies = result.bodies;
    if (bodies !== undefined && bodies !== null && !(Array.isArray(bodies) ? bodies.length === 0 : obj(bodies) && Object.keys(bodies as object).length === 0)) {
      fail(LABEL.bodies, 'sender', `result.bodies is ${describe(bodies)}: text is inline, nothing may be uploaded`);
    }
    const instructions = tryInlineText(result.instructions);
    if (!instructions.ok || instructions.text !== expected.instructions) {
      fail(LABEL.instructions, 'sender', `${pyTuple(c.id, 'instructions')}: ${instructions.ok ? `got ${JSON.stringify(instructions.text)}` : `not inline text (${instructions.why})`}, expected ${JSON.stringify(expected.instructions)}`);
    }
    for (const key of ['generated', 'applied'] as const) {
      if (result[key] !== expected[key]) fail(LABEL[key], 'sender', pyTuple(c.id, key, result[key], expected[key]));
    }
    const failures = result.failures;
    if (!Array.isArray(failures) || failures.length !== expected.failures) {
      fail(LABEL.failurePolicy, 'sender', `${pyTuple(c.id, 'failure policy')}: ${Array.isArray(failures) ? failures.length : describe(failures)} failures reported, expected ${expected.failures}`);
    }
    if (!jsonEqual(result.messages, [])) fail(LABEL.messageLeak, 'sender', `${pyTuple(c.id, 'staged message leak')}: messages ${describe(result.messages)}, expected []`);
    const summary = result.summary === null ? ({ ok: true, text: null } as const) : tryInlineText(result.summary);
    const summaryText = summary.ok ? summary.text : undefined;
    if (!summary.ok || summaryText !== expected.summary) {
      fail(LABEL.summary, 'sender', summary.ok ? pyTuple(c.id, 'summary', summaryText, expected.summary) : `${pyTuple(c.id, 'summary')}: not inline text or null (${summary.why}), expected ${JSON.stringify(expected.summary)}`);
    }
    if (!jsonEqual(output.downstream, expected.downstream)) {
      fail(LABEL.downstream, 'sender', `${pyTuple(c.id, 'downstream application')}: got ${describe(output.downstream)}, expected ${JSON.stringify(expected.downstream)}`);
    }
    if ((instructions.ok && instructions.text === 'leaked') || summaryText === 'leaked') {
      fail(LABEL.contentLeak, 'sender', `${pyTuple(c.id, 'staged content leak')}: a rejected compound's text reached the ${instructions.ok && instructions.text === 'leaked' ? 'instructions' : 'summary'}`);
    }

    const fullTrace = Array.isArray(output.trace) ? (output.trace as unknown[]) : [];
    if (!Array.isArray(output.trace)) fail(LABEL.hostOutput, 'sender', `case ${c.id}: trace is ${describe(output.trace)}, not an array`);
    const intercepted = new Set(fullTrace.filter((entry) => !isObservation(obj(entry))).map((entry) => obj(entry)?.subscription));
    for (const scope of intercepted) called.add(scope);
    // A host may send hooks/observe to the subscriptions its chain never called (composition.md,
    // "Observers"); observation is out of this family's scope (rules §12), so such entries are set
    // aside. One to a subscription that was called stays in: it gets no automatic second copy.
    const trace = fullTrace.filter((entry) => !(isObservation(obj(entry)) && !intercepted.has(obj(entry)?.subscription)));
    if (trace.length !== expected.seen.length) fail(LABEL.missingHooks, 'sender', pyTuple(c.id, 'missing wire hooks', trace.length, expected.seen.length));
    const order = trace.map((entry) => obj(entry)?.subscription);
    const wantedOrder = expected.exchanges.map((e) => e.subscription);
    if (!jsonEqual(order, wantedOrder)) fail(LABEL.hookOrder, 'sender', `the trace calls the scopes ${JSON.stringify(order)}, expected ${JSON.stringify(wantedOrder)} (hooks run one at a time in declared order)`);

    const serial: unknown[] = [];
    trace.forEach((raw, i) => {
      const entry = obj(raw) ?? {};
      const at = `trace[${i}]`;
      const subscription = entry.subscription;
      const request = obj(entry.request) ?? {};
      const response = obj(entry.response) ?? {};
      const params = obj(request.params) ?? {};
      const event = obj(params.event) ?? {};
      const type = typeof event.type === 'string' ? event.type : '';
      const boundary = type.split('.').pop() ?? '';
      // a. the request's identity
      if (request.method !== 'hooks/intercept' || request.id !== event.id || request.id !== `${c.id}:${boundary}`) {
        fail(LABEL.wire, 'sender', `${at}: request method ${describe(request.method)}, id ${describe(request.id)}, event id ${describe(event.id)}; expected hooks/intercept with both ids "${c.id}:${boundary}"`);
      }
      // b. the reply's envelope
      const replyResult = obj(response.result);
      if (response.jsonrpc !== '2.0' || response.id !== request.id || replyResult?.protocolVersion !== 'draft') {
        fail(LABEL.wire, 'either', `${at}: reply jsonrpc ${describe(response.jsonrpc)}, id ${describe(response.id)}, result.protocolVersion ${describe(replyResult?.protocolVersion)}; expected "2.0", the request id and "draft"`);
      }
      // c./d. the receipt of this subscription
      const wire = typeof subscription === 'string' ? wireOf(subscription) : [];
      const found = receipts.flatMap((receipt, index) => (receipt && jsonEqual(receipt.subscription, subscription) ? [index] : []));
      for (const index of found) matched.add(index);
      if (found.length !== 1) {
        fail(LABEL.receiptCount, receiptCountParty(evidence.wire, wire, found.length), `${pyTuple(c.id, 'receiver receipt count', subscription)}: ${found.length} receipts${evidence.wire ? `; the sender spawned ${wire.length} receiver(s) for this scope` : ''}`);
      } else {
        const receipt = receipts[found[0]!]!;
        if (!jsonEqual(receipt.request, entry.request) || !jsonEqual(receipt.response, entry.response)) {
          fail(LABEL.wireEvidence, wireEvidenceParty(evidence.wire, wire[0], receipt, entry), `${at} (${String(subscription)}): the trace's ${jsonEqual(receipt.request, entry.request) ? 'response' : 'request'} differs from the receiver's receipt`);
        }
        // ours: the receiver answered from its config, derived from the text it received
        const action = typeof subscription === 'string' ? evidence.subscriptions[subscription] : undefined;
        const receivedEvent = obj(obj(obj(receipt.request)?.params)?.event);
        const received = tryInlineText(boundary === 'after' ? receivedEvent?.summary : receivedEvent?.instructions);
        const effects = obj(obj(receipt.response)?.result)?.effects;
        if (action && received.ok && !jsonEqual(effects, receiverEffects(action, received.text))) {
          fail(LABEL.receiverReply, 'receiver', `${String(subscription)}: the receiver answered effects ${describe(effects)}; its config (${action.kind}) makes ${JSON.stringify(receiverEffects(action, received.text))} of the text it received`);
        }
      }
      // e. the serial text
      const text = tryInlineText(boundary === 'after' ? event.summary : event.instructions);
      serial.push(text.ok ? text.text : `<not inline text: ${text.why}>`);
      if (!text.ok) fail(LABEL.wire, 'sender', `${at}: the event's ${boundary === 'after' ? 'summary' : 'instructions'} is not inline text (${text.why})`);
      // f.–i.
      if (type !== `context.compact.${boundary}` || (boundary !== 'before' && boundary !== 'after')) fail(LABEL.canonicalEvent, 'sender', `${at}: event type ${describe(event.type)}`);
      if ('subscriptionId' in params) fail(LABEL.subscriptionIdentity, 'sender', `${at}: params carries subscriptionId ${describe(params.subscriptionId)}; the scope travels in the credential or argv`);
      const target = boundary === 'after' ? 'summary' : 'instructions';
      const modify = obj(obj(params.capabilities)?.modify);
      const ops = obj(modify?.[target]);
      const shapeOk = modify !== undefined && Object.keys(modify).length === 1 && ops !== undefined && Object.keys(ops).length === 2 && ops.replace === true && typeof ops.merge === 'boolean';
      if (!shapeOk) fail(LABEL.wire, 'sender', `${at}: capabilities.modify is ${describe(obj(params.capabilities)?.modify)}, expected exactly {${target}: {replace: true, merge: <boolean>}}`);
      if (boundary === 'after') {
        const generated = expected.generated;
        const execution = generated ? { status: 'executed' } : { status: 'skipped', reason: 'supplied_result' };
        if (event.parentEventId !== `${c.id}:before` || !jsonEqual(event.removed, [{ id: `${c.id}:context` }]) || !jsonEqual(event.execution, execution)) {
          fail(LABEL.wire, 'sender', `${at}: parentEventId ${describe(event.parentEventId)}, removed ${describe(event.removed)}, execution ${describe(event.execution)}; expected "${c.id}:before", [{"id":"${c.id}:context"}], ${JSON.stringify(execution)}`);
        }
      }
    });
    if (!jsonEqual(serial, expected.seen)) fail(LABEL.serial, 'sender', pyTuple(c.id, 'serial wire bytes', serial, expected.seen));

    // ours, stdio: a receiver process that answered with more than one line
    for (const scope of wantedOrder) {
      for (const record of wireOf(scope)) {
        if (record.replies.length > record.requests.length) fail(LABEL.stdioExtraOutput, 'receiver', `receiver #${record.instance} (${scope}) wrote ${record.replies.length} lines for ${record.requests.length} request(s); stdout holds exactly one reply line per request`);
      }
    }
  }

  // 13. receipts no trace entry accounts for: the case of their scope when there is one
  receipts.forEach((receipt, index) => {
    if (matched.has(index)) return;
    const scope = receipt?.subscription;
    if (isObservation(receipt) && !called.has(scope)) return; // an observation of an uncalled subscription (see the trace above)
    const owner = typeof scope === 'string' ? caseOfScope.get(scope) : undefined;
    const check: CompactionCheck = { label: LABEL.unmatched, party: 'either', message: `receipt line ${index + 1} (${describe(scope)}) matches no exchange of the host's trace` };
    if (owner !== undefined) rows.get(owner)!.push(check);
    else pair.push(check);
  });
  return { rows, pair };
}

/** A trace entry or receipt of a `hooks/observe` request. */
function isObservation(record: Record_ | undefined): boolean {
  return obj(record?.request)?.method === 'hooks/observe';
}

/** 11c's party: on stdio, whether the sender spawned a receiver for the scope decides it. */
function receiptCountParty(wire: readonly StdioWireRecord[] | undefined, records: readonly StdioWireRecord[], receipts: number): CompactionParty {
  if (!wire) return 'either';
  if (records.length === 0 && receipts === 0) return 'sender'; // the trace claims an exchange nobody received
  if (records.length > 1) return 'sender'; // the hook was called more than once
  return 'receiver'; // one process got the request; its receipt count is its own
}

/** 11d's party: on stdio, compare both sides with what crossed the wire. */
function wireEvidenceParty(wire: readonly StdioWireRecord[] | undefined, record: StdioWireRecord | undefined, receipt: Record_, entry: Record_): CompactionParty {
  if (!wire || !record) return 'either';
  const sent = record.requests[0];
  const answered = record.replies[0];
  if (!jsonEqual(receipt.request, sent) || !jsonEqual(receipt.response, answered)) return 'receiver';
  if (!jsonEqual(entry.request, sent) || !jsonEqual(entry.response, answered)) return 'sender';
  return 'either';
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}
