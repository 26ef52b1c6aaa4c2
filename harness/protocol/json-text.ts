// JSON text → value, with the precise location of the first syntax error, and `describeValue` for
// the "got …" part of error messages. V8's JSON.parse messages only sometimes carry a position, so
// on failure the text is rescanned with a strict RFC 8259 scanner to find the first bad character.
// Used by the config, scenario, schema, manifest, readiness and client-report loaders.

/** A short rendering of a value for "got …" in error messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing (missing)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? '[] (an empty array)' : 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') {
    const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return value === '' ? '"" (an empty string)' : JSON.stringify(shown);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${typeof value} ${String(value)}`;
  }
  return typeof value;
}

/**
 * The outcome of parsing JSON text. On failure: the 0-based `offset` of the first bad character in
 * the text (after a leading byte order mark, which is ignored), its 1-based `line` and `column`,
 * `where` ("at line L, column C (offset O)") and a `reason` such as `expected a JSON value, got "o"`.
 */
export type JsonTextResult =
  | { ok: true; value: unknown }
  | { ok: false; offset: number; line: number; column: number; where: string; reason: string };

/** Parses JSON text (a leading byte order mark is ignored); never throws on bad input. */
export function parseJsonText(text: string): JsonTextResult {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(source) };
  } catch (error) {
    const found = locateJsonError(source) ?? { offset: 0, reason: error instanceof Error ? error.message : String(error) };
    const before = source.slice(0, found.offset);
    const line = before.split('\n').length;
    const column = found.offset - (before.lastIndexOf('\n') + 1) + 1;
    return {
      ok: false,
      offset: found.offset,
      line,
      column,
      where: `at line ${line}, column ${column} (offset ${found.offset})`,
      reason: found.reason,
    };
  }
}

/** The offset of the first syntax error in `text` and why, or null when the scanner cannot tell. */
function locateJsonError(text: string): { offset: number; reason: string } | null {
  let i = 0;
  class Stop {
    constructor(readonly offset: number, readonly reason: string) {}
  }
  const fail = (reason: string): never => {
    throw new Stop(i, i >= text.length ? `unexpected end of input; ${reason}` : `${reason}, got ${JSON.stringify(text[i])}`);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const digits = (what: string) => {
    if (!/[0-9]/.test(text[i] ?? '')) fail(`expected ${what}`);
    while (/[0-9]/.test(text[i] ?? '')) i++;
  };
  const string = () => {
    i++; // opening quote
    for (;;) {
      if (i >= text.length) fail('expected the closing quote of a string');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) fail('expected no raw control characters in a string (escape them)');
      if (c === 0x5c) {
        i++;
        const e = text[i] ?? '';
        if ('"\\/bfnrt'.includes(e) && e !== '') i++;
        else if (e === 'u') {
          i++;
          for (let k = 0; k < 4; k++) {
            if (!/[0-9a-fA-F]/.test(text[i] ?? '')) fail('expected 4 hex digits after \\u');
            i++;
          }
        } else fail('expected a valid escape sequence');
      } else i++;
    }
  };
  /** An object or array at its opening bracket: members separated by commas up to `close`. */
  const container = (close: '}' | ']', member: string, item: () => void): void => {
    i++;
    ws();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      item();
      ws();
      if (text[i] === close) {
        i++;
        return;
      }
      if (text[i] !== ',') fail(`expected ',' or '${close}' after ${member}`);
      i++;
    }
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      return container('}', 'a property value', () => {
        ws();
        if (text[i] !== '"') fail('expected a property name in double quotes');
        string();
        ws();
        if (text[i] !== ':') fail("expected ':' after a property name");
        i++;
        value();
      });
    }
    if (c === '[') return container(']', 'an array element', value);
    if (c === '"') return string();
    if (c === '-' || /[0-9]/.test(c ?? '')) {
      if (c === '-') i++;
      if (text[i] === '0') i++;
      else digits('a digit');
      if (text[i] === '.') {
        i++;
        digits('a digit after the decimal point');
      }
      if (text[i] === 'e' || text[i] === 'E') {
        i++;
        if (text[i] === '+' || text[i] === '-') i++;
        digits('a digit in the exponent');
      }
      return;
    }
    for (const word of ['true', 'false', 'null']) {
      if (c === word[0]) {
        for (const ch of word) {
          if (text[i] !== ch) fail(`expected the literal ${word}`);
          i++;
        }
        return;
      }
    }
    fail('expected a JSON value');
  };
  try {
    value();
    ws();
    if (i < text.length) fail('expected the end of the document after the top-level value');
    return null;
  } catch (stop) {
    if (stop instanceof Stop) return { offset: stop.offset, reason: stop.reason };
    return null; // e.g. nesting too deep for the scanner; the caller falls back to V8's message
  }
}
