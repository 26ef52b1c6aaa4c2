// Progress lines of a fuzz run: milestones (batch i/n, shrink rounds, bisection runs) as they happen,
// and a heartbeat whenever nothing was printed for `intervalMs` (a client run against a real SDK can
// take tens of seconds), so a long run is never silent for more than that. Timers are unref'd and
// cleared by `close()`, so a finished run leaves nothing behind.

export interface Progress {
  /** Prints `line` now; `activity` (default: the line) is what the heartbeat says is still going on. */
  say(line: string, activity?: string): void;
  /** Sets what the heartbeat reports without printing. */
  doing(activity: string): void;
  close(): void;
}

export interface ProgressOptions {
  /** Longest silence before a heartbeat line. Default 10 000 ms. */
  intervalMs?: number;
  /** Clock for the heartbeat's elapsed time (ms). Default performance.now. */
  now?: () => number;
}

export const PROGRESS_INTERVAL_MS = 10_000;

/** A progress printer that writes through `write`; `undefined` gives a silent one (no timers). */
export function createProgress(write: ((line: string) => void) | undefined, options: ProgressOptions = {}): Progress {
  if (!write) return { say: () => undefined, doing: () => undefined, close: () => undefined };
  const intervalMs = options.intervalMs ?? PROGRESS_INTERVAL_MS;
  const now = options.now ?? (() => performance.now());
  let activity = 'starting';
  let since = now();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const arm = (): void => {
    clearTimeout(timer);
    if (closed) return;
    timer = setTimeout(() => {
      write(`  … still ${activity} (${Math.round((now() - since) / 1000)} s)`);
      arm();
    }, intervalMs);
    timer.unref?.();
  };

  const doing = (next: string): void => {
    if (next !== activity) since = now();
    activity = next;
  };

  arm();
  return {
    say(line, next) {
      doing(next ?? line.trim());
      write(line);
      arm();
    },
    doing,
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}
