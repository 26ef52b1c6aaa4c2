// The known-failure baseline: rows an SDK is known to fail today, so its CI stays green while every
// regression still fails — and an entry cannot go stale, because a listed row that passes fails the
// run ("remove it from the baseline"), exactly as a regression would.
//
// File (JSON): {"version": 1, "entries": [{"group", "id", "reason", "project"?}]}
//   group   the test's group label, `<server>→<client> <transport>/<auth>` (core, lifecycle), or
//           `<server> <mode>/<case>` (auth) / `<server> <mode>` (receiver probes); `*` stands for one
//           whole segment (a server, a client, a transport or a mode)
//   id      the test's name (scenario id, endpoint, `receiver/<probe>`), or `*` for every row
//   reason  why it fails (kept when the file is rewritten)
//   project optional: only rows of that vitest project (`core`, `lifecycle`, `auth`, ...)

import { readFileSync } from 'node:fs';

import { describeValue, parseJsonText } from '../protocol/json-text.ts';

export interface BaselineEntry {
  group: string;
  id: string;
  reason: string;
  project?: string;
}

/** A broken baseline file or an entry that matches nothing; names the file and the entry. */
export class BaselineError extends Error {
  override readonly name = 'BaselineError';
  constructor(
    readonly file: string,
    readonly field: string,
    problem: string,
  ) {
    super(`${file}: ${field ? `${field}: ` : ''}${problem}`);
  }
}

/** One test a baseline entry may name. */
export interface BaselineRow {
  project: string;
  group: string;
  id: string;
}

export class Baseline {
  private readonly patterns: RegExp[];

  constructor(
    readonly file: string,
    readonly entries: readonly BaselineEntry[],
  ) {
    this.patterns = entries.map((entry) => groupPattern(entry.group));
  }

  /** The first entry that lists the row, with its index; undefined when none does. */
  match(row: BaselineRow): { entry: BaselineEntry; index: number } | undefined {
    const index = this.entries.findIndex((entry, i) => matches(entry, this.patterns[i]!, row));
    return index < 0 ? undefined : { entry: this.entries[index]!, index };
  }

  /** Every entry must name at least one configured row; otherwise it is an error naming it. */
  checkCoverage(rows: readonly BaselineRow[]): void {
    this.entries.forEach((entry, i) => {
      if (!rows.some((row) => matches(entry, this.patterns[i]!, row))) {
        throw new BaselineError(this.file, `entries[${i}]`, `${JSON.stringify(entry)} matches no configured row (check the group label, the id and the project)`);
      }
    });
  }
}

function matches(entry: BaselineEntry, group: RegExp, row: BaselineRow): boolean {
  return (entry.project === undefined || entry.project === row.project) && group.test(row.group) && (entry.id === '*' || entry.id === row.id);
}

/** `*` matches one segment: everything but the label's separators (`→`, space, `/`). */
function groupPattern(group: string): RegExp {
  const source = group
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^→ /]+');
  return new RegExp(`^${source}$`);
}

const ENTRY_KEYS = ['group', 'id', 'reason', 'project'];

export function parseBaseline(text: string, file: string): Baseline {
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new BaselineError(file, '', `not valid JSON ${parsed.where}: ${parsed.reason}`);
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BaselineError(file, '', `expected {"version": 1, "entries": [...]}, got ${describeValue(value)}`);
  }
  const raw = value as Record<string, unknown>;
  for (const key of Object.keys(raw)) if (key !== 'version' && key !== 'entries') throw new BaselineError(file, key, 'unknown key (expected version and entries)');
  if (raw.version !== 1) throw new BaselineError(file, 'version', `expected 1, got ${describeValue(raw.version)}`);
  if (!Array.isArray(raw.entries)) throw new BaselineError(file, 'entries', `expected an array of {group, id, reason}, got ${describeValue(raw.entries)}`);
  const entries = raw.entries.map((item, i): BaselineEntry => {
    const at = `entries[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new BaselineError(file, at, `expected {group, id, reason}, got ${describeValue(item)}`);
    const entry = item as Record<string, unknown>;
    for (const key of Object.keys(entry)) if (!ENTRY_KEYS.includes(key)) throw new BaselineError(file, `${at}.${key}`, `unknown key (expected ${ENTRY_KEYS.join(', ')})`);
    for (const key of ['group', 'id', 'reason'] as const) {
      if (typeof entry[key] !== 'string' || entry[key] === '') throw new BaselineError(file, `${at}.${key}`, `expected a non-empty string, got ${describeValue(entry[key])}`);
    }
    if (entry.project !== undefined && (typeof entry.project !== 'string' || entry.project === '')) {
      throw new BaselineError(file, `${at}.project`, `expected a vitest project name, got ${describeValue(entry.project)}`);
    }
    return {
      group: entry.group as string,
      id: entry.id as string,
      reason: entry.reason as string,
      ...(entry.project === undefined ? {} : { project: entry.project as string }),
    };
  });
  return new Baseline(file, entries);
}

/** Reads the baseline file; a missing file is an empty baseline (the update run creates it). */
export function loadBaseline(file: string): Baseline {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Baseline(file, []);
    throw new BaselineError(file, '', `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return parseBaseline(text, file);
}

/** The environment variable that turns a run into a baseline update (`npm run baseline`). */
export const UPDATE_BASELINE_ENV = 'AHP_UPDATE_BASELINE';

export function updatingBaseline(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env[UPDATE_BASELINE_ENV];
  return value !== undefined && value !== '' && value !== '0';
}
