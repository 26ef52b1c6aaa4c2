import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface RunDir {
  /** Temp parent for the run's files (servers, client runs, the PKI's private keys). */
  path: string;
  /** Removes it (idempotent). */
  remove(): void;
}

/**
 * A fresh temp dir for one run. Ctrl-C makes vitest exit without running teardown, so the dir —
 * configs holding credentials, private keys — is also removed when the process exits.
 */
export function openRunDir(prefix: string): RunDir {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const remove = (): void => {
    process.removeListener('exit', remove);
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', remove);
  return { path: dir, remove };
}
