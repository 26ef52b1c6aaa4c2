// The last lines of an adapter's captured output, bounded and with secrets redacted, for a verdict
// that has to say how a process ended (it died without a report). Only the end of the file is read:
// a log may be large, and the lines before a crash are what an author looks at first.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

import { redactSecrets } from './redact-secrets.ts';

export interface LogTailOptions {
  /** At most this many lines (default 20). */
  maxLines?: number;
  /** Each line cut to this many characters (default 300). */
  maxLineChars?: number;
  /** At most this many bytes read from the end of the file (default 8192). */
  maxBytes?: number;
  /** Secrets of the run to redact besides the fixture's static ones and secret-shaped text. */
  secrets?: readonly string[];
}

/** The redacted tail of `file` as lines; `undefined` when the file cannot be read, `[]` when it is empty. */
export function readLogTail(file: string, options: LogTailOptions = {}): string[] | undefined {
  const tail = readFileTail(file, options.maxBytes ?? 8192);
  if (tail === undefined) return undefined;
  // A cut in the middle of the first line would show half a line (or half a character): drop it.
  const text = tail.cut ? tail.text.slice(tail.text.indexOf('\n') + 1) : tail.text;
  return tailLines(redactSecrets(text, options.secrets), options.maxLines ?? 20, options.maxLineChars ?? 300);
}

/** The last `maxBytes` of `file` as UTF-8 (`cut`: the file is longer); `undefined` when it cannot be read. */
export function readFileTail(file: string, maxBytes: number): { text: string; cut: boolean } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return { text: buffer.toString('utf8'), cut: size > length };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The last `maxLines` non-blank lines of `text`, each cut to `maxLineChars`. */
export function tailLines(text: string, maxLines: number, maxLineChars: number): string[] {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  return lines.slice(-maxLines).map((line) => (line.length > maxLineChars ? `${line.slice(0, maxLineChars - 3)}...` : line));
}
