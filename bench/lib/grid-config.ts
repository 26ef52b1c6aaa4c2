// The config file of a bench grid: the given adapters over every auth mode and both transports, on
// every core, reports into the bench's own folder.

import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface GridConfig {
  root: string;
  scenarioFile: string;
  adapters: Array<{ name: string; cwd: string }>;
  reportsDir: string;
  /** Set when the grid's adapters are slow on purpose (the fake SDKs). */
  watchdogs?: { startupMs: number; runMs: number };
}

/** Writes the grid's config to `file` and returns `file`. */
export function writeGridConfig(file: string, grid: GridConfig): string {
  writeFileSync(
    file,
    JSON.stringify({
      schemas: path.join(grid.root, 'schemas'),
      scenarios: { core: grid.scenarioFile },
      adapters: grid.adapters,
      transports: ['http', 'stdio'],
      auth: ['none', 'bearer', 'oauth', 'mtls', 'workload'],
      ...(grid.watchdogs ? { watchdogs: grid.watchdogs } : {}),
      parallelism: os.availableParallelism(),
      reports: grid.reportsDir,
    }),
  );
  return file;
}
