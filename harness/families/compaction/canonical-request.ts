// The hooks/intercept request a compaction host sends for one boundary of a case (COMPACTION-RULES
// §6), built from the state the event carries. The generator uses it for the rejection probe's base
// request (the first exchange of the first case) and checks it against the schemas; the verifier
// never compares a host's request with it wholesale (§7 checks chosen fields only).

import type { JsonObject, JsonValue } from '../../protocol/json.ts';
import type { Boundary } from './case-types.ts';
import { targetOf } from './simulate.ts';
import { textParts } from './text-parts.ts';

export const HOST_SOURCE = 'urn:ahp:compaction-host';
export const HOST_TIME = '2026-09-15T12:00:00Z';

export interface BoundaryState {
  caseId: string;
  boundary: Boundary;
  /** The boundary's target text: instructions before, summary after. */
  text: string;
  /** After only: whether the summary was generated (else supplied by a return). */
  generated?: boolean;
}

export function canonicalRequest(state: BoundaryState): JsonObject {
  const id = `${state.caseId}:${state.boundary}`;
  const parts = (text: string, partId: string) => textParts(text, partId) as unknown as JsonValue;
  const common = {
    id,
    type: `context.compact.${state.boundary}`,
    source: HOST_SOURCE,
    time: HOST_TIME,
    session: { id: state.caseId },
    items: [{ id: `${state.caseId}:context`, role: 'user', parts: parts('conversation', `${state.caseId}:conversation`) }],
  };
  const event: JsonObject =
    state.boundary === 'before'
      ? { ...common, trigger: 'manual', instructions: parts(state.text, `${state.caseId}:instructions`) }
      : {
          ...common,
          parentEventId: `${state.caseId}:before`,
          summary: parts(state.text, `${state.caseId}:summary`),
          removed: [{ id: `${state.caseId}:context` }],
          execution: state.generated === false ? { status: 'skipped', reason: 'supplied_result' } : { status: 'executed' },
        };
  const capabilities: JsonObject = {
    effects: state.boundary === 'before' ? ['modify', 'message', 'return', 'deny'] : ['modify', 'message'],
    modify: { [targetOf(state.boundary)]: { replace: true, merge: false } },
  };
  return { jsonrpc: '2.0', method: 'hooks/intercept', id, params: { protocolVersion: 'draft', event, capabilities } };
}
