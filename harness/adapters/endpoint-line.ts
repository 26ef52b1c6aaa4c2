// Reads a receiver's readiness the way the elicitation and compaction runners do: the first line of
// its stdout is `{"endpoint":"http://127.0.0.1:<port>"}`, and nothing else on stdout is read (the rest
// is drained, so a chatty receiver never blocks on a full pipe). Families word the failures with
// their own labels; this module says only what happened, with the stderr tail for a receiver that
// ended before it was ready.

import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';

export type EndpointLine =
  | { ok: true; endpoint: string; line: string }
  /** timeout: no line in time; eof: stdout closed first (detail = stderr tail); invalid: the line is not an endpoint. */
  | { ok: false; kind: 'timeout' | 'eof' | 'invalid'; detail: string };

export interface EndpointLineOptions {
  timeoutMs: number;
  /** The receiver's stderr file: its tail is the detail of an `eof`. */
  stderrFile?: string;
  /** How much of the stderr tail to keep (bytes, the runners' 1500 by default). */
  tailBytes?: number;
}

const MAX_LINE_BYTES = 64 * 1024;

export function readEndpointLine(stdout: Readable, options: EndpointLineOptions): Promise<EndpointLine> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: EndpointLine): void => {
      if (settled) return;
      settled = true;
      clearTimeout(watchdog);
      stdout.off('data', onData);
      stdout.off('end', onEnd);
      stdout.off('error', onEnd);
      stdout.on('data', () => undefined); // drain what follows; never read
      stdout.on('error', () => undefined);
      resolve(result);
    };
    const watchdog = setTimeout(
      () => finish({ ok: false, kind: 'timeout', detail: `no line on stdout within ${options.timeoutMs} ms` }),
      options.timeoutMs,
    );
    const onData = (chunk: Buffer | string): void => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      const newline = buffer.indexOf(0x0a);
      if (newline < 0) {
        chunks.push(buffer);
        size += buffer.length;
        if (size > MAX_LINE_BYTES) finish({ ok: false, kind: 'invalid', detail: `the first stdout line exceeds ${MAX_LINE_BYTES} bytes` });
        return;
      }
      chunks.push(buffer.subarray(0, newline));
      finish(parseLine(Buffer.concat(chunks).toString('utf8').replace(/\r$/, '')));
    };
    const onEnd = (): void => {
      const partial = Buffer.concat(chunks).toString('utf8');
      if (partial.trim() !== '') {
        finish(parseLine(partial));
        return;
      }
      finish({ ok: false, kind: 'eof', detail: stderrTail(options.stderrFile, options.tailBytes ?? 1500) });
    };
    stdout.on('data', onData);
    stdout.once('end', onEnd);
    stdout.once('error', onEnd);
  });
}

function parseLine(line: string): EndpointLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, kind: 'invalid', detail: `the first stdout line is not JSON: ${JSON.stringify(line.slice(0, 200))}` };
  }
  const endpoint = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>).endpoint : undefined;
  if (typeof endpoint !== 'string' || !/^https?:\/\/[^/\s]+/.test(endpoint)) {
    return { ok: false, kind: 'invalid', detail: `expected {"endpoint":"http://127.0.0.1:<port>"} as the first stdout line, got ${JSON.stringify(line.slice(0, 200))}` };
  }
  return { ok: true, endpoint, line };
}

/** The last `bytes` of a stderr file, decoded as UTF-8 with replacement ('' when there is none). */
export function stderrTail(file: string | undefined, bytes: number): string {
  if (file === undefined) return '';
  let content: Buffer;
  try {
    content = readFileSync(file);
  } catch {
    return '';
  }
  return content.subarray(Math.max(0, content.length - bytes)).toString('utf8');
}
