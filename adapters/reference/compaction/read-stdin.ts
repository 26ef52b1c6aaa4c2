// The host and the probe client take their plan as one JSON document on stdin.

import type { Readable } from 'node:stream';

export const MAX_PLAN_BYTES = 16 * 1024 * 1024;

/** The parsed JSON document on `input`, or a message saying why there is none. */
export async function readJsonInput(input: Readable, what: string): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_PLAN_BYTES) return { ok: false, error: `${what}: larger than ${MAX_PLAN_BYTES} bytes` };
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { ok: false, error: `${what}: empty (expected one JSON document on stdin)` };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, error: `${what}: not valid JSON` };
  }
}
