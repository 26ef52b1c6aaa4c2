// The fake-SDK grid of the grid bench (`npm run bench -- grid --fakes`): two fake adapters that cost
// what the public SDKs' adapters were measured to cost where it matters to the planner — one whose
// stdio client starts a fresh server after every negative row, as the TypeScript SDK's does, and one
// that keeps its server, as the Python SDK's does; every server start of either pays a fixed CPU cost
// (AHP_FAKE_START_COST_MS, ~0.8 s like an SDK's start). All four pairings over http × every auth mode
// and stdio: 24 runnable groups over the core rows, like the grid the protocol's runner was timed on.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { writeGridConfig } from './lib/grid-config.ts';

/** The fake adapters' folders (the process sampler counts processes running there as adapter CPU). */
export function fakeAdapterDirs(root: string): string[] {
  return ['speed-restarting-sdk', 'speed-steady-sdk', 'speed-common'].map((name) => path.join(root, 'suites', 'harness', 'fixtures', name));
}

/** Writes the fake grid's config into `work` (over `rows` core rows spread over the file, default all) and returns its path. */
export function fakeGridConfig(work: string, root: string, rows?: number): string {
  mkdirSync(work, { recursive: true });
  let scenarioFile = path.join(root, 'fixtures', 'scenarios.json');
  if (rows !== undefined) {
    const all = JSON.parse(readFileSync(scenarioFile, 'utf8')) as { version: number; scenarios: unknown[] };
    scenarioFile = path.join(work, 'fake-grid-scenarios.json');
    // Spread over the file, so the share of negative rows stays the file's (they cluster at its end).
    const picked = Array.from({ length: Math.min(rows, all.scenarios.length) }, (_, i) => all.scenarios[Math.floor((i * all.scenarios.length) / Math.min(rows, all.scenarios.length))]);
    writeFileSync(scenarioFile, JSON.stringify({ ...all, scenarios: picked }));
  }
  const [restarting, steady] = fakeAdapterDirs(root);
  return writeGridConfig(path.join(work, 'fake-grid.config.json'), {
    root,
    scenarioFile,
    adapters: [
      { name: 'ts-like', cwd: restarting! },
      { name: 'py-like', cwd: steady! },
    ],
    reportsDir: path.join(work, 'reports'),
    watchdogs: { startupMs: 60_000, runMs: 600_000 },
  });
}
