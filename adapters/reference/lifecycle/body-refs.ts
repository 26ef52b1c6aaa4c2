// Body references in outgoing events (LIFECYCLE-RULES §5; content-upload.md "Upload before
// publication"): fixture bodies name local aliases, which go out as the receiver-assigned refs they
// were bound to by confirmed uploads. An event whose body names an alias no confirmed upload bound is
// never dispatched: a failed upload must not yield a ready body reference.

import type { RefBindings } from '../../../harness/families/lifecycle/observe-message.ts';
import { isJsonObject, type JsonValue } from '../../../harness/protocol/json.ts';
import { RowFailure } from './row-failure.ts';

/** Throws RowFailure (naming `what`) when an item of `items` has a body alias no confirmed upload bound. */
export function assertBodiesReady(items: JsonValue | undefined, bindings: RefBindings, what: string): void {
  if (!Array.isArray(items)) return;
  for (const item of items) {
    const ref = isJsonObject(item) && isJsonObject(item.body) ? item.body.ref : undefined;
    if (typeof ref === 'string' && !bindings.has(ref)) {
      throw new RowFailure(`${what}: body ref ${JSON.stringify(ref)} has no confirmed upload; not dispatched`);
    }
  }
}
