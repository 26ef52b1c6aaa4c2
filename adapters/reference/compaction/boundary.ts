// The two interception boundaries of a text compaction and what a receiver may do at each: before
// compaction it may edit the instructions, supply the summary (return), refuse (deny) or speak to the
// user (message); after compaction it may edit the summary or speak. Only replacement is offered,
// never merge: this runtime edits whole text-part lists.

import type { JsonObject } from '../../../harness/protocol/json.ts';

export type Boundary = 'before' | 'after';

/** The event field a boundary's modify effects target. */
export const BOUNDARY_TARGET: Record<Boundary, 'instructions' | 'summary'> = { before: 'instructions', after: 'summary' };

/** The effect types accepted at each boundary (a subset of what the protocol allows there). */
export const BOUNDARY_EFFECTS: Record<Boundary, readonly string[]> = {
  before: ['modify', 'message', 'return', 'deny'],
  after: ['modify', 'message'],
};

/** The per-request capability advertisement of a boundary, exactly what the runtime enforces. */
export function boundaryCapabilities(boundary: Boundary): JsonObject {
  return {
    effects: [...BOUNDARY_EFFECTS[boundary]],
    modify: { [BOUNDARY_TARGET[boundary]]: { replace: true, merge: false } },
  };
}
