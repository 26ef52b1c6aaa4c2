// Which requirement IDs a generated scenario row exercises, derived from what the row puts on the
// wire and what it is tagged with. The generators call these (harness/generate/fixture-targets.ts)
// and write the result as the row's `requirements` field; the reports count a requirement as
// exercised by exactly the rows that name it. A row of a file without the field is "unmapped": we
// never guess for files we did not generate.

import { REQUIREMENTS_BY_ID } from './requirement-table.ts';

/** What every message of every row of ours carries: JSON-RPC 2.0 with a protocol version. */
const ON_EVERY_ROW = ['AHP-RPC-001', 'AHP-VER-001'];

/** What the wire content of a row shows, found anywhere in it. */
function wireRequirements(row: unknown): string[] {
  const found = new Set<string>();
  const walk = (value: unknown, key: string | undefined): void => {
    if (Array.isArray(value)) {
      if (key === 'effects') {
        if (value.length === 0) found.add('AHP-DEC-003').add('AHP-SEC-001');
        const types = value.map((effect) => (effect as { type?: unknown } | null)?.type);
        if (types.includes('deny')) found.add('AHP-DEC-001').add('AHP-DEC-002');
        if (types.includes('modify')) found.add('AHP-EDIT-001');
      }
      for (const item of value) walk(item, undefined);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const object = value as Record<string, unknown>;
    if (object.method === 'hooks/intercept' || object.method === 'hooks/observe') found.add('AHP-RPC-002');
    if (key === 'event' && object.type === 'tool.before') found.add('AHP-TB-001');
    if (key === 'capabilities' && Array.isArray(object.effects)) found.add('AHP-CAP-002');
    if ('extensions' in object) found.add('AHP-EXT-001').add('AHP-CORE-003');
    for (const [child, inner] of Object.entries(object)) walk(inner, child);
  };
  walk(row, undefined);
  return [...found];
}

/** Requirements a tag stands for, per family (exact tags, or `prefix:` for a family of tags). */
function taggedRequirements(tags: readonly string[], map: Readonly<Record<string, readonly string[]>>): string[] {
  return tags.flatMap((tag) => map[tag] ?? map[`${tag.split(':')[0]}:`] ?? []);
}

const CORE_TAGS: Record<string, readonly string[]> = {
  'capability-invalid': ['AHP-CAP-001'],
  // a response rejected as a whole although its other effects were fine
  'application-invalid': ['AHP-EDIT-001'],
};

const LIFECYCLE_TAGS: Record<string, readonly string[]> = {
  duplicates: ['AHP-CORE-004'],
  'late-old-reply': ['AHP-CORE-004'],
  'fail-open-after-cancel': ['AHP-FAIL-001'],
  'chain-fail-open': ['AHP-FAIL-001'],
  'chain-fail-closed': ['AHP-FAIL-001'],
  chain: ['AHP-COMP-001'],
  upload: ['AHP-CONTENT-002'],
  'upload-before-observe-body': ['AHP-CONTENT-002'],
  'upload-before-intercept-body': ['AHP-CONTENT-002'],
  'content-categories': ['AHP-CONTENT-001'],
  'stdio-frames': ['AHP-STDIO-001'],
};

const CATALOGUE_TAGS: Record<string, readonly string[]> = {
  'registration:': ['AHP-REG-001'],
  'registration:scope': ['AHP-REG-001', 'AHP-REG-002'],
  'registration:manifest-event': ['AHP-REG-001', 'AHP-REG-002'],
  'registration:wildcard': ['AHP-REG-001', 'AHP-REG-002'],
  'registration:unknown-fields': ['AHP-REG-001', 'AHP-CORE-003'],
  'registration:requirement-effect': ['AHP-REG-001', 'AHP-CAP-001'],
  'registration:unenforceable-policy': ['AHP-REG-001', 'AHP-FAIL-001'],
  'content:inline-messages': ['AHP-CONTENT-001'],
  'lineage:rule-3-retry': ['AHP-CORE-004'],
};

function sorted(ids: Iterable<string>): string[] {
  const unique = [...new Set(ids)].sort();
  const unknown = unique.filter((id) => !REQUIREMENTS_BY_ID.has(id));
  // A mapping that names an ID our table lacks is a bug of this module, caught by the generator run.
  if (unknown.length > 0) throw new Error(`harness/requirements/row-requirements.ts names IDs missing from the requirement table: ${unknown.join(', ')}`);
  return unique;
}

interface TaggedRow {
  tags?: readonly string[];
}

export function coreRowRequirements(row: TaggedRow): string[] {
  return sorted([...ON_EVERY_ROW, ...wireRequirements(row), ...taggedRequirements(row.tags ?? [], CORE_TAGS)]);
}

export function lifecycleRowRequirements(row: TaggedRow & { transports?: readonly string[] }): string[] {
  const onlyHttp = row.transports?.length === 1 && row.transports[0] === 'http' ? ['AHP-HTTP-001'] : [];
  return sorted([...ON_EVERY_ROW, ...wireRequirements(row), ...taggedRequirements(row.tags ?? [], LIFECYCLE_TAGS), ...onlyHttp]);
}

export function catalogueRowRequirements(row: TaggedRow): string[] {
  return sorted([...ON_EVERY_ROW, ...wireRequirements(row), ...taggedRequirements(row.tags ?? [], CATALOGUE_TAGS)]);
}

/** `file` with every row's `requirements` set by `of` (placed after the row's tags, for readable diffs). */
export function withRequirements<Row extends TaggedRow & { id: string }, File extends { scenarios: Row[] }>(file: File, of: (row: Row) => string[]): File {
  const scenarios = file.scenarios.map((row) => {
    const entries = Object.entries(row).filter(([key]) => key !== 'requirements');
    const at = entries.findIndex(([key]) => key === 'tags');
    entries.splice(at === -1 ? entries.length : at + 1, 0, ['requirements', of(row)]);
    return Object.fromEntries(entries) as Row;
  });
  return { ...file, scenarios };
}

/** The `requirements` field of a row as read from any scenario file: IDs, or undefined when the row has none (unmapped). */
export function requirementsField(row: unknown): string[] | undefined {
  const value = (row as { requirements?: unknown } | null)?.requirements;
  return Array.isArray(value) && value.every((id) => typeof id === 'string') ? (value as string[]) : undefined;
}
