// The three helpers COMPACTION-RULES §3 infers (the protocol's runner imports them from a module no
// stored revision defines), in our own words: canonical inline text parts, the strict reading of
// them back, and the canonical form of a configured effect. The verifier, the simulator and the
// generator all use these, so what the harness sends and what it accepts cannot drift apart.

import { isJsonObject, type JsonObject, type JsonValue } from '../../protocol/json.ts';

// A type alias (not an interface) so a part is assignable to JsonValue.
export type TextPart = {
  id: string;
  kind: 'text';
  mediaType: 'text/plain';
  selection: 'body';
  text: string;
};

/** One inline body text part holding `text` (the rules' default part id is `text`). */
export function textParts(text: string, id = 'text'): TextPart[] {
  return [{ id, kind: 'text', mediaType: 'text/plain', selection: 'body', text }];
}

/** Why a value is not an inline text-part list (what `inlineText` refuses). */
export class InlineTextError extends Error {
  override readonly name = 'InlineTextError';
}

/**
 * The concatenated text of an inline body text-part list. Strict, unlike a lenient SDK reader: a
 * non-list, or a part that is not `kind:"text"` with a string `text`, whose `selection` is not
 * `body`, or that carries `body` (the legacy upload reference) or `gap`, is refused — a sender that
 * still uploads would otherwise pass the text comparisons.
 */
export function inlineText(parts: unknown): string {
  if (!Array.isArray(parts)) throw new InlineTextError(`expected a list of inline text parts, got ${describe(parts)}`);
  return parts
    .map((part, i) => {
      if (!isJsonObject(part)) throw new InlineTextError(`part ${i}: expected an object, got ${describe(part)}`);
      if (part.kind !== 'text') throw new InlineTextError(`part ${i}: expected kind "text", got ${describe(part.kind)}`);
      if (typeof part.text !== 'string') throw new InlineTextError(`part ${i}: expected a string text, got ${describe(part.text)}`);
      if ('selection' in part && part.selection !== 'body') throw new InlineTextError(`part ${i}: expected selection "body", got ${describe(part.selection)}`);
      if ('body' in part) throw new InlineTextError(`part ${i}: carries a legacy body reference; text must be inline`);
      if ('gap' in part) throw new InlineTextError(`part ${i}: carries a gap; text must be whole and inline`);
      return part.text;
    })
    .join('');
}

/** `inlineText`, or undefined when the value is not inline text (the caller words the failure). */
export function tryInlineText(parts: unknown): { ok: true; text: string } | { ok: false; why: string } {
  try {
    return { ok: true, text: inlineText(parts) };
  } catch (error) {
    if (error instanceof InlineTextError) return { ok: false, why: error.message };
    throw error;
  }
}

/**
 * A configured effect as a receiver sends it: a `return` whose value is a plain string becomes a
 * text-part list (a supplied summary is text parts, composition.md); every other effect is already
 * canonical and stays as it is.
 */
export function canonicalEffect(effect: JsonObject): JsonObject {
  if (effect.type === 'return' && typeof effect.value === 'string') return { type: 'return', value: textParts(effect.value) as unknown as JsonValue };
  return effect;
}

/** The receiver's `modify … replace` effect of `text` on `target`. */
export function modifyEffect(target: 'instructions' | 'summary', text: string): JsonObject {
  return { type: 'modify', target, operation: 'replace', value: textParts(text) as unknown as JsonValue };
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
