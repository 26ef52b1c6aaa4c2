// Compaction text travels inline as canonical text-part lists (no uploads). These two helpers are
// the only way the adapter turns a string into parts and back, so the host, the receiver and the
// runtime agree on what counts as inline text.

import { isJsonObject, type JsonObject } from '../../../harness/protocol/json.ts';

export type TextPart = JsonObject & { id: string; kind: 'text'; mediaType: 'text/plain'; selection: 'body'; text: string };

/** One inline body text part holding `text` (the protocol's helpers default the id to "text"). */
export function textParts(text: string, id = 'text'): TextPart[] {
  return [{ id, kind: 'text', mediaType: 'text/plain', selection: 'body', text }];
}

const PART_KEYS = new Set(['id', 'kind', 'mediaType', 'selection', 'text', 'category', 'synthesized']);

/**
 * Why `value` is not a list of inline body text parts, or undefined when it is. A legacy `body`
 * reference, a content gap, a metadata/omit selection or a non-string text all disqualify it: such
 * parts hide text, and a replacement may never stand on hidden text.
 */
export function textPartsProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'is not a list of text parts';
  for (const [index, part] of value.entries()) {
    if (!isJsonObject(part)) return `[${index}] is not an object`;
    if (part.kind !== 'text') return `[${index}].kind is not "text"`;
    if (part.selection !== 'body') return `[${index}].selection is not "body"`;
    if (part.mediaType !== 'text/plain') return `[${index}].mediaType is not "text/plain"`;
    if (typeof part.id !== 'string' || part.id === '') return `[${index}].id is not a non-empty string`;
    if (typeof part.text !== 'string') return `[${index}].text is not a string`;
    const extra = Object.keys(part).find((key) => !PART_KEYS.has(key));
    if (extra !== undefined) return `[${index}] carries "${extra}", which inline text never has`;
  }
  return undefined;
}

/** The concatenated text of inline body text parts; throws (naming the problem) for anything else. */
export function inlineText(value: unknown): string {
  const problem = textPartsProblem(value);
  if (problem !== undefined) throw new TypeError(`not inline text: ${problem}`);
  return (value as TextPart[]).map((part) => part.text).join('');
}
