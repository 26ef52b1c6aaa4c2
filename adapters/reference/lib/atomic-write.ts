// Readers poll for these files, so they must never observe a partial write: write a temp file in
// the same directory (same filesystem), then rename it over the destination.

import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A fresh temp file beside `file` (same filesystem, so the rename is atomic). */
function tempPathFor(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const temp = tempPathFor(file);
  try {
    await writeFile(temp, `${JSON.stringify(value, null, 2)}\n`, { encoding: 'utf8', flag: 'wx' });
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** The same, synchronously: for files that must exist before the caller does anything else. */
export function writeJsonAtomicSync(file: string, value: unknown): void {
  const temp = tempPathFor(file);
  try {
    writeFileSync(temp, `${JSON.stringify(value)}\n`, { encoding: 'utf8', flag: 'wx' });
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
