// The next free numbered instance folder `instancesDir/NNNN/` (0700), claimed by an atomic mkdir, so
// the processes a client starts one after another (or at once) never share one. Plain ESM for the
// stdio relay and the compaction recorder, which start under plain `node`.

import { mkdirSync } from 'node:fs';
import path from 'node:path';

/** @returns {{ dir: string, number: number }} */
export function claimInstanceDir(instancesDir) {
  mkdirSync(instancesDir, { recursive: true });
  for (let number = 1; number < 100_000; number++) {
    const dir = path.join(instancesDir, String(number).padStart(4, '0'));
    try {
      mkdirSync(dir, { mode: 0o700 });
      return { dir, number };
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
  }
  throw new Error('no free instance folder');
}
