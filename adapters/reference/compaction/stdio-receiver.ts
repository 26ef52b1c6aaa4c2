// The compaction receiver's stdio mode for one scope: every non-blank stdin line is one request,
// answered with exactly one compact JSON line on stdout (nothing else is ever written there); the
// process ends when stdin does, once stdout is flushed.

import type { Readable, Writable } from 'node:stream';

import { errorEnvelope, INVALID_REQUEST } from '../lib/jsonrpc.ts';
import { readLines } from '../lib/ndjson.ts';
import type { CompactionReceiver } from './receiver.ts';

/** The stdout lines written for one reply (the reference: exactly that reply). */
export type ReplyLines = (reply: string) => string[];

export const ONE_LINE: ReplyLines = (reply) => [reply];

export function serveStdio(receiver: CompactionReceiver, scope: string, input: Readable, output: Writable, replyLines: ReplyLines = ONE_LINE): Promise<void> {
  return new Promise<void>((resolve) => {
    const write = (reply: string): void => {
      for (const line of replyLines(reply)) output.write(`${line}\n`);
    };
    readLines(input, (event) => {
      if (event.kind === 'end') {
        output.write('', () => resolve());
        return;
      }
      if (event.kind === 'overflow') return write(errorEnvelope(null, INVALID_REQUEST, 'Invalid Request: line exceeds the maximum message size'));
      if (event.line.trim() === '') return;
      write(receiver.answerText(event.line, scope));
    });
  });
}
