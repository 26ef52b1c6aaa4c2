// How the catalogue client reaches the receiver's event side (CATALOGUE-RULES §4, §5): one JSON-RPC
// discovery exchange, and notifications. Over HTTP discovery is `POST <endpoint>/capabilities` and a
// notification `POST <endpoint>/observe`, both with the mode's event credentials, and the receiver's
// status is handed back for the caller to judge (the SDK path and the raw path tolerate different
// ones). Over stdio discovery is a line answered by the line with its id, and a notification is one
// line that gets no answer (so it has no status).

import type { JsonObject } from '../../../harness/protocol/json.ts';
import type { Received } from '../lib/channel.ts';
import type { HttpChannel } from '../lib/http-channel.ts';
import type { EventLink } from '../lifecycle/receiver-connection.ts';

export type Notified = { ok: true; /** HTTP only. */ status?: number } | { ok: false; error: string };

export interface CatalogueTransport {
  discover(request: JsonObject): Promise<Received>;
  notify(message: unknown): Promise<Notified>;
}

export function catalogueTransport(link: EventLink, timeouts: { requestMs: number; observeMs: number }): CatalogueTransport {
  if (link.transport === 'http') return httpTransport(link.channel, timeouts);
  const { child } = link;
  return {
    discover: (request) => child.send(request),
    notify: (message) => child.observe(message as JsonObject),
  };
}

function httpTransport(channel: HttpChannel, timeouts: { requestMs: number; observeMs: number }): CatalogueTransport {
  return {
    discover: (request) => channel.discoverByPost(request, timeouts.requestMs),
    notify: (message) => channel.postNotification(message, timeouts.observeMs),
  };
}
