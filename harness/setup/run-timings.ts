// What earlier runs cost, kept on disk between runs so the run planner (run-plan.ts) can split long
// groups and start the longest first. A cache, never an input to a verdict: a missing, stale or
// garbled file only makes the plan less even.
//
// Costs are kept by what they measure — the adapters, the family and the transport/mode — not by the
// config file that named them: a CI job that writes its config to a fresh temp path, or a user's new
// config over the same SDKs, still plans from what those adapters cost before. An adapter is known by
// its adapter.json path (its name is only the config's label for it). Besides the exact pairing, each
// run also records what its client adapter cost on that transport whatever the server, since a client
// that restarts its server after every negative row costs that with any server.

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import type { LoadedAdapter } from '../adapters/types.ts';
import { PROJECT_ROOT } from '../protocol/load-validators.ts';
import type { MatrixGroup } from '../runs/plan.ts';

export interface GroupTiming {
  /** Rows of the last measured run and its wall time (client run, ms). */
  rows: number;
  ms: number;
  /** The cheapest run of at most two rows seen: what one more client process costs to start. */
  startupMs?: number;
}

/** Timings of one family, by timing key (timingKeys). */
export type RunTimings = Map<string, GroupTiming>;

/** The two keys a group's measured cost is kept under: the exact pairing, and its client on that transport. */
export interface TimingKeys {
  pair: string;
  client: string;
}

/** `AHP_TIMINGS_FILE` moves the cache (the self-tests give every child run a fresh one: a first run). */
export function timingsFile(): string {
  return process.env.AHP_TIMINGS_FILE ?? DEFAULT_TIMINGS_FILE;
}

const DEFAULT_TIMINGS_FILE = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'ahp-conformance', 'run-timings.json');

/** Where a group's cost is kept: by adapter.json path, transport and mode — never by the config's adapter names. */
export function timingKeys(group: Pick<MatrixGroup, 'server' | 'client' | 'transport' | 'auth'>): TimingKeys {
  return {
    pair: `${adapterIdentity(group.server)} → ${adapterIdentity(group.client)} ${group.transport}/${group.auth}`,
    client: `client ${adapterIdentity(group.client)} ${group.transport}`,
  };
}

function adapterIdentity(adapter: Pick<LoadedAdapter, 'adapterFile'>): string {
  return adapter.adapterFile;
}

interface TimingsFile {
  version: 2;
  /** family → timing key → timing, the most recently saved key last. */
  families: Record<string, Record<string, GroupTiming>>;
}

/** Keys kept per family: enough for every pairing of a large grid; self-tests' temp adapters age out. */
const MAX_KEYS = 2000;

function readFile(file: string): TimingsFile {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<TimingsFile>;
    // Earlier versions kept timings per config file: unusable here, so they count as no timings.
    if (parsed.version === 2 && typeof parsed.families === 'object' && parsed.families !== null) return parsed as TimingsFile;
  } catch {
    // no cache yet, or a garbled one
  }
  return { version: 2, families: {} };
}

export function loadTimings(project: string, file = timingsFile()): RunTimings {
  const timings: RunTimings = new Map();
  for (const [key, timing] of Object.entries(readFile(file).families[project] ?? {})) {
    if (Number.isFinite(timing.rows) && Number.isFinite(timing.ms) && timing.rows > 0 && timing.ms > 0) timings.set(key, timing);
  }
  return timings;
}

/** Records one run's cost (in memory) under `key`; `saveTimings` writes them. */
export function recordTiming(timings: RunTimings, key: string, rows: number, ms: number): void {
  if (rows <= 0 || ms <= 0) return;
  const previous = timings.get(key);
  const startupMs = rows <= 2 ? Math.min(ms, previous?.startupMs ?? ms) : previous?.startupMs;
  timings.delete(key); // re-inserted last: the most recent measurement ages out last
  timings.set(key, { rows, ms, ...(startupMs === undefined ? {} : { startupMs }) });
}

/** Merges this family's timings into the file (atomically; concurrent writers may lose an update). */
export function saveTimings(project: string, timings: RunTimings, file = timingsFile()): void {
  try {
    const all = readFile(file);
    const merged = { ...all.families[project] };
    for (const [key, timing] of timings) {
      delete merged[key];
      merged[key] = timing;
    }
    const keys = Object.keys(merged);
    for (const stale of keys.slice(0, Math.max(0, keys.length - MAX_KEYS))) delete merged[stale];
    all.families[project] = merged;
    // Only the default cache folder is created: a folder given through AHP_TIMINGS_FILE that is gone
    // (a self-test's, removed while an interrupted run's worker was still saving) stays gone.
    if (file === DEFAULT_TIMINGS_FILE) mkdirSync(path.dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(all)}\n`);
    renameSync(temp, file);
  } catch {
    // a cache that cannot be written only costs a less even plan next time
  }
}
