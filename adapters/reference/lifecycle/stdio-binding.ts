// The lifecycle receiver's stdio binding: one compact JSON message per line on stdin and stdout,
// stdout carrying nothing but protocol lines. Lines are handled concurrently — observations, new
// requests and duplicate attempts arrive while earlier intercepts are held — and every write is one
// whole line, so writes never interleave (`writeLine` resolves once the line is flushed).
//
// An invalid or unresolvable hooks/observe line is fatal (a notification has no id to answer an
// error to, LIFECYCLE-RULES §3): `onFatal` ends the receiver. Other refused lines get a JSON-RPC error.

import type { Readable, Writable } from 'node:stream';

import { errorEnvelope, METHOD_NOT_FOUND, replyId } from '../lib/jsonrpc.ts';
import type { Log } from '../lib/log.ts';
import { invalidRequest, readMethodLines, type MethodMessage } from '../lib/method-lines.ts';
import type { LifecycleReceiver } from './receiver.ts';

export interface StdioLines {
  writeLine(text: string): Promise<void>;
}

export function serveLifecycleStdio(
  receiver: LifecycleReceiver,
  input: Readable,
  output: Writable,
  log: Log,
  handlers: { onEnd: () => void; onFatal: (reason: string) => void },
): StdioLines {
  const writeLine = (text: string): Promise<void> =>
    new Promise((resolve) => {
      output.write(`${text}\n`, () => resolve());
    });
  const fail = (error: unknown): void => log.error(`unexpected failure handling a stdio line: ${error instanceof Error ? error.message : String(error)}`);

  const handle = (message: MethodMessage): void => {
    if (message.jsonrpc !== '2.0') return void writeLine(invalidRequest(message));
    if (message.method === 'hooks/intercept') {
      return void receiver.intercept(message).then((reply) => writeLine(reply.body), fail);
    }
    if (message.method === 'hooks/observe') {
      const observed = receiver.observe(message);
      if (!observed.ok) return handlers.onFatal(`hooks/observe line refused (${observed.status}: ${observed.reason})`);
      if (observed.unsolicited !== undefined) void writeLine(observed.unsolicited);
      return;
    }
    if (message.id !== undefined) void writeLine(errorEnvelope(replyId(message), METHOD_NOT_FOUND, 'Method not found: this receiver takes hooks/intercept and hooks/observe'));
  };
  readMethodLines(input, writeLine, { onEnd: handlers.onEnd, onMessage: handle });
  return { writeLine };
}
