// The spec's own list of requirement IDs, read from a checkout of the draft: `requirements.json`
// (`{requirements: [{id, level}]}`), the `x-requirements` arrays of the schemas, and the tagged
// statements of the documents (`**AHP-XXX-NNN — MUST.**`). The three sources overlap; the copy we
// know lists fewer IDs in requirements.json than the documents tag, so every source counts.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { projectRoot } from '../config/load-config.ts';
import type { Requirement, RequirementLevel } from './requirement-table.ts';

export const DEFAULT_SPEC_DIR = path.resolve(projectRoot(), '..', 'shared', 'reference', 'spec');
export const DEFAULT_SPEC_SCHEMA_DIR = path.resolve(projectRoot(), '..', 'shared', 'reference', 'schema');

const LEVELS: readonly RequirementLevel[] = ['MUST NOT', 'MUST', 'SHOULD NOT', 'SHOULD', 'MAY'];
const ID = /^AHP-[A-Z]+-\d{3}$/;
const TAGGED_STATEMENT = /\*\*(AHP-[A-Z]+-\d{3}) — (MUST NOT|MUST|SHOULD NOT|SHOULD|MAY)\.\*\*/g;

/** A spec source that cannot be read as the format it should have; names the file and the field. */
export class SpecRequirementsError extends Error {
  override readonly name = 'SpecRequirementsError';
  constructor(
    readonly file: string,
    readonly field: string,
    problem: string,
  ) {
    super(`${file}: ${field ? `${field}: ` : ''}${problem}`);
  }
}

export interface SpecId {
  id: string;
  /** The level the spec states, when a source states one (schemas only name IDs). */
  level?: RequirementLevel;
  /** Where the ID was found, for messages. */
  sources: string[];
}

/** Every requirement ID of the spec at `specDir` and the schemas at `schemaDir`, sorted by ID. */
export function readSpecIds(specDir: string, schemaDir: string): SpecId[] {
  const ids = new Map<string, SpecId>();
  const add = (id: string, source: string, level?: RequirementLevel): void => {
    const entry = ids.get(id) ?? { id, sources: [] };
    if (level !== undefined) entry.level ??= level;
    if (!entry.sources.includes(source)) entry.sources.push(source);
    ids.set(id, entry);
  };
  const listFile = path.join(specDir, 'requirements.json');
  for (const { id, level } of readRequirementList(listFile)) add(id, listFile, level);
  for (const file of filesUnder(specDir, '.md')) {
    for (const match of readFileSync(file, 'utf8').matchAll(TAGGED_STATEMENT)) add(match[1]!, file, match[2] as RequirementLevel);
  }
  for (const file of filesUnder(schemaDir, '.json')) {
    for (const id of schemaRequirementIds(file)) add(id, file);
  }
  return [...ids.values()].sort((a, b) => a.id.localeCompare(b.id));
}

function readRequirementList(file: string): Array<{ id: string; level: RequirementLevel }> {
  const value = readJson(file);
  const list = (value as { requirements?: unknown }).requirements;
  if (!Array.isArray(list)) throw new SpecRequirementsError(file, 'requirements', 'expected an array of {id, level, ...}');
  return list.map((entry: unknown, i) => {
    const { id, level } = (entry ?? {}) as { id?: unknown; level?: unknown };
    if (typeof id !== 'string' || !ID.test(id)) throw new SpecRequirementsError(file, `requirements[${i}].id`, `expected an ID like AHP-COMP-001, got ${JSON.stringify(id)}`);
    if (typeof level !== 'string' || !LEVELS.includes(level as RequirementLevel)) {
      throw new SpecRequirementsError(file, `requirements[${i}].level`, `expected one of ${LEVELS.join(', ')}, got ${JSON.stringify(level)}`);
    }
    return { id, level: level as RequirementLevel };
  });
}

/** The IDs of every `x-requirements` array anywhere in a schema file. */
function schemaRequirementIds(file: string): string[] {
  const found: string[] = [];
  const walk = (value: unknown, at: string): void => {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${at}[${i}]`));
    else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (key === 'x-requirements') {
          if (!Array.isArray(child) || child.some((id) => typeof id !== 'string' || !ID.test(id))) {
            throw new SpecRequirementsError(file, `${at}.x-requirements`, 'expected an array of IDs like AHP-COMP-001');
          }
          found.push(...(child as string[]));
        } else walk(child, `${at}.${key}`);
      }
    }
  };
  walk(readJson(file), '$');
  return found;
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SpecRequirementsError(file, '', `cannot read it (${(error as Error).message})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SpecRequirementsError(file, '', `not valid JSON (${(error as Error).message})`);
  }
}

function filesUnder(dir: string, extension: string): string[] {
  if (!existsSync(dir)) throw new SpecRequirementsError(dir, '', 'expected a directory of the draft spec or its schemas');
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(extension))
    .map((name) => path.join(dir, name))
    .sort();
}

/**
 * Where our table and the spec's IDs disagree: an ID the spec has and the table lacks, one the table
 * has and the spec does not, a level that differs, a repeated or malformed table entry. Empty: they agree.
 */
export function compareWithSpec(table: readonly Requirement[], spec: readonly SpecId[]): string[] {
  const problems: string[] = [];
  const ours = new Map<string, Requirement>();
  for (const entry of table) {
    if (!ID.test(entry.id)) problems.push(`${entry.id}: not an ID like AHP-COMP-001`);
    if (ours.has(entry.id)) problems.push(`${entry.id}: listed twice in our table`);
    if (entry.summary.trim() === '') problems.push(`${entry.id}: has no summary`);
    ours.set(entry.id, entry);
  }
  const theirs = new Map(spec.map((entry) => [entry.id, entry]));
  for (const entry of spec) {
    const mine = ours.get(entry.id);
    if (!mine) problems.push(`${entry.id}: in the spec (${entry.sources.join(', ')}) but missing from our table`);
    else if (entry.level !== undefined && mine.level !== entry.level) problems.push(`${entry.id}: our table says ${mine.level}, the spec says ${entry.level}`);
  }
  for (const entry of table) if (!theirs.has(entry.id)) problems.push(`${entry.id}: in our table but in no spec source`);
  return problems;
}
