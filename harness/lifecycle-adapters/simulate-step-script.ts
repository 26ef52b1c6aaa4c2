// A pure model of what an honest SDK lifecycle client and receiver make of one step script
// (LIFECYCLE-RULES §4, §5): the receiver answers attempt n of a request with its n-th scripted
// response and confirms uploads by §3's rules; the client stages the first reply of a still-open
// request, lets a cancel dominate everything after it (also after publication), evaluates effects only
// at acceptance (with the oracle), never publishes a fail-open fallback after a cancel, and reports
// late or surplus replies and stray frames as ignored. The result is the row's `expected` plus a
// trace of why, which the generator's coverage witnesses read.
//
// The model refuses, with a LifecycleSimulationError, every script whose outcome it would have to
// guess: a receive that would wait forever, an observation before settlement, a body reference
// before its upload, a published fail-open fallback (§13: unverifiable), accepting a response the
// oracle rejects, a stray frame that a live request would consume.

import { evaluate } from '../oracle/evaluate.ts';
import { cloneJson, isJsonObject, jsonEqual, type JsonObject } from '../protocol/json.ts';
import type { InterceptRequest } from '../protocol/messages.ts';
import type { ProtocolValidators } from '../protocol/validator-types.ts';
import type {
  LifecycleExpected,
  LifecycleStep,
  ObservationRecord,
  PublishedState,
  RequestId,
  StepScenario,
} from './scenario-types.ts';
import { LifecycleSimulationError } from './simulation-error.ts';
import { receiverUploadOutcome, uploadBytes, UploadLedger, type AliasBinding, type UploadOutcome } from './upload-receiver-model.ts';

/** Where a request stood when a step acted on it. */
export type RequestPhase = 'awaiting-reply' | 'staged' | 'published' | 'cancelled';

export type StepTraceEvent =
  | {
      kind: 'sent';
      step: number;
      id: string;
      slot: string;
      /** 0-based attempt number at the receiver. */
      attempt: number;
      bypassSDK: boolean;
      /** Body aliases the request's own `event.items` carry. */
      bodyAliases: string[];
      /** Intercept attempts awaiting their reply right after this one was sent (this one included). */
      outstanding: number;
    }
  | { kind: 'staged'; step: number; slot: string; id: string; response: JsonObject }
  | {
      kind: 'ignored';
      step: number;
      slot: string;
      id: string;
      /** Why the reply could not be staged. */
      because: 'cancelled' | 'staged' | 'published';
      response: JsonObject;
      /** The response staged for the id when the reply arrived (`because: 'staged'`). */
      staged?: JsonObject;
      /** Other requests of the row that were open (sent, not settled) when the reply arrived. */
      openOthers: string[];
    }
  | { kind: 'cancelled'; step: number; id: string; phase: Exclude<RequestPhase, 'cancelled'>; discarded?: JsonObject }
  | { kind: 'published'; step: number; id: string; state: PublishedState; response: JsonObject }
  | {
      kind: 'no-op';
      step: number;
      op: 'accept' | 'failOpen' | 'cancel';
      id: string;
      because: 'cancelled' | 'published' | 'nothing staged';
      /** Other requests of the row holding a staged reply at that moment. */
      stagedOthers: string[];
    }
  | {
      kind: 'upload';
      step: number;
      alias: string;
      subscription: string;
      outcome: UploadOutcome;
      /** The true size of the bytes sent. */
      size: number;
      /** The alias's binding after the step (unchanged unless the status is 201). */
      binding?: AliasBinding;
      /** A 201 whose bytes the receiver already holds (another alias or an earlier row). */
      sharedRef?: boolean;
      /** The alias's binding before the step, when it had one. */
      previous?: AliasBinding;
    }
  | {
      kind: 'observed';
      step: number;
      id: string;
      eventId: string;
      subscription: string;
      input: JsonObject;
      settledBy: 'published' | 'cancelled';
      /** A reply of the request was still held at the receiver. */
      replyHeld: boolean;
      /** The step's `items`, when it replaces the event's. */
      items?: JsonObject[];
      bodyAliases: string[];
    }
  | { kind: 'unsolicited'; step: number; id: RequestId; relation: 'settled request' | 'unsettled request' | 'unknown id'; live: string[] };

export interface StepSimulation {
  expected: LifecycleExpected;
  trace: StepTraceEvent[];
  /** The most intercept attempts awaiting their reply at once (stdio allows one per backend). */
  maxOutstanding: number;
  /** Whether the script writes unsolicited stdio frames. */
  emits: boolean;
}

type Validators = Pick<ProtocolValidators, 'interceptResponse'>;

interface RequestModel {
  key: string;
  id: string;
  request: InterceptRequest;
  opened: boolean;
  cancelled: boolean;
  published: boolean;
  staged?: JsonObject;
  attempts: number;
  released: boolean;
}

interface SlotModel {
  request: RequestModel;
  response: JsonObject;
  received: boolean;
}

/** The published state of an accepted response: the oracle's result on the keys §4 defines. */
export function publishedStateFor(
  request: InterceptRequest,
  response: unknown,
  validators: Validators,
): { state: PublishedState } | { problem: string } {
  // Lifecycle hosts have no fixture task-input rule: the core contract's evaluation, nothing more.
  const verdict = evaluate(request, response, validators, { hostTaskRule: false });
  if (!verdict.accepted) return { problem: `the oracle rejects it at the ${verdict.layer} layer: ${verdict.reason}` };
  const { decision, executed, input, messages, flow, ...rest } = verdict.result;
  const extra = Object.keys(rest);
  if (extra.length > 0) return { problem: `its result carries ${extra.join(', ')}, which a lifecycle state cannot express` };
  if (input === undefined) return { problem: 'its result has no tool input (lifecycle states exist only at tool boundaries)' };
  if (flow === 'continue') return { problem: 'its result continues the flow, which a lifecycle state cannot express' };
  const state: PublishedState = { decision, executed, input, messages };
  if (flow === 'stop') state.flow = 'stop';
  return { state };
}

/** The body reference aliases of a list of content items (`items[].body.ref`). */
export function bodyAliases(items: unknown): string[] {
  if (!Array.isArray(items)) return [];
  const out: string[] = [];
  for (const item of items) {
    if (isJsonObject(item) && isJsonObject(item.body) && typeof item.body.ref === 'string') out.push(item.body.ref);
  }
  return out;
}

export function simulateStepScript(row: StepScenario, validators: Validators): StepSimulation {
  const fail = (index: number, problem: string): never => {
    throw new LifecycleSimulationError(row.id, `steps[${index}]`, problem);
  };
  const requests = new Map<string, RequestModel>();
  for (const [key, request] of Object.entries(row.requests)) {
    requests.set(key, { key, id: String(request.id), request, opened: false, cancelled: false, published: false, attempts: 0, released: false });
  }
  const requestOf = (index: number, key: string): RequestModel => requests.get(key) ?? fail(index, `names request key ${JSON.stringify(key)}, which the row does not have`);
  const slots = new Map<string, SlotModel>();
  const ledger = new UploadLedger();
  const expected: LifecycleExpected = { published: [], cancelled: [], ignored: [], states: {}, observations: [], uploadStatuses: [] };
  const trace: StepTraceEvent[] = [];
  let maxOutstanding = 0;
  let emits = false;

  const awaiting = (): SlotModel[] => [...slots.values()].filter((slot) => !slot.received);
  const isOpen = (r: RequestModel): boolean => r.opened && !r.cancelled && !r.published;
  const others = (self: RequestModel, which: (r: RequestModel) => boolean): string[] =>
    [...requests.values()].filter((r) => r !== self && which(r)).map((r) => r.id);
  const unboundAliases = (aliases: string[]): string[] => aliases.filter((alias) => ledger.binding(alias) === undefined);
  const phaseOf = (r: RequestModel): Exclude<RequestPhase, 'cancelled'> => (r.published ? 'published' : r.staged !== undefined ? 'staged' : 'awaiting-reply');

  row.steps.forEach((step: LifecycleStep, index) => {
    switch (step.op) {
      case 'send': {
        const r = requestOf(index, step.key);
        if (!step.bypassSDK && r.opened) fail(index, `opens ${r.id} a second time through the SDK (a duplicate attempt must bypass it)`);
        if (step.bypassSDK && !r.opened) fail(index, `replays ${r.id} outside the SDK before the SDK ever opened it`);
        const aliases = bodyAliases(r.request.params.event.items);
        const unbound = unboundAliases(aliases);
        if (unbound.length > 0) fail(index, `sends ${r.id} with body reference(s) ${unbound.join(', ')} before a confirmed upload`);
        const sequence = row.responseSequences?.[step.key];
        const response = sequence?.[r.attempts] ?? row.responses[step.key] ?? fail(index, `${r.id} has no scripted reply for attempt ${r.attempts}`);
        slots.set(step.slot, { request: r, response, received: false });
        if (!step.bypassSDK) r.opened = true;
        const outstanding = awaiting().length;
        maxOutstanding = Math.max(maxOutstanding, outstanding);
        trace.push({ kind: 'sent', step: index, id: r.id, slot: step.slot, attempt: r.attempts, bypassSDK: step.bypassSDK === true, bodyAliases: aliases, outstanding });
        r.attempts += 1;
        break;
      }
      case 'wait': {
        const r = requestOf(index, step.key);
        if (step.count > r.attempts) fail(index, `waits for ${step.count} attempt(s) of ${r.id}, but only ${r.attempts} were sent: it would wait forever`);
        break;
      }
      case 'release':
        requestOf(index, step.key).released = true;
        break;
      case 'receive': {
        const slot = slots.get(step.slot) ?? fail(index, `receives slot ${JSON.stringify(step.slot)}, which no earlier send opened`);
        if (slot.received) fail(index, `receives slot ${JSON.stringify(step.slot)} a second time`);
        const r = slot.request;
        if (!r.released) fail(index, `receives slot ${JSON.stringify(step.slot)} before ${r.id} is released: it would wait forever`);
        slot.received = true;
        if (isOpen(r) && r.staged === undefined) {
          const check = validators.interceptResponse(slot.response);
          if (!check.valid) fail(index, `stages a schema-invalid reply for ${r.id} (${check.errors.slice(0, 2).join('; ')}); the model does not guess the failure handling`);
          r.staged = slot.response;
          trace.push({ kind: 'staged', step: index, slot: step.slot, id: r.id, response: slot.response });
        } else {
          const because = r.cancelled ? 'cancelled' : r.published ? 'published' : 'staged';
          const event: StepTraceEvent = { kind: 'ignored', step: index, slot: step.slot, id: r.id, because, response: slot.response, openOthers: others(r, isOpen) };
          if (because === 'staged' && r.staged !== undefined) event.staged = r.staged;
          trace.push(event);
          expected.ignored.push(step.slot);
        }
        break;
      }
      case 'cancel': {
        const r = requestOf(index, step.key);
        if (!r.opened) fail(index, `cancels ${r.id}, which was never opened`);
        if (r.cancelled) {
          trace.push({ kind: 'no-op', step: index, op: 'cancel', id: r.id, because: 'cancelled', stagedOthers: [] });
          break;
        }
        const event: StepTraceEvent = { kind: 'cancelled', step: index, id: r.id, phase: phaseOf(r) };
        if (!r.published && r.staged !== undefined) event.discarded = r.staged;
        r.cancelled = true;
        r.staged = undefined;
        trace.push(event);
        expected.cancelled.push(r.id);
        break;
      }
      case 'accept': {
        const r = requestOf(index, step.key);
        const stagedOthers = others(r, (o) => o.staged !== undefined && !o.cancelled && !o.published);
        if (r.cancelled || r.published || r.staged === undefined) {
          const because = r.cancelled ? 'cancelled' : r.published ? 'published' : 'nothing staged';
          trace.push({ kind: 'no-op', step: index, op: 'accept', id: r.id, because, stagedOthers });
          break;
        }
        const outcome = publishedStateFor(r.request, r.staged, validators);
        if ('problem' in outcome) return fail(index, `accepts the reply staged for ${r.id}, but ${outcome.problem}`);
        r.published = true;
        expected.published.push(r.id);
        expected.states[r.id] = outcome.state;
        trace.push({ kind: 'published', step: index, id: r.id, state: outcome.state, response: r.staged });
        r.staged = undefined;
        break;
      }
      case 'failOpen': {
        const r = requestOf(index, step.key);
        if (r.cancelled || r.published) {
          trace.push({ kind: 'no-op', step: index, op: 'failOpen', id: r.id, because: r.cancelled ? 'cancelled' : 'published', stagedOthers: [] });
          break;
        }
        return fail(index, `a fail-open fallback for the unsettled ${r.id} would publish without an acquired reply, which the runner cannot verify (LIFECYCLE-RULES §13)`);
      }
      case 'upload': {
        const sent = uploadBytes(step) ?? fail(index, 'has bytes that are not strict base64 or well-formed text');
        const outcome = receiverUploadOutcome(step, sent);
        expected.uploadStatuses.push(outcome.status);
        const previous = ledger.binding(step.ref);
        const event: StepTraceEvent = { kind: 'upload', step: index, alias: step.ref, subscription: step.subscription, outcome, size: sent.size };
        if (previous !== undefined) event.previous = previous;
        if (outcome.status === 201) {
          const confirmed = ledger.confirm(step.ref, sent);
          event.binding = confirmed.binding;
          event.sharedRef = confirmed.sharedRef;
        } else if (previous !== undefined) {
          event.binding = previous;
        }
        trace.push(event);
        break;
      }
      case 'observe': {
        const r = requestOf(index, step.key);
        if (!r.published && !r.cancelled) fail(index, `observes ${r.id} before it is settled (published or cancelled)`);
        const event = r.request.params.event;
        const items = step.items ?? event.items;
        const aliases = bodyAliases(items);
        const unbound = unboundAliases(aliases);
        if (unbound.length > 0) fail(index, `observes ${r.id} with body reference(s) ${unbound.join(', ')} before a confirmed upload`);
        const state = expected.states[r.id];
        const input = cloneJson(state?.input ?? event.tool?.input) ?? fail(index, `observes ${r.id}, whose event has no tool input to report`);
        const record: ObservationRecord = { eventId: event.id, subscription: step.subscription, input };
        expected.observations.push(record);
        const replyHeld = [...slots.values()].some((slot) => slot.request === r && !slot.received && !r.released);
        const observed: StepTraceEvent = {
          kind: 'observed',
          step: index,
          id: r.id,
          eventId: event.id,
          subscription: step.subscription,
          input: cloneJson(input),
          settledBy: r.published ? 'published' : 'cancelled',
          replyHeld,
          bodyAliases: aliases,
        };
        if (step.items !== undefined) observed.items = step.items;
        trace.push(observed);
        break;
      }
      case 'emit': {
        emits = true;
        const id = step.response.id as RequestId;
        const live = awaiting().map((slot) => slot.request.id);
        if (live.includes(String(id))) fail(index, `writes a stray frame with id ${JSON.stringify(id)} while a reply for that id is still awaited: the live request would consume it`);
        const known = [...requests.values()].find((r) => jsonEqual(r.request.id, id));
        const relation = known === undefined ? 'unknown id' : known.published || known.cancelled ? 'settled request' : 'unsettled request';
        trace.push({ kind: 'unsolicited', step: index, id, relation, live });
        expected.ignored.push(`unsolicited:${String(id)}`);
        break;
      }
    }
  });
  return { expected, trace, maxOutstanding, emits };
}
