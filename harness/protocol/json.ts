// JSON values as they travel on the wire; everything the suites exchange is plain JSON.
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deep JSON equality where object key order is irrelevant and types are strict
 * (a boolean is never a number, `1` is never `"1"`). Arrays compare by length and order.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b) return false;
  if (typeof a === 'number') return Number.isNaN(a) && Number.isNaN(b as number);
  if (typeof a !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const aKeys = Object.keys(ao);
  if (aKeys.length !== Object.keys(bo).length) return false;
  for (const key of aKeys) {
    if (!Object.prototype.hasOwnProperty.call(bo, key)) return false;
    if (!jsonEqual(ao[key], bo[key])) return false;
  }
  return true;
}

/**
 * A string that two JSON values (as parsed, plus `undefined` and `NaN`) share exactly when `jsonEqual`
 * holds for them (object keys sorted; `NaN`, `undefined` and the infinities spelled apart from any JSON
 * text): a Map key, so that finding a
 * message among n scenarios costs one lookup instead of n deep comparisons.
 */
export function jsonKey(value: unknown): string {
  if (value === undefined) return 'u';
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : `n${String(value)}`;
  if (typeof value !== 'object' || value === null) return typeof value === 'string' || typeof value === 'boolean' || value === null ? JSON.stringify(value) : `?${typeof value}:${String(value)}`;
  if (Array.isArray(value)) return `[${value.map(jsonKey).join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${jsonKey(record[key])}`)
    .join(',')}}`;
}

/** The first item for each key (as `Array.find` with `jsonEqual` would pick it); items whose key is undefined are left out. */
export function indexByJson<T>(items: readonly T[], keyOf: (item: T) => unknown): Map<string, T> {
  const index = new Map<string, T>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === undefined) continue;
    const text = jsonKey(key);
    if (!index.has(text)) index.set(text, item);
  }
  return index;
}

/**
 * A structural copy, so that staged state can never alias a caller's objects. A direct walk is
 * several times faster than a JSON round trip, and the oracle copies on every accepted response.
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = cloneJson((value as Record<string, unknown>)[key]);
    // JSON.parse makes "__proto__" an own key; plain assignment would set the prototype instead.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy as T;
}
