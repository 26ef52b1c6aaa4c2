// When a client dies mid-run and leaves no readable report, every row of the run fails — but "no
// report" alone does not tell an author where to look. This says where the client was: the last
// request the harness saw reach the server (from the relay or proxy, else the server's receipts),
// the row that request belongs to and the row after it in the client's file, and the end of the
// client's own output. Pure: the caller reads the evidence and the log tail.

import { isJsonObject, jsonEqual, jsonKey } from '../protocol/json.ts';

/** Requests and notifications the harness saw, in arrival order, and who saw them (e.g. `the stdio relay`). */
export interface SeenMessages {
  messages: readonly unknown[];
  source: string;
}

export interface RunDeathInput {
  /** The rows in the order of the client's scenario file (ids as the client saw them). */
  rows: ReadonlyArray<{ id: string }>;
  /** What reached the server; undefined when the harness has no such evidence (then `noEvidence` says why). */
  seen: SeenMessages | undefined;
  noEvidence?: string;
  /** Whether the request was answered, when the harness recorded answers. */
  answered?: (message: unknown) => boolean | undefined;
  /** The redacted tail of the client's output; undefined when the log could not be read. */
  logTail: readonly string[] | undefined;
  logFile: string;
}

/** The protocol methods that are discovery, not a row's work. */
const DISCOVERY = new Set(['hooks/capabilities']);

/** The clue appended to a "no readable report" failure (starts with `; `). */
export function describeRunDeath(input: RunDeathInput): string {
  const parts = [whereItStopped(input), outputTail(input)];
  return `; ${parts.join('; ')}`;
}

function whereItStopped(input: RunDeathInput): string {
  const { rows } = input;
  if (input.seen === undefined) return `the row it stopped on is unknown: ${input.noEvidence ?? 'the harness saw no request of this run'}`;
  const work = input.seen.messages.filter((m) => !(isJsonObject(m) && typeof m.method === 'string' && DISCOVERY.has(m.method)));
  const last = work.at(-1);
  if (last === undefined) {
    const first = rows[0];
    return `${input.seen.source} saw no request of any row, so it stopped before or during its first row${first === undefined ? '' : ` "${first.id}"`}`;
  }
  const index = rowIndexOfMessage(rows, last);
  const row = index === undefined ? undefined : rows[index];
  const answered = input.answered?.(last);
  const answer = answered === undefined ? '' : answered ? ', and it was answered' : ', and no answer to it was recorded';
  const what = `${describeMessage(last)}${answer}`;
  if (row === undefined || index === undefined) {
    return `the last request ${input.seen.source} saw was ${what}, which belongs to no row of this run (${work.length} request(s) seen in all)`;
  }
  const next = rows[index + 1];
  const after = next === undefined ? 'it was the last row of its file' : `the next row in its file is "${next.id}"`;
  return `it stopped on or after row "${row.id}" (row ${index + 1} of ${rows.length}): the last request ${input.seen.source} saw was ${what}, which belongs to that row; ${after}`;
}

function outputTail(input: RunDeathInput): string {
  if (input.logTail === undefined) return `its output ${input.logFile} could not be read`;
  if (input.logTail.length === 0) return `its output ${input.logFile} is empty`;
  return `its output ends with (last ${input.logTail.length} line(s), secrets redacted):\n      | ${input.logTail.join('\n      | ')}`;
}

/** `<method> id <id>` (or `event id`, or `with no id`), in our own words. */
function describeMessage(message: unknown): string {
  if (!isJsonObject(message)) return 'a message that is not a JSON object';
  const method = typeof message.method === 'string' ? message.method : 'a message without a method';
  if (message.id !== undefined) return `${method} id ${JSON.stringify(message.id)}`;
  const eventId = eventIdOf(message);
  return eventId === undefined ? `${method} with no id and no event id` : `${method} with event id ${JSON.stringify(eventId)}`;
}

function eventIdOf(message: unknown): unknown {
  const params = isJsonObject(message) ? message.params : undefined;
  const event = isJsonObject(params) ? params.event : undefined;
  return isJsonObject(event) ? event.id : undefined;
}

/**
 * The index of the row a message belongs to, for any family: the row that holds the message itself
 * (a request, a notification, a chain call), else the row holding a request or notification with
 * its JSON-RPC id, else with its event id. Rows are searched as plain JSON, so lifecycle, catalogue
 * and core rows need no family code here.
 */
export function rowIndexOfMessage(rows: ReadonlyArray<{ id: string }>, message: unknown): number | undefined {
  const messagesOf = rows.map((row) => rowMessages(row));
  const exact = messagesOf.findIndex((messages) => messages.some((m) => jsonEqual(m, message)));
  if (exact >= 0) return exact;
  const id = isJsonObject(message) ? message.id : undefined;
  if (id !== undefined) {
    const byId = messagesOf.findIndex((messages) => messages.some((m) => m.id !== undefined && jsonKey(m.id) === jsonKey(id)));
    if (byId >= 0) return byId;
  }
  const eventId = eventIdOf(message);
  if (eventId !== undefined) {
    const key = jsonKey(eventId);
    const byEvent = messagesOf.findIndex((messages) => messages.some((m) => eventIdOf(m) !== undefined && jsonKey(eventIdOf(m)) === key));
    if (byEvent >= 0) return byEvent;
  }
  return undefined;
}

/** Every JSON-RPC request or notification (an object with `jsonrpc` and a `method`) anywhere in a row. */
function rowMessages(row: unknown): Array<Record<string, unknown>> {
  const found: Array<Record<string, unknown>> = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
    } else if (isJsonObject(value)) {
      if (typeof value.jsonrpc === 'string' && typeof value.method === 'string') found.push(value);
      for (const child of Object.values(value)) visit(child);
    }
  };
  visit(row);
  return found;
}
