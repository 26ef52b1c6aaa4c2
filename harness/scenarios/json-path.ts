// JSON paths as scenario file errors print them: `scenarios[3].steps[0].key`, `requests["a-b"]`.
// Shared by the core and lifecycle scenario loaders and lints so that every message reads alike.

/** `base` extended by an object key: dotted when the key is an identifier, bracketed otherwise. */
export function joinPath(base: string, key: string): string {
  const segment = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `[${JSON.stringify(key)}]`;
  if (segment.startsWith('[')) return `${base}${segment}`;
  return base === '' ? segment : `${base}.${segment}`;
}

/** `base` extended by an array index. */
export function indexPath(base: string, index: number): string {
  return `${base}[${index}]`;
}

/** A JSON pointer (`/scenarios/3/steps/0`, as ajv reports it) as a JSON path (`scenarios[3].steps[0]`). */
export function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .split('/')
    .slice(1)
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? indexPath(acc, Number(part)) : joinPath(acc, part)), '');
}
