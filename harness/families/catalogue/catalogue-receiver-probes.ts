// Harness-driven probes of a catalogue receiver (CATALOGUE-RULES §4): the messages no client
// following the rules can send, because the client waits on the event id after every send (§5), so
// the harness sends them itself on the raw wire, with the client's event auth of the mode, to a
// fresh HTTP catalogue server, and judges the receiver by its receipts.
//
// One such message today: a `hooks/observe` notification without `params.event`. What the rules
// make of it (§4 Observe): it fails the observe-notification schema, so the receiver appends exactly
// `{kind:"rejected", eventId:null, message, errorKind:"schema"}` with the message as received; the
// answer's status is not checked (the references answer 400), but there must be an answer; and a
// rejection never stops the receiver. So the probes are:
//
//   event-less-observation     the notification without an event is recorded as that one rejection
//   observes-after-event-less  an ordinary notification sent next is observed (exactly its entry),
//                              after the rejection, and nothing else was recorded
//
// The ordinary notification is also the rendezvous: it is sent only once the event-less one was
// answered (a receiver records before it answers), and `POST /wait-observed` on its own event id
// returns once the receiver recorded it, so the receipts read after that hold both entries — no
// sleeping, every call bounded.

import { boundedJsonRequest, RequestFailure } from '../../adapters/control-client.ts';
import type { ClientAuthSettings } from '../../auth/auth-settings.ts';
import { describeAnswer, eventWire } from '../../auth/event-auth-wire.ts';
import { isJsonObject, jsonEqual, type JsonObject } from '../../protocol/json.ts';
import { describeValue, parseJsonText } from '../../protocol/json-text.ts';
import { observedEntry, rejectedEntry } from './receipt-entries.ts';
import type { CatalogueScenario } from './scenario-types.ts';
import type { ReceiverProbeFamily } from '../../lifecycle-adapters/receiver-probe-suite.ts';

export const CATALOGUE_RECEIVER_PROBES = [
  { name: 'event-less-observation', label: 'observation without an event recorded as a schema rejection with eventId null' },
  { name: 'observes-after-event-less', label: 'receiver still observes after rejecting an observation without an event' },
] as const;

export type CatalogueReceiverProbeName = (typeof CATALOGUE_RECEIVER_PROBES)[number]['name'];

/** Each probe's problem (`<label>: expected <x>, got <y>`), or undefined when it passed. */
export type CatalogueReceiverProbeResults = Record<CatalogueReceiverProbeName, string | undefined>;

/** What the first probe sends: an observe notification whose params carry no event. */
export const EVENT_LESS_OBSERVATION: JsonObject = { jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft' } };

/** The event id of the ordinary notification sent after it. */
export const FOLLOW_UP_EVENT_ID = 'catalogue-receiver-probe-event';

export interface CatalogueReceiverProbeTarget {
  /** The server's event endpoint (base URL or `…/intercept`), https under mtls. */
  endpoint: string;
  controlEndpoint: string;
  /** The client config's `auth` of the server's mode: the event auth observes are sent with. */
  clientAuth: ClientAuthSettings;
  /** The rows the follow-up event is taken from: the first notification the file expects accepted. */
  rows: CatalogueScenario[];
  timeoutMs?: number;
}

export async function runCatalogueReceiverProbes(target: CatalogueReceiverProbeTarget): Promise<CatalogueReceiverProbeResults> {
  const timeoutMs = target.timeoutMs ?? 5000;
  const followUp = followUpNotification(target.rows);
  const label = (name: CatalogueReceiverProbeName): string => CATALOGUE_RECEIVER_PROBES.find((probe) => probe.name === name)!.label;
  const both = (problem: string): CatalogueReceiverProbeResults => ({
    'event-less-observation': `${label('event-less-observation')}: ${problem}`,
    'observes-after-event-less': `${label('observes-after-event-less')}: ${problem}`,
  });

  const before = await receiptEntries(target.controlEndpoint, timeoutMs);
  if (typeof before === 'string') return both(`expected the receipts before probing (GET /receipts), got ${before}`);

  const wire = await eventWire(target.clientAuth, target.endpoint);
  let eventLess;
  let followed;
  try {
    eventLess = await wire.observe(EVENT_LESS_OBSERVATION, timeoutMs);
    followed = await wire.observe(followUp, timeoutMs);
  } finally {
    await wire.close();
  }
  const waited = await waitObserved(target.controlEndpoint, FOLLOW_UP_EVENT_ID, timeoutMs);
  const after = await receiptEntries(target.controlEndpoint, timeoutMs);
  if (typeof after === 'string') return both(`expected the receipts after probing (GET /receipts), got ${after}`);
  if (after.length < before.length || !jsonEqual(after.slice(0, before.length), before)) {
    return both(`expected the receipts before probing to stay as they were, got ${after.length} entries where ${before.length} were (did the receiver restart?)`);
  }
  const fresh = after.slice(before.length);

  const results = {} as CatalogueReceiverProbeResults;
  const rejection = rejectedEntry(EVENT_LESS_OBSERVATION, 'schema');
  const aboutEventLess = fresh.filter((entry) => isJsonObject(entry) && jsonEqual(entry.message, EVENT_LESS_OBSERVATION));
  const eventLessProblem =
    eventLess.status === null
      ? `expected an HTTP answer (the rules leave its status unchecked), got ${describeAnswer(eventLess)}`
      : aboutEventLess.length !== 1
        ? `expected exactly one receipt {kind:"rejected", eventId:null, errorKind:"schema"} holding the message as sent, got ${aboutEventLess.length === 0 ? 'none' : `${aboutEventLess.length}: ${aboutEventLess.map(describeEntry).join(', ')}`} (answered ${describeAnswer(eventLess)})`
        : !jsonEqual(aboutEventLess[0], rejection)
          ? `expected exactly {kind:"rejected", eventId:null, message, errorKind:"schema"}, got ${describeEntry(aboutEventLess[0])} (answered ${describeAnswer(eventLess)})`
          : undefined;
  results['event-less-observation'] = eventLessProblem === undefined ? undefined : `${label('event-less-observation')}: ${eventLessProblem}`;

  const observed = observedEntry(followUp);
  const others = fresh.filter((entry) => !jsonEqual(entry, observed) && !aboutEventLess.includes(entry));
  const followIndex = fresh.findIndex((entry) => jsonEqual(entry, observed));
  const rejectionIndex = fresh.findIndex((entry) => jsonEqual(entry, rejection));
  const followProblem =
    followed.status === null
      ? `expected an HTTP answer to the notification sent next, got ${describeAnswer(followed)}`
      : waited !== undefined
        ? `expected POST /wait-observed {eventId:${JSON.stringify(FOLLOW_UP_EVENT_ID)}, count:1} to return, got ${waited}`
        : fresh.filter((entry) => jsonEqual(entry, observed)).length !== 1
          ? `expected exactly one {kind:"observed"} receipt of the notification sent next, got ${fresh.filter((entry) => jsonEqual(entry, observed)).length}`
          : rejectionIndex > followIndex
            ? 'expected the rejection recorded before the notification sent after it, got it after'
            : others.length > 0
              ? `expected no receipt beyond the two the probes account for, got ${others.map(describeEntry).join(', ')}`
              : undefined;
  results['observes-after-event-less'] = followProblem === undefined ? undefined : `${label('observes-after-event-less')}: ${followProblem}`;
  return results;
}

/** The first notification the file expects accepted, as a fresh event: id FOLLOW_UP_EVENT_ID, no parent. */
function followUpNotification(rows: CatalogueScenario[]): JsonObject {
  for (const row of rows) {
    let k = 0;
    for (const step of row.steps) {
      if (step.op === 'register') continue;
      const accepted = row.expected.deliveries[k]?.accepted === true;
      k += 1;
      const params = step.message.params;
      if (step.op !== 'notify' || !accepted || !isJsonObject(params) || !isJsonObject(params.event)) continue;
      const { parentEventId: _parent, ...event } = params.event;
      return { ...step.message, params: { ...params, event: { ...event, id: FOLLOW_UP_EVENT_ID } } };
    }
  }
  throw new Error('catalogue receiver probes: the scenario file has no notify step expected to be accepted (the follow-up notification is taken from the first one)');
}

/** `observed of "x"`, `rejected (schema) of null`: kind, errorKind and event id, never the message. */
function describeEntry(entry: unknown): string {
  if (!isJsonObject(entry)) return describeValue(entry);
  const errorKind = entry.errorKind === undefined ? '' : ` (${describeValue(entry.errorKind)})`;
  const keys = Object.keys(entry).sort().join(',');
  return `${describeValue(entry.kind)}${errorKind} of event id ${describeValue(entry.eventId)} with keys ${keys}`;
}

/** The receiver's `{entries}` as an array, or why it could not be read. */
async function receiptEntries(controlEndpoint: string, timeoutMs: number): Promise<unknown[] | string> {
  const answer = await control(controlEndpoint, 'GET', 'receipts', undefined, timeoutMs);
  if (typeof answer === 'string') return answer;
  const parsed = parseJsonText(answer.text);
  if (!parsed.ok) return `a body that is not JSON ${parsed.where}`;
  if (!isJsonObject(parsed.value) || !Array.isArray(parsed.value.entries)) return 'a body that is not {entries:[...]}';
  return parsed.value.entries;
}

/** undefined once the receiver recorded `eventId`; otherwise why not. */
async function waitObserved(controlEndpoint: string, eventId: string, timeoutMs: number): Promise<string | undefined> {
  const answer = await control(controlEndpoint, 'POST', 'wait-observed', { eventId, count: 1 }, timeoutMs);
  return typeof answer === 'string' ? answer : undefined;
}

/** A 200's body text, or a description of what came instead. */
async function control(controlEndpoint: string, method: 'GET' | 'POST', route: string, body: unknown, timeoutMs: number): Promise<{ text: string } | string> {
  const url = new URL(route, controlEndpoint.endsWith('/') ? controlEndpoint : `${controlEndpoint}/`);
  try {
    const response = await boundedJsonRequest(url, method, body === undefined ? undefined : JSON.stringify(body), timeoutMs);
    return response.status === 200 ? { text: response.text } : `HTTP ${response.status}`;
  } catch (error) {
    if (!(error instanceof RequestFailure)) throw error;
    return error.kind === 'timeout' ? `no answer within ${timeoutMs} ms` : `no answer (${error.code})`;
  }
}

/** The catalogue receiver's answer to what no client sends (catalogue-receiver-probes.ts). */
export function catalogueReceiverProbes(rows: CatalogueScenario[]): ReceiverProbeFamily {
  return {
    suite: 'catalogue',
    probes: CATALOGUE_RECEIVER_PROBES,
    run: (server, clientAuth) => runCatalogueReceiverProbes({ endpoint: server.endpoint, controlEndpoint: server.controlEndpoint, clientAuth, rows }),
  };
}
