// A failed pair's logs, copied out of the run's temp dir before teardown removes it, with the pair's
// tokens (and anything shaped like a credential) redacted: an adapter may print what it was given,
// and a kept log is read by people and uploaded by CI.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { redactSecrets } from '../../runs/redact-secrets.ts';

export function keepRedactedLogs(files: readonly string[], dir: string, secrets: readonly string[]): string[] {
  const kept: string[] = [];
  for (const file of files) {
    if (!existsSync(file)) continue;
    mkdirSync(dir, { recursive: true });
    const target = path.join(dir, path.basename(file));
    writeFileSync(target, redactSecrets(readFileSync(file, 'utf8'), secrets));
    kept.push(target);
  }
  return kept;
}
