// Request events waiting for their result, keyed by (event source, request event id), never by
// session alone. A live key is never replaced, and only a result that passed every check settles
// its request; a refused result leaves it waiting.

import type { JsonObject } from '../../../harness/protocol/json.ts';
import type { Selection } from './selected-body.ts';

export interface PendingRequest {
  sessionId: string | undefined;
  server: string;
  mode: 'form' | 'url';
  selection: Selection;
  /** The parsed MCP params, when the request's body was selected. */
  params: JsonObject | undefined;
}

export function pendingKey(source: string, eventId: string): string {
  return JSON.stringify([source, eventId]);
}

export class PendingRequests {
  protected readonly entries = new Map<string, PendingRequest>();

  /** Adds a request; false (and the live entry untouched) when the key is already pending. */
  open(key: string, request: PendingRequest): boolean {
    if (this.entries.has(key)) return false;
    this.entries.set(key, request);
    return true;
  }

  /** The pending request a result names, without settling it. */
  find(key: string): PendingRequest | undefined {
    return this.entries.get(key);
  }

  /** Called once a result was accepted. */
  settle(key: string): void {
    this.entries.delete(key);
  }
}
