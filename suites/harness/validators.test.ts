// The schema loader: both schema sets load, bad directories fail with a SchemaLoadError that names the
// file, and compiled validators are cached across processes without ever serving a stale cache.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, afterEach, describe, expect, test } from 'vitest';

import {
  DEFAULT_VALIDATOR_CACHE_DIR,
  PROJECT_ROOT,
  SchemaLoadError,
  clearValidatorMemo,
  loadValidators,
} from '../../harness/protocol/load-validators.ts';
import { ENTRY_POINT_FILES, type EntryPoint } from '../../harness/protocol/validator-types.ts';
import { canonicalSchemaCandidate, canonicalSchemaDir } from '../../harness/protocol/canonical-schemas.ts';
import { tempStandaloneCacheDir } from './support/standalone-cache-dir.ts';

const OUR_SCHEMAS = path.join(PROJECT_ROOT, 'schemas');
const CANONICAL_SCHEMAS = canonicalSchemaCandidate();
const canonicalPresent = canonicalSchemaDir() !== undefined;

const tempDirs: string[] = [];

/** A temp directory in os.tmpdir(), removed after the file's tests. */
function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ahp-${prefix}-`));
  tempDirs.push(dir);
  return dir;
}

function tempCacheDir(): string {
  const dir = tempStandaloneCacheDir(DEFAULT_VALIDATOR_CACHE_DIR, 'test-');
  tempDirs.push(dir);
  return dir;
}

/** A writable copy of our schemas (plus a non-schema JSON file, like the canonical manifest.json). */
function copyOfOurSchemas(): string {
  const dir = tempDir('schemas');
  for (const name of fs.readdirSync(OUR_SCHEMAS)) fs.copyFileSync(path.join(OUR_SCHEMAS, name), path.join(dir, name));
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ status: 'not a schema', files: [] }));
  return dir;
}

function editJson(file: string, edit: (value: Record<string, unknown>) => void): void {
  const value = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  edit(value);
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function loadError(run: () => unknown): SchemaLoadError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaLoadError);
    return error as SchemaLoadError;
  }
  throw new Error('expected a SchemaLoadError, but loading succeeded');
}

afterEach(() => clearValidatorMemo());
afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

const sampleEvent = {
  id: 'e1',
  source: 'https://agent.example/',
  type: 'tool.before',
  time: '2025-06-01T12:00:00Z',
  call: { id: 'c1' },
  tool: { name: 'shell', input: {}, origin: 'native' },
  path: 'shell',
};

// A small sample with both verdicts per entry point, to compare cached and freshly compiled validators.
const sample: Array<[EntryPoint, unknown]> = [
  ['effect', { type: 'deny', reason: 'no' }],
  ['effect', { type: 'deny' }],
  ['effect', { type: 'flow', operation: 'continue', reason: 'x' }],
  ['jsonRpcMessage', { jsonrpc: '2.0', method: 'm', params: {} }],
  ['jsonRpcMessage', { jsonrpc: '2.0', id: null, method: 'm', params: {} }],
  ['capabilitiesRequest', { jsonrpc: '2.0', id: 1, method: 'hooks/capabilities', params: { protocolVersion: 'draft' } }],
  ['capabilitiesRequest', { jsonrpc: '2.0', id: 1, method: 'hooks/capabilities', params: {} }],
  ['capabilitiesResponse', { jsonrpc: '2.0', id: 1, result: { protocolVersion: 'draft' } }],
  ['capabilities', { effects: ['deny', 'flow'], flow: { operations: ['stop'] } }],
  ['capabilities', { effects: 'deny' }],
  ['interceptResponse', { jsonrpc: '2.0', id: 1, result: { protocolVersion: 'draft', effects: [{ type: 'allow' }] } }],
  ['interceptResponse', { jsonrpc: '2.0', id: 1, result: { protocolVersion: 'draft', effects: [{ type: 'allow', x: 1 }] } }],
  [
    'interceptRequest',
    {
      jsonrpc: '2.0',
      id: 'e1',
      method: 'hooks/intercept',
      params: {
        protocolVersion: 'draft',
        event: sampleEvent,
        capabilities: { effects: ['deny'] },
      },
    },
  ],
  ['interceptRequest', { jsonrpc: '2.0', id: 'e1', method: 'hooks/intercept', params: { protocolVersion: 'draft' } }],
  ['observeNotification', { jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft', event: sampleEvent } }],
  ['observeNotification', { jsonrpc: '2.0', id: 1, method: 'hooks/observe', params: { protocolVersion: 'draft' } }],
  ['contentUploadReceipt', { ref: 'r1', size: 0, sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' }],
  ['contentUploadReceipt', { ref: 'r1', size: 0, sha256: 'E3B0' }],
];

describe('loading schema directories', () => {
  test('our schemas load and expose every entry point', () => {
    const validators = loadValidators(OUR_SCHEMAS);
    expect(validators.schemaDir).toBe(OUR_SCHEMAS);
    for (const entry of Object.keys(ENTRY_POINT_FILES) as EntryPoint[]) {
      expect(typeof validators[entry]).toBe('function');
    }
    expect(validators.effect({ type: 'allow' })).toEqual({ valid: true, errors: [] });
  });

  test('every file in schemas/ is a 2020-12 schema whose $id is its file name', () => {
    for (const name of fs.readdirSync(OUR_SCHEMAS).filter((n) => n.endsWith('.json'))) {
      const schema = JSON.parse(fs.readFileSync(path.join(OUR_SCHEMAS, name), 'utf8')) as Record<string, unknown>;
      expect(schema['$schema'], name).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema['$id'], name).toBe(`https://agenthooksprotocol.org/schemas/draft/${name}`);
    }
  });

  test('memoised per absolute directory', () => {
    const a = loadValidators(OUR_SCHEMAS);
    const b = loadValidators(path.relative(process.cwd(), OUR_SCHEMAS) || '.');
    expect(b).toBe(a);
  });

  test('errors name the instance path and the failed keyword, and stop at the first failure', () => {
    const validators = loadValidators(OUR_SCHEMAS);
    const check = validators.effect({ type: 'deny', reason: 'x', extra: 1 });
    expect(check.valid).toBe(false);
    expect(check.errors.some((e) => e.includes('additionalProperties') && e.includes('"extra"'))).toBe(true);
    const noisy = validators.interceptResponse({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: 'draft', effects: Array.from({ length: 30 }, () => ({ type: 'deny', x: 1 })) },
    });
    expect(noisy.valid).toBe(false);
    // Only the first failure is collected (allErrors off keeps rejection cheap for the oracle).
    expect(noisy.errors.length).toBeGreaterThanOrEqual(1);
    expect(noisy.errors.length).toBeLessThanOrEqual(3);
    expect(noisy.errors[0]).toMatch(/^\/result\/effects\/0/);
  });

  describe.skipIf(!canonicalPresent)(
    canonicalPresent
      ? 'canonical schemas'
      : `canonical schemas (SKIPPED: no canonical schemas at ${CANONICAL_SCHEMAS}; CI checks out shared/ beside the project)`,
    () => {
      test('the canonical directory loads (manifest.json is skipped) and agrees with ours on the sample', () => {
        const canonical = loadValidators(CANONICAL_SCHEMAS);
        const ours = loadValidators(OUR_SCHEMAS);
        for (const [entry, message] of sample) {
          expect(canonical[entry](message).valid, `${entry} ${JSON.stringify(message)}`).toBe(ours[entry](message).valid);
        }
      });
    },
  );
});

describe('SchemaLoadError', () => {
  test('missing directory', () => {
    const missing = path.join(tempDir('missing'), 'nope');
    const error = loadError(() => loadValidators(missing, { cacheDir: false }));
    expect(error.message).toContain(missing);
    expect(error.message).toMatch(/does not exist/);
    expect(error.file).toBe(missing);
  });

  test('a file that is not valid JSON names the file, line and column', () => {
    const dir = copyOfOurSchemas();
    const file = path.join(dir, 'effect.schema.json');
    fs.writeFileSync(file, '{\n  "$id": "x",\n  "type": }\n');
    const error = loadError(() => loadValidators(dir, { cacheDir: false }));
    expect(error.message).toContain(file);
    expect(error.message).toContain('not valid JSON');
    expect(error.message).toContain('line 3, column 11');
    expect(error.file).toBe(file);
  });

  test('a missing entry point names the expected file and the directory', () => {
    const dir = copyOfOurSchemas();
    fs.rmSync(path.join(dir, 'capabilities-request.schema.json'));
    const error = loadError(() => loadValidators(dir, { cacheDir: false }));
    expect(error.message).toContain('capabilities-request.schema.json');
    expect(error.message).toContain(dir);
  });

  test('an entry point that is JSON but not a schema (no $id) counts as missing', () => {
    const dir = copyOfOurSchemas();
    fs.writeFileSync(path.join(dir, 'effect.schema.json'), '[1, 2, 3]');
    const error = loadError(() => loadValidators(dir, { cacheDir: false }));
    expect(error.message).toContain('effect.schema.json');
  });

  test('a schema that breaks the meta-schema names the file and ajv’s message', () => {
    const dir = copyOfOurSchemas();
    const file = path.join(dir, 'deny-effect.schema.json');
    editJson(file, (schema) => {
      schema['type'] = 12;
    });
    const error = loadError(() => loadValidators(dir, { cacheDir: false }));
    expect(error.message).toContain(file);
    expect(error.message).toContain('https://agenthooksprotocol.org/schemas/draft/deny-effect.schema.json');
    expect(error.message).toMatch(/schema is invalid/);
  });

  test('an unresolvable $ref names the schema that holds it', () => {
    const dir = copyOfOurSchemas();
    const file = path.join(dir, 'deny-effect.schema.json');
    editJson(file, (schema) => {
      (schema['properties'] as Record<string, unknown>)['code'] = { $ref: 'nowhere.schema.json' };
    });
    const error = loadError(() => loadValidators(dir, { cacheDir: false }));
    expect(error.message).toContain(file);
    expect(error.message).toContain('nowhere.schema.json');
    expect(error.message).toMatch(/failed to compile/);
  });

  test('a referenced schema that fails to compile is named, not only the entry point', () => {
    const dir = copyOfOurSchemas();
    const file = path.join(dir, 'deny-effect.schema.json');
    editJson(file, (schema) => {
      (schema['properties'] as Record<string, unknown>)['reason'] = { type: 'string', pattern: '([unclosed' };
    });
    const error = loadError(() => loadValidators(dir, { cacheDir: false }));
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/failed to compile/);
    expect(error.file).toBe(file);
  });

  test('two files declaring the same $id', () => {
    const dir = copyOfOurSchemas();
    fs.copyFileSync(path.join(dir, 'effect.schema.json'), path.join(dir, 'effect-copy.schema.json'));
    const error = loadError(() => loadValidators(dir, { cacheDir: false }));
    expect(error.message).toContain('effect-copy.schema.json');
    expect(error.message).toContain('effect.schema.json');
  });
});

describe('cross-process cache', () => {
  test('a fresh process state loads the cache file; verdicts and errors match a fresh compile', () => {
    const schemas = copyOfOurSchemas();
    const cacheDir = tempCacheDir();

    const first = loadValidators(schemas, { cacheDir });
    expect(first.origin).toBe('compiled');
    expect(first.cacheFile).toBe(path.join(cacheDir, `${first.cacheKey}.cjs`));
    expect(fs.existsSync(first.cacheFile as string)).toBe(true);
    expect(fs.readdirSync(cacheDir).filter((n) => n.endsWith('.tmp'))).toEqual([]);

    clearValidatorMemo();
    const second = loadValidators(schemas, { cacheDir });
    expect(second.origin).toBe('cache');
    expect(second.cacheKey).toBe(first.cacheKey);

    const uncached = loadValidators(schemas, { cacheDir: false });
    expect(uncached.origin).toBe('compiled');
    for (const [entry, message] of sample) {
      const fromCache = second[entry](message);
      const fresh = uncached[entry](message);
      expect(fromCache.valid, `${entry} ${JSON.stringify(message)}`).toBe(fresh.valid);
      expect(fromCache.errors.length).toBe(fresh.errors.length);
    }
  });

  test('changing a schema changes the key, so the old cache file is never used', () => {
    const schemas = copyOfOurSchemas();
    const cacheDir = tempCacheDir();
    const before = loadValidators(schemas, { cacheDir });
    expect(before.effect({ type: 'message', text: '' }).valid).toBe(true);

    editJson(path.join(schemas, 'effect.schema.json'), (schema) => {
      const defs = schema['$defs'] as Record<string, Record<string, Record<string, unknown>>>;
      (defs['message'] as Record<string, Record<string, unknown>>)['properties'] = {
        type: { const: 'message' },
        text: { type: 'string', minLength: 1 },
      };
    });
    clearValidatorMemo();
    const after = loadValidators(schemas, { cacheDir });
    expect(after.cacheKey).not.toBe(before.cacheKey);
    expect(after.origin).toBe('compiled');
    expect(after.effect({ type: 'message', text: '' }).valid).toBe(false);

    // Even a whitespace-only edit is a different input.
    fs.appendFileSync(path.join(schemas, 'common.schema.json'), '\n');
    clearValidatorMemo();
    expect(loadValidators(schemas, { cacheDir }).cacheKey).not.toBe(after.cacheKey);
  });

  test('a tampered cache file is detected, recompiled and replaced', () => {
    const schemas = copyOfOurSchemas();
    const cacheDir = tempCacheDir();
    const first = loadValidators(schemas, { cacheDir });
    const file = first.cacheFile as string;
    const original = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, original.replace(/'use strict';\n/, "'use strict';\nexports.effect = () => true;\n"));

    clearValidatorMemo();
    const second = loadValidators(schemas, { cacheDir });
    expect(second.origin).toBe('compiled');
    expect(second.effect({ type: 'nope' }).valid).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe(original);

    clearValidatorMemo();
    expect(loadValidators(schemas, { cacheDir }).origin).toBe('cache');
  });

  test('writing a new module prunes long-unused modules and abandoned temp files', () => {
    const schemas = copyOfOurSchemas();
    const cacheDir = tempCacheDir();
    const longAgo = new Date(Date.now() - 30 * 24 * 60 * 60 * 1000);
    const stale = path.join(cacheDir, 'stale.cjs');
    const abandoned = path.join(cacheDir, 'x.cjs.1.abc.tmp');
    const recent = path.join(cacheDir, 'recent.cjs');
    for (const file of [stale, abandoned, recent]) fs.writeFileSync(file, '');
    fs.utimesSync(stale, longAgo, longAgo);
    fs.utimesSync(abandoned, longAgo, longAgo);

    const validators = loadValidators(schemas, { cacheDir });
    expect(validators.origin).toBe('compiled');
    expect(fs.readdirSync(cacheDir).sort()).toEqual([path.basename(validators.cacheFile as string), 'recent.cjs'].sort());
  });

  test('an unwritable cache directory falls back to in-memory validators', () => {
    const schemas = copyOfOurSchemas();
    const blocker = path.join(tempDir('blocked'), 'a-file');
    fs.writeFileSync(blocker, 'not a directory');
    const cacheDir = path.join(blocker, 'validators');
    const validators = loadValidators(schemas, { cacheDir });
    expect(validators.origin).toBe('compiled');
    expect(validators.effect({ type: 'ask' }).valid).toBe(true);
    expect(fs.existsSync(cacheDir)).toBe(false);
  });

  test('the default cache lives under the project node_modules/.cache', () => {
    expect(DEFAULT_VALIDATOR_CACHE_DIR).toBe(path.join(PROJECT_ROOT, 'node_modules', '.cache', 'ahp-conformance', 'validators'));
    const validators = loadValidators(OUR_SCHEMAS);
    expect(validators.cacheFile?.startsWith(DEFAULT_VALIDATOR_CACHE_DIR)).toBe(true);
    expect(fs.existsSync(validators.cacheFile as string)).toBe(true);
  });
});
