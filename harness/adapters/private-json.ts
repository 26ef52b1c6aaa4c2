// Config files the harness writes for adapters may carry test credentials: owner-only (0600).

import { chmodSync, writeFileSync } from 'node:fs';

/** Writes `value` as 2-space JSON to `file` with mode 0600 (also when the file already existed). */
export function writePrivateJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}
