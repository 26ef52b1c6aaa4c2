// Reading a receiver's stdin as NDJSON messages: blank lines are skipped; an over-long line, a line
// that is not JSON, or one that is not an object with a string `method` is answered at once with a
// JSON-RPC error line (id null unless the line carried a usable one); every other line reaches
// `onMessage` in arrival order. What a receiver does with a message is its own business.

import type { Readable } from 'node:stream';

import { isJsonObject, type JsonObject } from '../../../harness/protocol/json.ts';
import { errorEnvelope, INVALID_REQUEST, PARSE_ERROR, replyId } from './jsonrpc.ts';
import { readLines } from './ndjson.ts';

export type MethodMessage = JsonObject & { method: string };

export function readMethodLines(input: Readable, writeLine: (text: string) => unknown, handlers: { onMessage: (message: MethodMessage) => void; onEnd: () => void }): void {
  readLines(input, (event) => {
    if (event.kind === 'end') return handlers.onEnd();
    if (event.kind === 'overflow') return void writeLine(errorEnvelope(null, INVALID_REQUEST, 'Invalid Request: line exceeds the maximum message size'));
    if (event.line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(event.line);
    } catch {
      return void writeLine(errorEnvelope(null, PARSE_ERROR, 'Parse error: the line is not valid JSON'));
    }
    if (!isJsonObject(message) || typeof message.method !== 'string') return void writeLine(invalidRequest(message));
    handlers.onMessage(message as MethodMessage);
  });
}

/** The error line for a message that is not one JSON-RPC 2.0 message object. */
export function invalidRequest(message: unknown): string {
  return errorEnvelope(replyId(message), INVALID_REQUEST, 'Invalid Request: expected one JSON-RPC 2.0 message object');
}
