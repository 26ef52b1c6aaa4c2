// The scenario format schemas' cross-process cache: a validator loaded from a cached standalone
// module reports exactly the problems a fresh compile reports (ajv's verbose errors survive the
// standalone code), a changed schema text never reuses an older module, and a damaged module is
// recompiled rather than trusted.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { afterAll, describe, expect, test } from 'vitest';

import { CATALOGUE_SCENARIO_FILE_SCHEMA_URL } from '../../harness/families/catalogue/lint-catalogue-scenario-file.ts';
import { CATALOGUE_STEP_OPS } from '../../harness/families/catalogue/scenario-types.ts';
import { LIFECYCLE_SCENARIO_FILE_SCHEMA_URL } from '../../harness/families/lifecycle/lint-lifecycle-scenario-file.ts';
import { LIFECYCLE_STEP_OPS } from '../../harness/lifecycle-adapters/scenario-types.ts';
import { PROJECT_ROOT } from '../../harness/protocol/load-validators.ts';
import { DEFAULT_FORMAT_SCHEMA_CACHE_DIR, FormatSchema, type FormatSchemaOptions } from '../../harness/scenarios/format-schema.ts';
import { tempStandaloneCacheDir } from './support/standalone-cache-dir.ts';

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

function tempCacheDir(): string {
  const dir = tempStandaloneCacheDir(DEFAULT_FORMAT_SCHEMA_CACHE_DIR, 'test-format-');
  tempDirs.push(dir);
  return dir;
}

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ahp-format-schema-'));
  tempDirs.push(dir);
  return dir;
}

type Doc = Record<string, unknown>;
// Rows are edited freely as plain JSON, to break them in the ways a file on disk can be broken.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Row = Record<string, any>;

function fixture(name: string): Doc {
  return JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'fixtures', name), 'utf8')) as Doc;
}

function rows(doc: Doc): Row[] {
  return doc.scenarios as Row[];
}

/** The first (or last) row with a step list (lifecycle chain rows have none). */
function steppedRow(doc: Doc, which: 'first' | 'last' = 'first'): Row {
  const stepped = rows(doc).filter((r) => Array.isArray(r.steps) && r.steps.length > 0);
  const row = which === 'first' ? stepped[0] : stepped.at(-1);
  if (row === undefined) throw new Error('the fixture has no row with steps');
  return row;
}

/** Breakages that touch most of ajv's keywords: const, additionalProperties, required, minLength, discriminator, type, uniqueItems. */
const BREAKAGES: Array<[string, (doc: Doc) => void]> = [
  ['a step with an unknown key', (d) => (steppedRow(d, 'last').steps[0].extra = true)],
  ['another version', (d) => (d.version = 2)],
  ['an unknown top-level key', (d) => (d.expectedVersion = 2)],
  ['an empty id', (d) => (rows(d)[0]!.id = '')],
  ['a row without an id', (d) => delete rows(d)[1]!.id],
  ['an unknown op', (d) => (steppedRow(d).steps[0].op = 'teleport')],
  ['a step that is not an object', (d) => (rows(d)[2]!.steps = [5])],
  ['repeated tags', (d) => (rows(d)[0]!.tags = ['same', 'same'])],
  ['a scenario list that is a string', (d) => (d.scenarios = 'none')],
];
/** Left out of the all-at-once document: it would hide every row problem. */
const WHOLE_LIST = 'a scenario list that is a string';

const FAMILIES: Array<[string, FormatSchemaOptions, string]> = [
  ['lifecycle', { url: LIFECYCLE_SCENARIO_FILE_SCHEMA_URL, family: 'lifecycle', ops: LIFECYCLE_STEP_OPS }, 'lifecycle-scenarios.json'],
  ['catalogue', { url: CATALOGUE_SCENARIO_FILE_SCHEMA_URL, family: 'catalogue', ops: CATALOGUE_STEP_OPS }, 'catalogue-scenarios.json'],
];

describe.each(FAMILIES)('the %s format', (_family, options, fixtureName) => {
  test('a validator loaded from the cache reports exactly what a fresh compile reports', () => {
    const cacheDir = tempCacheDir();
    const writer = new FormatSchema({ ...options, cacheDir });
    expect(writer.validatorSource().origin).toBe('compiled');
    const cacheFile = writer.validatorSource().cacheFile as string;
    expect(path.dirname(cacheFile)).toBe(cacheDir);
    expect(fs.readdirSync(cacheDir)).toEqual([path.basename(cacheFile)]);

    const cached = new FormatSchema({ ...options, cacheDir });
    expect(cached.validatorSource()).toEqual({ origin: 'cache', cacheFile });
    const compiled = new FormatSchema({ ...options, cacheDir: false });
    expect(compiled.validatorSource()).toEqual({ origin: 'compiled', cacheFile: null });

    expect(cached.problems(fixture(fixtureName))).toEqual([]);
    const everything = fixture(fixtureName);
    for (const [title, edit] of BREAKAGES) {
      const doc = fixture(fixtureName);
      edit(doc);
      if (title !== WHOLE_LIST) edit(everything);
      const fresh = compiled.problems(doc);
      expect(fresh.length, title).toBeGreaterThan(0);
      expect(cached.problems(doc), title).toEqual(fresh);
    }
    // All at once (allErrors): the same problems, in the same order.
    const fresh = compiled.problems(everything);
    expect(new Set(fresh.map((p) => p.path)).size).toBe(BREAKAGES.length - 1);
    expect(fresh.some((p) => p.problem.startsWith('expected one of ') && p.problem.endsWith('got "teleport"'))).toBe(true);
    expect(cached.problems(everything)).toEqual(fresh);
  });
});

describe('cache keys and damaged modules', () => {
  function schemaCopy(): { file: string; options: FormatSchemaOptions } {
    const file = path.join(tempDir(), 'lifecycle-scenario-file.schema.json');
    fs.copyFileSync(LIFECYCLE_SCENARIO_FILE_SCHEMA_URL, file);
    return { file, options: { url: pathToFileURL(file), family: 'lifecycle', ops: LIFECYCLE_STEP_OPS } };
  }

  test('a changed schema text gets a fresh cache entry, never the older validator', () => {
    const { file, options } = schemaCopy();
    const cacheDir = tempCacheDir();
    const doc = fixture('lifecycle-scenarios.json');
    const before = new FormatSchema({ ...options, cacheDir });
    expect(before.problems(doc)).toEqual([]);
    const oldModule = before.validatorSource().cacheFile as string;
    expect(new FormatSchema({ ...options, cacheDir }).validatorSource().origin).toBe('cache');

    // The same file path, a new schema: version 1 files are no longer of this format.
    const schema = JSON.parse(fs.readFileSync(file, 'utf8')) as { properties: { version: Record<string, unknown> } };
    schema.properties.version = { const: 2, description: 'the format version 2' };
    fs.writeFileSync(file, `${JSON.stringify(schema, null, 2)}\n`);
    const after = new FormatSchema({ ...options, cacheDir });
    expect(after.validatorSource().origin).toBe('compiled');
    expect(after.validatorSource().cacheFile).not.toBe(oldModule);
    expect(after.problems(doc)).toEqual([{ path: 'version', problem: 'expected the format version 2, got number 1' }]);
    expect(fs.readdirSync(cacheDir).sort()).toEqual([path.basename(oldModule), path.basename(after.validatorSource().cacheFile as string)].sort());

    // Even a whitespace-only edit is another input.
    fs.appendFileSync(file, '\n');
    expect(new FormatSchema({ ...options, cacheDir }).validatorSource().origin).toBe('compiled');
  });

  test('a tampered or truncated cache module is recompiled and replaced, never run', () => {
    const { options } = schemaCopy();
    const cacheDir = tempCacheDir();
    const first = new FormatSchema({ ...options, cacheDir });
    const cacheFile = first.validatorSource().cacheFile as string;
    const original = fs.readFileSync(cacheFile, 'utf8');
    const broken = fixture('lifecycle-scenarios.json');
    broken.version = 3;

    for (const damaged of [
      original.replace("'use strict';\n", "'use strict';\nmodule.exports = () => true; module.exports.default = module.exports;\n"),
      original.slice(0, Math.floor(original.length / 2)),
      'garbage\n',
    ]) {
      fs.writeFileSync(cacheFile, damaged);
      const next = new FormatSchema({ ...options, cacheDir });
      expect(next.validatorSource().origin).toBe('compiled');
      expect(next.problems(broken)).toEqual([{ path: 'version', problem: 'expected the format version 1, got number 3' }]);
      expect(fs.readFileSync(cacheFile, 'utf8')).toBe(original);
    }
  });

  test('the default cache lives under the project node_modules/.cache', () => {
    expect(DEFAULT_FORMAT_SCHEMA_CACHE_DIR).toBe(path.join(PROJECT_ROOT, 'node_modules', '.cache', 'ahp-conformance', 'format-schemas'));
  });
});
