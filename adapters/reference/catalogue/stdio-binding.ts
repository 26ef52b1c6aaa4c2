// The catalogue receiver's stdio binding: one compact JSON message per line on stdin and stdout,
// stdout carrying nothing but protocol lines, each write one whole line.
//
//   hooks/capabilities with an id  → one reply line (the discovery response, or a JSON-RPC error)
//   hooks/observe                  → judged and recorded; never a reply, whatever the verdict (a
//                                    notification gets none, and a rejection does not stop the receiver)
//   any other method with an id    → a JSON-RPC "method not found" error line
// A line that is not JSON, or not an object with a method, gets a JSON-RPC error with id null when
// it cannot be a notification; nothing of it is recorded.

import type { Readable, Writable } from 'node:stream';

import { errorEnvelope, METHOD_NOT_FOUND, replyId } from '../lib/jsonrpc.ts';
import type { Log } from '../lib/log.ts';
import { readMethodLines } from '../lib/method-lines.ts';
import type { CatalogueReceiver } from './receiver.ts';

export function serveCatalogueStdio(receiver: CatalogueReceiver, input: Readable, output: Writable, log: Log, onEnd: () => void): void {
  const writeLine = (text: string): void => {
    output.write(`${text}\n`);
  };
  readMethodLines(input, writeLine, {
    onEnd,
    onMessage: (message) => {
      if (message.method === 'hooks/observe') return void receiver.observe(message);
      if (message.id === undefined) return log.info(`ignored a ${message.method.slice(0, 60)} notification`);
      if (message.method === 'hooks/capabilities') return writeLine(receiver.discover(message).body);
      writeLine(errorEnvelope(replyId(message), METHOD_NOT_FOUND, 'Method not found: this receiver takes hooks/capabilities and hooks/observe'));
    },
  });
}
