// Which scenario a receipt entry belongs to, so that a fault lands on that scenario alone. Request
// ids and event ids are unique in a lifecycle file, stray frame ids belong to their emit step, and
// client marks name their scenario. Upload entries carry no id: they are owned by position (§7.4).

import type { LifecycleScenario } from '../../../lifecycle-adapters/scenario-types.ts';
import { eventOf, idKey, type LogEntry } from '../../../lifecycle-adapters/receipt-log.ts';

export class EntryOwners {
  private readonly rowIds = new Set<string>();
  private readonly byRequest = new Map<string, string>();
  private readonly byEvent = new Map<string, string>();
  private readonly byStray = new Map<string, string>();

  constructor(rows: readonly LifecycleScenario[]) {
    for (const row of rows) {
      this.rowIds.add(row.id);
      for (const request of Object.values(row.requests)) {
        const requestKey = idKey(request.id);
        const eventKey = idKey(request.params.event.id);
        if (requestKey !== undefined) this.byRequest.set(requestKey, row.id);
        if (eventKey !== undefined) this.byEvent.set(eventKey, row.id);
      }
      for (const step of row.steps) {
        const strayKey = step.op === 'emit' ? idKey(step.response.id) : undefined;
        if (strayKey !== undefined) this.byStray.set(strayKey, row.id);
      }
    }
  }

  ofRequest(id: unknown): string | undefined {
    const key = idKey(id);
    return key === undefined ? undefined : this.byRequest.get(key);
  }

  ofEvent(id: unknown): string | undefined {
    const key = idKey(id);
    return key === undefined ? undefined : this.byEvent.get(key);
  }

  private ofStray(id: unknown): string | undefined {
    const key = idKey(id);
    return key === undefined ? undefined : this.byStray.get(key);
  }

  private ofScenario(scenario: unknown): string | undefined {
    return typeof scenario === 'string' && this.rowIds.has(scenario) ? scenario : undefined;
  }

  /** The selected scenario that owns `e`, or `undefined` (uploads, and entries naming nothing selected). */
  ownerOf(e: LogEntry): string | undefined {
    const { entry } = e;
    switch (e.kind) {
      case 'received':
      case 'replied':
        return this.ofRequest(entry.id);
      case 'emitted':
        return this.ofStray(entry.id) ?? this.ofRequest(entry.id);
      case 'observed':
        return this.ofEvent(entry.eventId) ?? this.ofEvent(eventOf(entry.message)?.id);
      case 'observer-blocked':
        return this.ofEvent(entry.id);
      case 'upload':
        return undefined;
      case 'acquired':
      case 'accepted':
      case 'cancelled':
      case 'discarded':
      case 'chain-settled':
        return this.ofScenario(entry.scenario) ?? this.ofRequest(entry.id) ?? this.ofStray(entry.id);
      default:
        return (
          this.ofScenario(entry.scenario) ??
          this.ofRequest(entry.id) ??
          this.ofStray(entry.id) ??
          this.ofEvent(entry.eventId) ??
          this.ofEvent(entry.id)
        );
    }
  }
}
