// The receipt entries a catalogue receiver appends for a notification (CATALOGUE-RULES §4), with
// exactly these keys and `message` exactly as received. The verifier builds the entries it expects
// from the fixture with the same functions, so a receiver that uses them records what it is held to.

import { isJsonObject } from '../../protocol/json.ts';
import type { DeliveryErrorKind, ObservedEntry, RejectedEntry } from './scenario-types.ts';

/** `message.params.event`, when `params` and `event` are objects. */
export function eventOf(message: unknown): unknown {
  const params = isJsonObject(message) ? message.params : undefined;
  return isJsonObject(params) ? params.event : undefined;
}

/** `params.event.id`, or null when there is none (a rejected notification may have no event at all). */
export function eventIdOf(message: unknown): unknown {
  const event = eventOf(message);
  return isJsonObject(event) && event.id !== undefined ? event.id : null;
}

/** `event` is null only for a message without one, which a receiver never observes (the verifier's fixture checks name it). */
export function observedEntry(message: unknown): ObservedEntry {
  return { kind: 'observed', eventId: eventIdOf(message), event: eventOf(message) ?? null, message };
}

export function rejectedEntry(message: unknown, errorKind: DeliveryErrorKind): RejectedEntry {
  return { kind: 'rejected', eventId: eventIdOf(message), message, errorKind };
}
