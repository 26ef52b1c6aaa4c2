// The lifecycle receiver's script (LIFECYCLE-RULES §3): which row and request key a JSON-RPC request
// id belongs to, and which scripted response each attempt of it gets — attempt n answers
// `responseSequences[key][n]` when there is one, else `responses[key]`. Responses are returned
// exactly as written, even deliberately invalid or mismatched ones (adversarial fixtures).

import type { LifecycleScenario } from '../../../harness/lifecycle-adapters/scenario-types.ts';
import type { JsonObject } from '../../../harness/protocol/json.ts';
import type { RequestId } from '../../../harness/lifecycle-adapters/scenario-types.ts';
import { idKey } from './request-id.ts';

interface Scripted {
  row: LifecycleScenario;
  key: string;
}

export class ScriptedResponses {
  private readonly byId = new Map<string, Scripted>();
  private readonly rowByEvent = new Map<string, string>();
  private readonly attempts = new Map<string, number>();
  /** Request ids that more than one row claims (the first row wins); reported once at startup. */
  readonly duplicateIds: string[] = [];

  constructor(rows: readonly LifecycleScenario[]) {
    for (const row of rows) {
      for (const [key, request] of Object.entries(row.requests)) {
        const k = idKey(request.id);
        const known = this.byId.get(k);
        if (known === undefined) this.byId.set(k, { row, key });
        else if (known.row !== row) this.duplicateIds.push(k);
        if (!this.rowByEvent.has(request.params.event.id)) this.rowByEvent.set(request.params.event.id, row.id);
      }
    }
  }

  knows(id: RequestId): boolean {
    return this.byId.has(idKey(id));
  }

  /** Counts one more attempt of `id` and returns the response scripted for it (undefined: none). */
  nextResponse(id: RequestId): JsonObject | undefined {
    const k = idKey(id);
    const scripted = this.byId.get(k);
    if (scripted === undefined) return undefined;
    const attempt = this.attempts.get(k) ?? 0;
    this.attempts.set(k, attempt + 1);
    const { row, key } = scripted;
    const sequence = row.responseSequences?.[key];
    return sequence?.[attempt] ?? (Object.hasOwn(row.responses, key) ? row.responses[key] : undefined);
  }

  /** The row whose requests carry the event `eventId` (observations name events, not requests). */
  rowOfEvent(eventId: string): string | undefined {
    return this.rowByEvent.get(eventId);
  }
}
