// A temp directory for the standalone validator modules a test writes. It lies beside the real cache
// directory, inside the project's node_modules/.cache, because the generated modules require ajv's
// runtime helpers (and ajv-formats), which resolve only from the project's node_modules.

import fs from 'node:fs';
import path from 'node:path';

/** A new empty directory beside `cacheDir`; the caller removes it. */
export function tempStandaloneCacheDir(cacheDir: string, prefix: string): string {
  const parent = path.dirname(cacheDir);
  fs.mkdirSync(parent, { recursive: true });
  return fs.mkdtempSync(path.join(parent, prefix));
}
