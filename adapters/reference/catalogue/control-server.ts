// The catalogue receiver's control listener (CATALOGUE-RULES §4): the lifecycle family's shared
// routes (GET /health, GET /receipts, POST /shutdown) plus only
//
//   POST /wait-observed {eventId, count}  until at least count entries that are `observed` OR
//                                         `rejected` carry eventId
//
// — clients wait after raw probes too, and a rejection is the receiver's answer to one. `eventId` is
// compared as recorded, so `null` waits for notifications that carry no event id. Nothing here
// appends: no marks, releases or emitted frames exist in the catalogue (any extra entry fails §6 (13)).

import type { Server } from 'node:http';

import { jsonEqual } from '../../../harness/protocol/json.ts';
import { answerWait, badRequest, createControlServer, isCount, type ControlCore } from '../lifecycle/control-server.ts';

const DELIVERY_KINDS = new Set(['observed', 'rejected']);

export function createCatalogueControlServer(core: ControlCore): Server {
  return createControlServer(core, {
    '/wait-observed': async (body, response) => {
      const { eventId, count } = body;
      if (eventId === undefined || !isCount(count)) return badRequest(response, 'body must be {eventId: string (or null), count: positive integer}');
      const outcome = await core.receipts.waitFor(
        (entry) => typeof entry.kind === 'string' && DELIVERY_KINDS.has(entry.kind) && jsonEqual(entry.eventId, eventId),
        count,
        core.waitWatchdogMs,
      );
      answerWait(response, outcome, `${count} observation(s) or rejection(s) of ${JSON.stringify(eventId).slice(0, 120)}`, core.waitWatchdogMs);
    },
  });
}
