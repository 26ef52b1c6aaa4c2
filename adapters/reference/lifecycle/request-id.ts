// JSON-RPC request ids as map keys, on both sides of the lifecycle adapter.

import type { RequestId } from '../../../harness/lifecycle-adapters/scenario-types.ts';

/** A stable map key for a JSON-RPC id (`1` and `"1"` are different ids). */
export function idKey(id: RequestId): string {
  return JSON.stringify(id);
}
