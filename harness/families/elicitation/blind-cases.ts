// Blind mode for the elicitation family: no plan carries an expectation (§4), so what a sender could
// branch on is the case's name — in event ids (`<name>:request`), sessions, item ids and local refs.
// Each blind pair run gets a copy of the case file where every case name is a fresh opaque one, in
// every string that is the name or starts with `<name>:`; bodies are untouched (they hold no names).
// The verdicts come back under the real ids, with the opaque names in their messages turned back.

import { randomBytes } from 'node:crypto';

import type { RowOutcome } from '../../setup/grouped-suite.ts';
import type { ElicitationCaseFile } from './case-types.ts';

export interface BlindElicitationRun {
  file: ElicitationCaseFile;
  /** Real test id → opaque id, and back. */
  opaqueId: Map<string, string>;
  originalId: Map<string, string>;
  /** `outcome` with every opaque name in its text replaced by the real one. */
  reveal(outcome: RowOutcome): RowOutcome;
}

export function blindRun(file: ElicitationCaseFile, random: () => string = () => randomBytes(8).toString('hex')): BlindElicitationRun {
  const names = new Map<string, string>();
  const name = (real: string): void => {
    if (!names.has(real)) names.set(real, `blind-${random()}`);
  };
  for (const wire of [...file.cases, file.concurrent]) {
    name(wire.id);
    for (const step of wire.steps) if (step.kind === 'intercept') name(prefixOf(step.eventId));
  }
  for (const row of file.atomic) {
    name(row.id);
    for (const envelope of [row.input.request, row.input.result]) {
      const id = (envelope?.params as { event?: { id?: unknown } } | undefined)?.event?.id;
      if (typeof id === 'string') name(prefixOf(id));
    }
  }
  for (const probe of file.probes) name(probe.id);
  const rename = (text: string): string => {
    const whole = names.get(text);
    if (whole !== undefined) return whole;
    const colon = text.indexOf(':');
    const head = colon > 0 ? names.get(text.slice(0, colon)) : undefined;
    return head === undefined ? text : `${head}${text.slice(colon)}`;
  };
  const blinded = renameStrings(stripDescriptions(file), rename) as ElicitationCaseFile;
  const back = new Map([...names].map(([real, opaque]) => [opaque, real]));
  const revealText = (text: string): string => text.replace(/blind-[0-9a-f]{16}/g, (opaque) => back.get(opaque) ?? opaque);
  const ids = [...file.cases.map((wire) => wire.id), file.concurrent.id, ...file.atomic.map((row) => row.id), ...file.probes.map((probe) => probe.id)];
  return {
    file: blinded,
    opaqueId: new Map(ids.map((id) => [id, names.get(id)!])),
    originalId: new Map(ids.map((id) => [names.get(id)!, id])),
    reveal: (outcome) => ({ ...outcome, reason: revealText(outcome.reason), errors: outcome.errors.map(revealText) }),
  };
}

function prefixOf(eventId: string): string {
  const colon = eventId.indexOf(':');
  return colon > 0 ? eventId.slice(0, colon) : eventId;
}

/** What a pair's processes never see anyway, dropped so no copy of a description travels: proves, tags. */
function stripDescriptions(file: ElicitationCaseFile): ElicitationCaseFile {
  const strip = <T extends { proves: string }>(entry: T): T => ({ ...entry, proves: '', ...('tags' in entry ? { tags: [] } : {}) });
  return { ...file, cases: file.cases.map(strip), concurrent: strip(file.concurrent), atomic: file.atomic.map(strip), probes: file.probes.map(strip) };
}

function renameStrings(value: unknown, rename: (text: string) => string): unknown {
  if (typeof value === 'string') return rename(value);
  if (Array.isArray(value)) return value.map((item) => renameStrings(item, rename));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renameStrings(item, rename)]));
  return value;
}
