// Following the watch driver (./watch-driver.mjs) of a watch-mode self-test: its run-end events as
// they arrive, and a bounded wait for the next one (no sleeps).

import type { ResultPromise } from 'execa';

export interface RunEnd {
  event: 'run-end';
  tests: Array<{ group: string; name: string; state: string; error?: string }>;
}

export interface WatchEvents {
  /** Every finished run so far, in order. */
  runs: RunEnd[];
  /** Resolves once `count` runs have ended; rejects after `ms` with the driver's recent output. */
  nextRun(count: number, ms: number): Promise<void>;
  /** The driver's stdout and stderr so far. */
  output(): string;
}

export function followWatchDriver(driver: ResultPromise): WatchEvents {
  const runs: RunEnd[] = [];
  const waiters: Array<() => void> = [];
  let output = '';
  let buffered = '';
  driver.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    buffered += chunk.toString();
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      try {
        const event = JSON.parse(line) as { event?: string };
        if (event.event === 'run-end') {
          runs.push(event as RunEnd);
          for (const wake of waiters.splice(0)) wake();
        }
      } catch {
        // vitest's own output
      }
    }
  });
  driver.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const nextRun = (count: number, ms: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`watch driver: no run ${count} within ${ms} ms; its output:\n${output.slice(-3000)}`)), ms);
      const check = (): void => {
        if (runs.length >= count) {
          clearTimeout(timer);
          resolve();
        } else waiters.push(check);
      };
      check();
    });
  return { runs, nextRun, output: () => output };
}
