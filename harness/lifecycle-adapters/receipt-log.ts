// The receipt log as the checks read it: every entry keeps its position in the log the receiver
// returned, so that failures can name `entries[<n>]` and order checks compare positions. Also the
// small readers every check shares (JSON-RPC id keys, a message's event id and body references).

import { isJsonObject, type JsonObject } from '../protocol/json.ts';
import { describeValue } from '../protocol/json-text.ts';

export interface LogEntry {
  /** Position in the receipt log's `entries`. */
  index: number;
  /** `entry.kind` when it is a string. */
  kind: string | undefined;
  entry: JsonObject;
}

/** How a family's failures name the receipt log and what they expect of it. */
export interface ReceiptLogWording {
  /** The message when there is no log at all; without it, a missing log reads like any non-object. */
  missing?: string;
  /** The log itself, e.g. `the receipt log`. */
  log: string;
  /** What the log should be, e.g. `an object {entries:[...]}`. */
  expected: string;
  /** Its entries, e.g. `receipts.entries`. */
  entries: string;
  /** What the entries should be, e.g. `an array`. */
  list: string;
}

/** The lifecycle verifier's words (§7.1 (7)); the caller adds where the log came from. */
export const LIFECYCLE_LOG_WORDING: ReceiptLogWording = {
  missing: 'there is no receipt log',
  log: 'the receipt log',
  expected: 'an object {entries:[...]}',
  entries: 'receipts.entries',
  list: 'an array',
};

/**
 * The entries of `{entries:[...]}` when every entry is an object (LIFECYCLE-RULES §7.1 (7); the
 * catalogue's §6 (6) too), else why not, in `wording`.
 */
export function readReceiptLog(receipts: unknown, wording: ReceiptLogWording = LIFECYCLE_LOG_WORDING): { entries: LogEntry[] } | { problem: string } {
  if (receipts === undefined && wording.missing !== undefined) return { problem: wording.missing };
  if (!isJsonObject(receipts)) return { problem: `${wording.log} is ${describeValue(receipts)}, expected ${wording.expected}` };
  const entries = receipts.entries;
  if (!Array.isArray(entries)) return { problem: `${wording.entries} is ${describeValue(entries)}, expected ${wording.list}` };
  const read: LogEntry[] = [];
  for (const [index, entry] of entries.entries()) {
    if (!isJsonObject(entry)) return { problem: `${wording.entries}[${index}] is ${describeValue(entry)}, expected an object` };
    read.push({ index, kind: typeof entry.kind === 'string' ? entry.kind : undefined, entry });
  }
  return { entries: read };
}

/**
 * A map key for a JSON-RPC id or event id that keeps `1` and `"1"` apart; `undefined` for anything
 * that is not a string or a number.
 */
export function idKey(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' ? JSON.stringify(value) : undefined;
}

/** `entries[4] received "a:1"`: how failures name an entry. */
export function describeEntry(e: LogEntry): string {
  const kind = e.kind ?? `(kind ${describeValue(e.entry.kind)})`;
  const id = e.entry.id ?? e.entry.eventId;
  return `entries[${e.index}] ${kind}${id === undefined ? '' : ` ${JSON.stringify(id)}`}`;
}

export function describeEntries(list: readonly LogEntry[]): string {
  return list.length === 0 ? 'none' : list.map(describeEntry).join(', ');
}

/** `message.params.event` when the message has one. */
export function eventOf(message: unknown): JsonObject | undefined {
  if (!isJsonObject(message) || !isJsonObject(message.params)) return undefined;
  return isJsonObject(message.params.event) ? message.params.event : undefined;
}

/** The `items[].body.ref` strings of an event. */
export function bodyRefs(event: JsonObject | undefined): string[] {
  if (event === undefined || !Array.isArray(event.items)) return [];
  const refs: string[] = [];
  for (const item of event.items) {
    if (isJsonObject(item) && isJsonObject(item.body) && typeof item.body.ref === 'string') refs.push(item.body.ref);
  }
  return refs;
}

/** The entries of `kind` (optionally with `id`), in log order. */
export function entriesOf(entries: readonly LogEntry[], kind: string, id?: unknown): LogEntry[] {
  const key = id === undefined ? undefined : idKey(id);
  return entries.filter((e) => e.kind === kind && (key === undefined || idKey(e.entry.id) === key));
}

/** Whether some entry of `list` comes before log position `index`. */
export function anyBefore(list: readonly LogEntry[], index: number): boolean {
  return list.some((e) => e.index < index);
}

/**
 * The body refs of `e`'s message that no earlier 201 upload receipt assigned: a body may only be
 * dispatched once its bytes are confirmed (§7.5 (24), §7.7 (28)).
 */
export function refsWithoutPriorUpload(entries: readonly LogEntry[], e: LogEntry): string[] {
  const refs = bodyRefs(eventOf(e.entry.message));
  return refs.filter((ref) => !entries.some((u) => u.kind === 'upload' && u.index < e.index && u.entry.status === 201 && u.entry.ref === ref));
}
