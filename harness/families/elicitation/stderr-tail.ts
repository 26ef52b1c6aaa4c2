// The end of what a process wrote to stderr, as the rules quote it in a verdict (the last 1000 or
// 1500 characters, no prefix), decoded with replacement characters and with every secret of the
// pair redacted first: a crashing adapter may print its environment.

import { readFileTail } from '../../runs/log-tail.ts';
import { redactSecrets } from '../../runs/redact-secrets.ts';

/** At most this many bytes are read from the end: a noisy process may write megabytes. */
const MAX_READ_BYTES = 64 * 1024;

/** The last `chars` characters of `file` (redacted), or `''` when it cannot be read. */
export function stderrTail(file: string, chars: number, secrets: readonly string[]): string {
  const tail = readFileTail(file, MAX_READ_BYTES);
  if (tail === undefined) return '';
  const text = redactSecrets(tail.text, secrets);
  return text.length > chars ? text.slice(text.length - chars) : text;
}
