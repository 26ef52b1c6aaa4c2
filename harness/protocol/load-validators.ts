// Loads a directory of draft JSON Schemas (ours in `schemas/`, or the protocol's canonical directory)
// and exposes one validator per entry point (see validator-types.ts).
//
// Compiling the canonical set takes over a second and many processes load validators (vitest workers,
// adapter processes), so compiled validators are cached across processes as ajv "standalone" CommonJS
// code under node_modules/.cache/ahp-conformance/validators/<key>.cjs (standalone-cache.ts). The key
// hashes every *.json file name and content in the directory plus the ajv and ajv-formats versions,
// so a changed schema can never be served from a stale cache.

import fs from 'node:fs';
import path from 'node:path';

import type { ErrorObject } from 'ajv/dist/2020.js';

import {
  ENTRY_POINT_FILES,
  type EntryPoint,
  type ProtocolValidators,
  type SchemaCheck,
  type Validate,
} from './validator-types.ts';
import { parseJsonText } from './json-text.ts';
import {
  PROJECT_ROOT,
  ajv,
  packageVersion,
  readCacheModule,
  standaloneCacheDir,
  writeCacheModule,
  type AjvModules,
} from './standalone-cache.ts';
import { sha256Hex } from './sha256-hex.ts';

// Many harness modules and tests know the project root from here.
export { PROJECT_ROOT };

/** Bumped whenever the generated cache module or the compile options change. */
const CACHE_FORMAT = 'ahp-conformance-validators/3';
const MAX_ERRORS = 20;

export const DEFAULT_VALIDATOR_CACHE_DIR = standaloneCacheDir('validators');

/** A schema directory that cannot be turned into validators; the message names the file and the fact. */
export class SchemaLoadError extends Error {
  override readonly name = 'SchemaLoadError';
  constructor(
    message: string,
    /** Absolute path of the file (or directory) at fault. */
    readonly file: string,
  ) {
    super(message);
  }
}

export interface LoadedValidators extends ProtocolValidators {
  /** `cache`: loaded from a standalone cache module; `compiled`: compiled by ajv in this process. */
  readonly origin: 'cache' | 'compiled';
  /** Hash of the directory's schema files and the validator toolchain versions. */
  readonly cacheKey: string;
  /** The cache module for this key, or null when caching is disabled. */
  readonly cacheFile: string | null;
}

export interface LoadValidatorOptions {
  /** Where standalone cache modules live; `false` disables the cross-process cache. */
  cacheDir?: string | false;
}

const memo = new Map<string, LoadedValidators>();

/** Forget validators memoised in this process (tests use it to simulate a fresh process). */
export function clearValidatorMemo(): void {
  memo.clear();
}

/**
 * Validators for every entry point of the schema directory (ENTRY_POINT_FILES). Synchronous;
 * memoised per absolute directory (and cache directory) within the process.
 */
export function loadValidators(schemaDir: string, options: LoadValidatorOptions = {}): LoadedValidators {
  const dir = path.resolve(schemaDir);
  const cacheDir = options.cacheDir === undefined ? DEFAULT_VALIDATOR_CACHE_DIR : options.cacheDir;
  const memoKey = `${dir}\0${cacheDir === false ? '' : path.resolve(cacheDir)}`;
  const known = memo.get(memoKey);
  if (known) return known;
  const loaded = load(dir, cacheDir === false ? null : path.resolve(cacheDir));
  memo.set(memoKey, loaded);
  return loaded;
}

// ---------------------------------------------------------------------------------------------------
// Reading the directory

interface SchemaFile {
  name: string;
  file: string;
  id: string;
  schema: Record<string, unknown>;
}

interface DirectoryContents {
  schemas: SchemaFile[];
  cacheKey: string;
}

function readDirectory(dir: string): DirectoryContents {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    throw new SchemaLoadError(`Schema directory ${dir} does not exist.`, dir);
  }
  if (!stat.isDirectory()) throw new SchemaLoadError(`Schema directory ${dir} is not a directory.`, dir);

  const names = fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort();
  const keyParts = [`${CACHE_FORMAT}\0ajv@${packageVersion('ajv')}\0ajv-formats@${packageVersion('ajv-formats')}\0`];
  const schemas: SchemaFile[] = [];
  const fileById = new Map<string, string>();

  for (const name of names) {
    const file = path.join(dir, name);
    if (!fs.statSync(file).isFile()) continue;
    const text = fs.readFileSync(file, 'utf8');
    keyParts.push(`${name}\0${text.length}\0${text}\0`);
    const parsed = parseJsonText(text);
    if (!parsed.ok) {
      throw new SchemaLoadError(
        `Schema file ${file} is not valid JSON: syntax error at line ${parsed.line}, column ${parsed.column} ` +
          `(offset ${parsed.offset}): ${parsed.reason}`,
        file,
      );
    }
    const value = parsed.value;
    // Only JSON Schemas take part (the canonical directory also holds e.g. manifest.json).
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const id = (value as Record<string, unknown>)['$id'];
    if (typeof id !== 'string') continue;
    const previous = fileById.get(id);
    if (previous !== undefined) {
      throw new SchemaLoadError(`Schema files ${previous} and ${file} both declare $id ${id}.`, file);
    }
    fileById.set(id, file);
    schemas.push({ name, file, id, schema: value as Record<string, unknown> });
  }

  for (const [entry, fileName] of Object.entries(ENTRY_POINT_FILES)) {
    if (!schemas.some((s) => s.name === fileName)) {
      throw new SchemaLoadError(
        `Schema directory ${dir} has no entry point ${fileName} (a JSON Schema with an $id, needed for ${entry}).`,
        path.join(dir, fileName),
      );
    }
  }
  return { schemas, cacheKey: sha256Hex(keyParts.join('')).slice(0, 32) };
}

// ---------------------------------------------------------------------------------------------------
// Loading: cache first, otherwise compile (and refresh the cache)

type CompiledFunction = ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };

function load(dir: string, cacheDir: string | null): LoadedValidators {
  const contents = readDirectory(dir);
  const cacheFile = cacheDir === null ? null : path.join(cacheDir, `${contents.cacheKey}.cjs`);

  if (cacheFile !== null) {
    const cached = readCachedFunctions(cacheFile, contents.cacheKey);
    if (cached) return assemble(dir, cached, 'cache', contents.cacheKey, cacheFile);
  }

  const compiler = createAjv();
  for (const entry of contents.schemas) {
    try {
      compiler.addSchema(entry.schema);
    } catch (error) {
      throw new SchemaLoadError(
        `Schema file ${entry.file} ($id ${entry.id}) is not a valid JSON Schema: ${messageOf(error)}`,
        entry.file,
      );
    }
  }
  const functions = {} as Record<EntryPoint, CompiledFunction>;
  const exportIds: Record<string, string> = {};
  for (const [entry, fileName] of Object.entries(ENTRY_POINT_FILES) as Array<[EntryPoint, string]>) {
    const schema = contents.schemas.find((s) => s.name === fileName);
    if (!schema) throw new Error(`unreachable: entry point ${fileName} checked by readDirectory`);
    let compiled: CompiledFunction | undefined;
    try {
      compiled = compiler.getSchema(schema.id) as CompiledFunction | undefined;
    } catch (error) {
      throw new SchemaLoadError(compileFailure(schema, contents.schemas, error), culpritFile(schema, contents.schemas, error));
    }
    if (!compiled) {
      throw new SchemaLoadError(`Schema file ${schema.file} ($id ${schema.id}) could not be compiled.`, schema.file);
    }
    functions[entry] = compiled;
    exportIds[entry] = schema.id;
  }

  if (cacheFile !== null) writeCacheModule(cacheFile, CACHE_FORMAT, contents.cacheKey, () => ajv().standaloneCode(compiler, exportIds));
  return assemble(dir, functions, 'compiled', contents.cacheKey, cacheFile);
}

function createAjv(): InstanceType<AjvModules['Ajv2020']> {
  // strict: false because canonical schemas carry annotations such as x-requirements. Only the
  // first error is collected: callers show a few lines, and stopping early keeps rejection cheap.
  const { Ajv2020, addFormats } = ajv();
  const compiler = new Ajv2020({ strict: false, allErrors: false, code: { source: true } });
  addFormats(compiler);
  return compiler;
}

function compileFailure(entry: SchemaFile, all: SchemaFile[], error: unknown): string {
  const message = messageOf(error);
  const culprit = culpritFile(entry, all, error);
  const via = culprit === entry.file ? '' : ` (the failing schema is ${culprit})`;
  return `Schema file ${entry.file} ($id ${entry.id}) failed to compile${via}: ${message}`;
}

/**
 * The file at fault when compiling `entry` failed: the schema whose $id ajv's message names (e.g.
 * "can't resolve reference x from id <id>"), else the first schema that fails to compile on its own
 * (e.g. an invalid regular expression in a referenced file), else the entry itself.
 */
function culpritFile(entry: SchemaFile, all: SchemaFile[], error: unknown): string {
  const message = messageOf(error);
  const named = all
    .filter((s) => message.includes(s.id))
    .sort((a, b) => b.id.length - a.id.length)[0];
  if (named) return named.file;
  try {
    const probe = createAjv();
    for (const s of all) probe.addSchema(s.schema);
    for (const s of all) {
      if (s === entry) continue;
      try {
        probe.getSchema(s.id);
      } catch (probeError) {
        if (messageOf(probeError) === message) return s.file;
      }
    }
  } catch {
    // fall back to the entry point
  }
  return entry.file;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// ---------------------------------------------------------------------------------------------------
// The cross-process cache module (standalone-cache.ts)

function readCachedFunctions(cacheFile: string, cacheKey: string): Record<EntryPoint, CompiledFunction> | null {
  const loaded = readCacheModule(cacheFile, CACHE_FORMAT, cacheKey);
  if (loaded === null) return null;
  const functions = {} as Record<EntryPoint, CompiledFunction>;
  for (const entry of Object.keys(ENTRY_POINT_FILES) as EntryPoint[]) {
    const fn = loaded[entry];
    if (typeof fn !== 'function') return null;
    functions[entry] = fn as CompiledFunction;
  }
  return functions;
}

// ---------------------------------------------------------------------------------------------------
// Validators and error messages

function assemble(
  dir: string,
  functions: Record<EntryPoint, CompiledFunction>,
  origin: 'cache' | 'compiled',
  cacheKey: string,
  cacheFile: string | null,
): LoadedValidators {
  const wrap = (fn: CompiledFunction): Validate => {
    return (value: unknown): SchemaCheck => {
      const valid = fn(value);
      return { valid, errors: valid ? [] : formatErrors(fn.errors) };
    };
  };
  const entries = Object.fromEntries((Object.keys(ENTRY_POINT_FILES) as EntryPoint[]).map((entry) => [entry, wrap(functions[entry])])) as Record<EntryPoint, Validate>;
  return { schemaDir: dir, ...entries, origin, cacheKey, cacheFile };
}

function formatErrors(errors: ErrorObject[] | null | undefined): string[] {
  if (!errors || errors.length === 0) return ['(schema rejected the value without reporting an error)'];
  const lines = errors.slice(0, MAX_ERRORS).map(formatError);
  if (errors.length > MAX_ERRORS) lines.push(`… and ${errors.length - MAX_ERRORS} more errors`);
  return lines;
}

function formatError(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  const params = error.params as Record<string, unknown>;
  let detail = error.message ?? 'is invalid';
  if (error.keyword === 'additionalProperties' && typeof params['additionalProperty'] === 'string') {
    detail += ` (${JSON.stringify(params['additionalProperty'])})`;
  } else if (error.keyword === 'enum' && Array.isArray(params['allowedValues'])) {
    detail += ` ${JSON.stringify(params['allowedValues'])}`;
  } else if (error.keyword === 'const' && 'allowedValue' in params) {
    detail += ` ${JSON.stringify(params['allowedValue'])}`;
  }
  return `${where}: ${detail} [${error.keyword} at ${error.schemaPath}]`;
}
