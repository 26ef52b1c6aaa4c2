// The protocol runner's failure details are Python tuples (`('chain', 'summary', 'x', 'summary:base')`);
// rendering ours the same way keeps a failure greppable against the rules' text.

export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(value);
  if (typeof value === 'string') return pyString(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (typeof value === 'object') return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pyString(k)}: ${pyRepr(v)}`).join(', ')}}`;
  return String(value);
}

export function pyTuple(...items: unknown[]): string {
  return items.length === 1 ? `(${pyRepr(items[0])},)` : `(${items.map(pyRepr).join(', ')})`;
}

function pyString(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const escaped = text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
  return quote + (quote === "'" ? escaped.replace(/'/g, "\\'") : escaped) + quote;
}
