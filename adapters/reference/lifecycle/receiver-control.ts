// The lifecycle client's side of the receiver's control endpoint (LIFECYCLE-RULES §3 Control, §4):
// each call completes before the step that makes it does, and a refused or timed-out call fails the
// row with a label that names the route and what went wrong (never the endpoint or its port).

import { ControlError, controlCall } from '../../../harness/adapters/control-client.ts';
import type { MarkKind, RequestId } from '../../../harness/lifecycle-adapters/scenario-types.ts';
import type { JsonObject, JsonValue } from '../../../harness/protocol/json.ts';
import { RowFailure } from './row-failure.ts';

export class ReceiverControl {
  constructor(
    private readonly endpoint: string,
    /** Bound on each call, blocking waits included. */
    private readonly timeoutMs: number,
  ) {}

  wait(id: RequestId, count: number): Promise<void> {
    return this.post('wait', { id, count });
  }

  /** `eventId` is a string for lifecycle observations; a catalogue receiver takes any recorded id (null: none). */
  waitObserved(eventId: JsonValue, count: number): Promise<void> {
    return this.post('wait-observed', { eventId, count });
  }

  release(id: RequestId): Promise<void> {
    return this.post('release', { id });
  }

  mark(scenario: string, kind: MarkKind, id: RequestId): Promise<void> {
    return this.post('mark', { scenario, kind, id });
  }

  emit(response: JsonObject): Promise<void> {
    return this.post('emit', { response });
  }

  /** GET /receipts, verbatim. */
  async receipts(): Promise<unknown> {
    return this.call('GET', 'receipts', undefined);
  }

  async shutdown(timeoutMs: number): Promise<void> {
    await controlCall(this.endpoint, 'POST', 'shutdown', {}, { timeoutMs });
  }

  private async post(route: string, body: JsonObject): Promise<void> {
    await this.call('POST', route, body);
  }

  private async call(method: 'GET' | 'POST', route: string, body: JsonObject | undefined): Promise<unknown> {
    try {
      return await controlCall(this.endpoint, method, route, body, { timeoutMs: this.timeoutMs });
    } catch (error) {
      if (!(error instanceof ControlError)) throw error;
      throw new RowFailure(`control: ${error.call} ${error.kind === 'status' && error.status !== undefined ? `answered HTTP ${error.status}` : error.kind}`);
    }
  }
}
