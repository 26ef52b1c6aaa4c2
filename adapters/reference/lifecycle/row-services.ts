// What running one lifecycle row needs, shared by step scripts and observation chains, and what a
// row run yields: its `actual` (complete, or as far as it got) and, when a local failure ended it,
// the label of that failure.

import type { InterceptEvent } from '../../../harness/protocol/messages.ts';
import { settledObservation } from '../../../harness/families/lifecycle/observe-message.ts';
import type { JsonObject } from '../../../harness/protocol/json.ts';
import type { ProtocolValidators } from '../../../harness/protocol/validator-types.ts';
import type { Log } from '../lib/log.ts';
import { assertBodiesReady } from './body-refs.ts';
import type { EventTransport } from './event-transport.ts';
import type { ReceiverControl } from './receiver-control.ts';
import { RowFailure } from './row-failure.ts';
import type { Uploads } from './uploads.ts';

export interface RowServices {
  events: EventTransport;
  control: ReceiverControl;
  uploads: Uploads;
  validators: ProtocolValidators;
  /** eventId → observations this client sent for it so far (the running total /wait-observed waits for). */
  observedCounts: Map<string, number>;
  /** Bound on a stray frame's discard rendezvous. */
  strayMs: number;
  log: Log;
}

export interface RowOutcome<A> {
  actual: A;
  /** Set when a local failure ended the row; `actual` then holds what happened before it. */
  error?: string;
}

/**
 * Sends the settled observation of `event` (`input` and `items` replace the event's when given),
 * then waits until the receiver recorded it. Returns the `tool.input` the notification carried.
 */
export async function observeSettled(
  services: RowServices,
  event: InterceptEvent,
  input: JsonObject | undefined,
  items: readonly JsonObject[] | undefined,
  what: string,
): Promise<JsonObject> {
  assertBodiesReady((items ?? event.items) as JsonObject[] | undefined, services.uploads.bindings, what);
  const notification = settledObservation(event, input, items, services.uploads.bindings);
  const delivered = await services.events.observe(notification as unknown as JsonObject);
  if (!delivered.ok) throw new RowFailure(`${what}: ${delivered.error}`);
  const eventId = notification.params.event.id;
  const count = (services.observedCounts.get(eventId) ?? 0) + 1;
  services.observedCounts.set(eventId, count);
  await services.control.waitObserved(eventId, count);
  return notification.params.event.tool?.input ?? {};
}
