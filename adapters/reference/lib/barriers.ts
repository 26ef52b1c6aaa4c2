// Control barriers: a scenario row with `barrier` is answered only after POST /release {barrier}.
// A release is remembered, so one that arrives before the request lets the reply through at once,
// and releasing a barrier lets every row held behind it through. Waits are bounded by a watchdog.

export type BarrierWait = { released: true } | { released: false; reason: 'timeout' | 'closed' };

export class Barriers {
  private readonly released = new Set<string>();
  private readonly waiting = new Map<string, Set<(outcome: BarrierWait) => void>>();

  release(barrier: string): void {
    this.released.add(barrier);
    const waiters = this.waiting.get(barrier);
    this.waiting.delete(barrier);
    for (const wake of waiters ?? []) wake({ released: true });
  }

  isReleased(barrier: string): boolean {
    return this.released.has(barrier);
  }

  /** Number of replies currently held (for diagnostics and tests). */
  heldCount(): number {
    let count = 0;
    for (const waiters of this.waiting.values()) count += waiters.size;
    return count;
  }

  wait(barrier: string, watchdogMs: number): Promise<BarrierWait> {
    if (this.released.has(barrier)) return Promise.resolve({ released: true });
    return new Promise<BarrierWait>((resolve) => {
      let waiters = this.waiting.get(barrier);
      if (!waiters) this.waiting.set(barrier, (waiters = new Set()));
      const wake = (outcome: BarrierWait): void => {
        clearTimeout(timer);
        waiters.delete(wake);
        resolve(outcome);
      };
      const timer = setTimeout(() => wake({ released: false, reason: 'timeout' }), watchdogMs);
      waiters.add(wake);
    });
  }

  /** Wakes every held reply with `closed` (used on shutdown). */
  closeAll(): void {
    for (const waiters of this.waiting.values()) for (const wake of [...waiters]) wake({ released: false, reason: 'closed' });
    this.waiting.clear();
  }
}
