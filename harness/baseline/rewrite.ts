import { renameSync, writeFileSync } from 'node:fs';

import type { BaselineMeta } from './apply-baseline.ts';
import { isExactEntry } from './apply-baseline.ts';
import { loadBaseline, type BaselineEntry } from './baseline.ts';

type SeenRow = BaselineMeta & { verdict: string };

/** Wildcard entries all of whose rows that ran passed: stale as a whole. */
export function staleWildcardEntries(seen: readonly SeenRow[]): BaselineEntry[] {
  const byIndex = new Map<number, { entry: BaselineEntry; failing: boolean }>();
  for (const row of seen) {
    const entry = row.state?.entry;
    const index = row.state?.index;
    if (!entry || index === undefined || isExactEntry(entry)) continue;
    const known = byIndex.get(index) ?? { entry, failing: false };
    known.failing ||= row.verdict === 'expected-failure';
    byIndex.set(index, known);
  }
  return [...byIndex.values()].filter((known) => !known.failing).map((known) => known.entry);
}

/**
 * An update run (`npm run baseline`): keeps every entry that still lists a failing row (with its
 * reason) and every entry whose rows did not run; drops entries whose rows all passed; adds an exact
 * entry for every failing row no entry listed. Writes the file atomically.
 */
export function rewriteBaseline(file: string, projectsRun: readonly string[], seen: readonly SeenRow[]): { kept: number; added: number; removed: number } {
  const current = loadBaseline(file).entries;
  const failingByIndex = new Map<number, boolean>();
  for (const row of seen) {
    const index = row.state?.index;
    if (index === undefined) continue;
    failingByIndex.set(index, (failingByIndex.get(index) ?? false) || row.verdict === 'expected-failure' || row.verdict === 'failed');
  }
  const kept = current.filter((entry, index) => {
    if (entry.project !== undefined && !projectsRun.includes(entry.project)) return true;
    const failing = failingByIndex.get(index);
    return failing === undefined || failing; // not seen: its rows did not run
  });
  const today = new Date().toISOString().slice(0, 10);
  const added: BaselineEntry[] = [];
  for (const row of seen) {
    if (row.state?.entry !== undefined) continue;
    if (row.verdict !== 'expected-failure' && row.verdict !== 'failed') continue;
    if (added.some((entry) => entry.project === row.project && entry.group === row.group && entry.id === row.id)) continue;
    added.push({ group: row.group, id: row.id, reason: `failing when recorded by npm run baseline on ${today}`, project: row.project });
  }
  const entries = [...kept, ...added];
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ version: 1, entries }, null, 2)}\n`);
  renameSync(temp, file);
  return { kept: kept.length, added: added.length, removed: current.length - kept.length };
}
