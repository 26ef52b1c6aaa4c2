// The end of what a process wrote to stderr, as the rules quote it in a verdict (the last 1000 or
// 1500 characters, no prefix), decoded with replacement characters and with every secret of the
// pair redacted first: a crashing adapter may print its environment.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

import { redactSecrets } from '../../runs/redact-secrets.ts';

/** At most this many bytes are read from the end: a noisy process may write megabytes. */
const MAX_READ_BYTES = 64 * 1024;

/** The last `chars` characters of `file` (redacted), or `''` when it cannot be read. */
export function stderrTail(file: string, chars: number, secrets: readonly string[]): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const length = Math.min(size, MAX_READ_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const text = redactSecrets(buffer.toString('utf8'), secrets);
    return text.length > chars ? text.slice(text.length - chars) : text;
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
