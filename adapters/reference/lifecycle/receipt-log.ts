// The lifecycle receiver's receipt log (LIFECYCLE-RULES §3, §6): every entry in append order, and
// blocking waits for "at least N entries matching X" (control /wait and /wait-observed). Appends and
// reads happen on the one event loop, so the order a reader sees is the order of appends; a wait
// wakes in the same turn as the append that satisfies it. Every wait is bounded by a watchdog and
// fails when the receiver shuts down.

import type { JsonObject } from '../../../harness/protocol/json.ts';

export type WaitOutcome = 'reached' | 'timeout' | 'closed';

interface Waiter {
  matches: (entry: JsonObject) => boolean;
  remaining: number;
  wake: (outcome: WaitOutcome) => void;
}

export class ReceiptLog {
  private readonly list: JsonObject[] = [];
  private readonly waiters = new Set<Waiter>();
  private closed = false;

  append(entry: JsonObject): void {
    this.list.push(entry);
    for (const waiter of [...this.waiters]) {
      if (waiter.matches(entry) && --waiter.remaining <= 0) waiter.wake('reached');
    }
  }

  entries(): readonly JsonObject[] {
    return this.list;
  }

  /** Resolves once at least `count` entries (already logged or still to come) satisfy `matches`. */
  waitFor(matches: (entry: JsonObject) => boolean, count: number, watchdogMs: number): Promise<WaitOutcome> {
    if (this.closed) return Promise.resolve('closed');
    const remaining = count - this.list.filter(matches).length;
    if (remaining <= 0) return Promise.resolve('reached');
    return new Promise<WaitOutcome>((resolve) => {
      const waiter: Waiter = {
        matches,
        remaining,
        wake: (outcome) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(outcome);
        },
      };
      const timer = setTimeout(() => waiter.wake('timeout'), watchdogMs);
      this.waiters.add(waiter);
    });
  }

  /** Fails every pending wait (shutdown); later waits fail at once. */
  close(): void {
    this.closed = true;
    for (const waiter of [...this.waiters]) waiter.wake('closed');
  }
}
