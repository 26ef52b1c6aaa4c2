// How busy the whole machine was while a bench ran: the benches run on a machine shared with other
// work, so a figure is only comparable to another taken in the same bench process, and the report
// says how much of the machine was taken by others meanwhile. Linux /proc/stat; elsewhere unknown.

import { readFileSync } from 'node:fs';
import os from 'node:os';

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** Busy CPU time of the whole machine so far (ms), or undefined where /proc/stat cannot be read. */
function machineBusyMs(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n').find((text) => text.startsWith('cpu '));
    const fields = line?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    if (fields.length < 5) return undefined;
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle + iowait
    const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
    return ((total - idle) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

export interface MachineLoad {
  /** Busy CPU of the whole machine during the window (ms). */
  busyMs: number;
  /** The load average (1 min) at the window's end. */
  loadAverage: number;
}

/** Starts a window; `end()` tells how busy the machine was over it. */
export function machineLoadWindow(): { end(): MachineLoad | undefined } {
  const start = machineBusyMs();
  return {
    end() {
      const end = machineBusyMs();
      if (start === undefined || end === undefined) return undefined;
      return { busyMs: end - start, loadAverage: os.loadavg()[0] ?? 0 };
    },
  };
}
