// What earlier runs of each group cost, kept on disk between runs so the run planner (run-plan.ts)
// can split long groups and start the longest first. A cache, never an input to a verdict: a
// missing, stale or garbled file only makes the plan less even. Timings are kept per config file: the
// same group label means other adapters, rows and costs under another config (and a self-test's
// child run, with its own config, must plan the same way whatever ran before it).

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

type TimingsFile = Record<string, Record<string, Record<string, GroupTiming>>>;

/** Config files whose timings are kept. */
const MAX_CONFIGS = 16;

export function loadTimings(configFile: string, project: string, file = TIMINGS_FILE): RunTimings {
  const timings: RunTimings = new Map();
  try {
    const all = JSON.parse(readFileSync(file, 'utf8')) as TimingsFile;
    for (const [label, timing] of Object.entries(all[configFile]?.[project] ?? {})) {
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
export function saveTimings(configFile: string, project: string, timings: RunTimings, file = TIMINGS_FILE): void {
  try {
    let all: TimingsFile = {};
    try {
      all = JSON.parse(readFileSync(file, 'utf8')) as TimingsFile;
    } catch {
      // first write
    }
    const scope = all[configFile] ?? {};
    scope[project] = { ...scope[project], ...Object.fromEntries(timings) };
    // The most recently saved config last; only the last MAX_CONFIGS are kept (self-tests' child runs
    // each bring a config of their own, in a temp dir that is gone after the run).
    delete all[configFile];
    all[configFile] = scope;
    const configs = Object.keys(all);
    for (const stale of configs.slice(0, Math.max(0, configs.length - MAX_CONFIGS))) delete all[stale];
    mkdirSync(path.dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(all)}\n`);
    renameSync(temp, file);
  } catch {
    // a cache that cannot be written only costs a less even plan next time
  }
}
