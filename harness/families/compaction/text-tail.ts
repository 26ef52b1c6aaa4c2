// The last characters of a process's stderr, as the protocol's runner quotes them in a failure
// (`host: <last 2000 chars>`, `negative sender: <last 1000 chars>`), with every secret of the run
// redacted first, so a process that echoes its tokens never puts them into a verdict.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

import { redactSecrets } from '../../runs/redact-secrets.ts';

export function stderrTail(file: string, chars: number, secrets: readonly string[]): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    // UTF-8 is at most 4 bytes a character; read enough for `chars` of them plus a secret cut in two.
    const length = Math.min(size, chars * 4 + 256);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return redactSecrets(buffer.toString('utf8'), secrets).slice(-chars);
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
