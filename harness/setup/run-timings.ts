// What earlier runs of each group cost, kept on disk between runs so the run planner (run-plan.ts)
// can split long groups and start the longest first. A cache, never an input to a verdict: a
// missing, stale or garbled file only makes the plan less even.

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { PROJECT_ROOT } from '../protocol/load-validators.ts';

export interface GroupTiming {
  /** Rows of the last measured run and its wall time (client run, ms). */
  rows: number;
  ms: number;
  /** The cheapest run of at most two rows seen: what one more client process costs to start. */
  startupMs?: number;
}

export type RunTimings = Map<string, GroupTiming>;

export const TIMINGS_FILE = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'ahp-conformance', 'run-timings.json');

export function loadTimings(project: string, file = TIMINGS_FILE): RunTimings {
  const timings: RunTimings = new Map();
  try {
    const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, GroupTiming>>;
    for (const [label, timing] of Object.entries(all[project] ?? {})) {
      if (Number.isFinite(timing.rows) && Number.isFinite(timing.ms) && timing.rows > 0 && timing.ms > 0) timings.set(label, timing);
    }
  } catch {
    // no cache yet
  }
  return timings;
}

/** Records one run's cost (in memory); `saveTimings` writes them. */
export function recordTiming(timings: RunTimings, label: string, rows: number, ms: number): void {
  if (rows <= 0 || ms <= 0) return;
  const previous = timings.get(label);
  const startupMs = rows <= 2 ? Math.min(ms, previous?.startupMs ?? ms) : previous?.startupMs;
  timings.set(label, { rows, ms, ...(startupMs === undefined ? {} : { startupMs }) });
}

/** Merges this project's timings into the file (atomically; concurrent writers may lose an update). */
export function saveTimings(project: string, timings: RunTimings, file = TIMINGS_FILE): void {
  try {
    let all: Record<string, Record<string, GroupTiming>> = {};
    try {
      all = JSON.parse(readFileSync(file, 'utf8')) as typeof all;
    } catch {
      // first write
    }
    all[project] = { ...all[project], ...Object.fromEntries(timings) };
    mkdirSync(path.dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(all)}\n`);
    renameSync(temp, file);
  } catch {
    // a cache that cannot be written only costs a less even plan next time
  }
}
