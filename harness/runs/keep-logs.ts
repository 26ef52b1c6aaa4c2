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
