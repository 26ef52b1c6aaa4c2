// The canonical `hooks/intercept` request of one compaction hook call, built from the runtime's
// current snapshot (never from an expected value). The JSON-RPC id is the event id; the request names
// no subscription — the receiver knows its scope from its credential (HTTP) or its argv (stdio).

import type { JsonObject } from '../../../harness/protocol/json.ts';
import { boundaryCapabilities } from './boundary.ts';
import type { HookSnapshot } from './runtime.ts';
import { textParts } from './text-parts.ts';

export const HOST_SOURCE = 'urn:ahp:compaction-host';
/** A fixed event time: the wire matrix compares requests byte for byte across runs. */
export const HOST_TIME = '2026-09-15T12:00:00Z';

export function compactionRequest(caseName: string, snapshot: HookSnapshot): JsonObject {
  const id = `${caseName}:${snapshot.boundary}`;
  const event: JsonObject = {
    id,
    type: `context.compact.${snapshot.boundary}`,
    source: HOST_SOURCE,
    time: HOST_TIME,
    session: { id: caseName },
    items: [{ id: `${caseName}:context`, role: 'user', parts: textParts('conversation') }],
  };
  if (snapshot.boundary === 'before') {
    event.trigger = 'manual';
    event.instructions = snapshot.instructions;
  } else {
    event.parentEventId = `${caseName}:before`;
    event.summary = snapshot.summary;
    event.removed = [{ id: `${caseName}:context` }];
    event.execution = snapshot.generated ? { status: 'executed' } : { status: 'skipped', reason: 'supplied_result' };
  }
  return {
    jsonrpc: '2.0',
    id,
    method: 'hooks/intercept',
    params: { protocolVersion: 'draft', event, capabilities: boundaryCapabilities(snapshot.boundary) },
  };
}
