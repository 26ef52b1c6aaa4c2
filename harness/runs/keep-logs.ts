import { cpSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/** Copies the run's logs that exist into `dir` (they outlive the run's temp dir); returns the copies. */
export function keepLogs(files: string[], dir: string): string[] {
  const kept: string[] = [];
  for (const file of files) {
    if (!existsSync(file)) continue;
    mkdirSync(dir, { recursive: true });
    const target = path.join(dir, path.basename(file));
    cpSync(file, target);
    kept.push(target);
  }
  return kept;
}
