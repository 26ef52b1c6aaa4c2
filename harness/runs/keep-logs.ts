import { cpSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Copies the run's logs that exist into `dir/<run folder>` (they outlive the run's temp dir; the run
 * folder's name keeps the several runs of one split group apart); returns the copies.
 */
export function keepLogs(files: string[], dir: string): string[] {
  const kept: string[] = [];
  for (const file of files) {
    if (!existsSync(file)) continue;
    const target = path.join(dir, path.basename(path.dirname(file)), path.basename(file));
    mkdirSync(path.dirname(target), { recursive: true });
    cpSync(file, target);
    kept.push(target);
  }
  return kept;
}

/**
 * `text` with every kept file's temp path replaced by its kept copy, so no message points at a file
 * that teardown deletes. `originals[i]` was kept as `kept[i]` (files that did not exist are skipped
 * by keepLogs, so pairs are matched by basename and run folder).
 */
export function pointAtKeptLogs(text: string, originals: string[], kept: string[]): string {
  let out = text;
  for (const original of originals) {
    const copy = kept.find((target) => path.basename(target) === path.basename(original) && path.basename(path.dirname(target)) === path.basename(path.dirname(original)));
    if (copy) out = out.split(original).join(copy);
  }
  return out;
}
