// Newline-delimited JSON framing for the stdio binding: one UTF-8 JSON value per line, each line
// terminated by a single "\n". Lines are bounded so a runaway peer cannot exhaust memory.

import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';

export const MAX_LINE_BYTES = 4 * 1024 * 1024;

export type LineEvent = { kind: 'line'; line: string } | { kind: 'overflow' } | { kind: 'end' };

/**
 * Splits a byte stream into lines. Each complete line (without its "\n" and an optional "\r") is
 * delivered once; a line longer than `maxLineBytes` is reported as `overflow` and discarded up to
 * its terminating newline. `end` is delivered exactly once, after the last line.
 */
export function readLines(stream: Readable, onEvent: (event: LineEvent) => void, maxLineBytes = MAX_LINE_BYTES): void {
  const decoder = new StringDecoder('utf8');
  let buffer = '';
  let discarding = false;
  let ended = false;

  const emitLine = (raw: string): void => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    onEvent({ kind: 'line', line });
  };

  stream.on('data', (chunk: Buffer | string) => {
    buffer += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let newline = buffer.indexOf('\n');
    while (newline !== -1) {
      const raw = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (discarding) discarding = false;
      else emitLine(raw);
      newline = buffer.indexOf('\n');
    }
    if (!discarding && Buffer.byteLength(buffer) > maxLineBytes) {
      buffer = '';
      discarding = true;
      onEvent({ kind: 'overflow' });
    } else if (discarding) {
      buffer = '';
    }
  });
  const finish = (): void => {
    if (ended) return;
    ended = true;
    buffer += decoder.end();
    if (buffer !== '' && !discarding) emitLine(buffer);
    buffer = '';
    onEvent({ kind: 'end' });
  };
  stream.on('end', finish);
  stream.on('close', finish);
  stream.on('error', finish);
}

/** What a consumer waiting for the next line can get. */
export type NextLine =
  | { kind: 'line'; line: string }
  | { kind: 'overflow' }
  | { kind: 'end' }
  | { kind: 'timeout' };

/**
 * A pull-based view of a line stream: `next(timeoutMs)` resolves with the next unread line, the end
 * of the stream, or a timeout. Lines that arrive while nobody waits are queued in order.
 */
export class LineQueue {
  private readonly queued: LineEvent[] = [];
  private waiter: ((event: LineEvent) => void) | undefined;
  private ended = false;

  constructor(stream: Readable, maxLineBytes = MAX_LINE_BYTES) {
    readLines(
      stream,
      (event) => {
        if (event.kind === 'end') this.ended = true;
        const waiter = this.waiter;
        if (waiter) {
          this.waiter = undefined;
          waiter(event);
        } else if (event.kind !== 'end') {
          this.queued.push(event);
        }
      },
      maxLineBytes,
    );
  }

  next(timeoutMs: number): Promise<NextLine> {
    const queued = this.queued.shift();
    if (queued) return Promise.resolve(queued);
    if (this.ended) return Promise.resolve({ kind: 'end' });
    if (this.waiter) throw new Error('LineQueue.next called while another read is pending');
    return new Promise<NextLine>((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        resolve({ kind: 'timeout' });
      }, timeoutMs);
      this.waiter = (event) => {
        clearTimeout(timer);
        resolve(event);
      };
    });
  }
}
