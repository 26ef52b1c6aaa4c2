// A closed format schema for a scenario file family (fixtures/<family>-scenario-file.schema.json),
// with ajv's errors turned into `{path, problem}` lines that read "expected ..., got ...". Each
// `description` in such a schema completes the sentence "expected ..."; a step union discriminated by
// `op` reports an unknown op with the list of known ones. Shared by the lifecycle and catalogue lints
// so that both families' file errors read alike.
//
// Every adapter process that loads a scenario file lints it, and compiling a format schema costs
// ~150 ms of CPU plus ajv's own import, so the compiled validator is cached across processes as ajv
// standalone code (protocol/standalone-cache.ts) keyed by the schema text and the ajv version and
// options. The standalone code keeps ajv's verbose errors (`schema`, `parentSchema`, `data`), so a
// validator loaded from the cache reports exactly what a fresh compile reports.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { ErrorObject } from 'ajv/dist/2020.js';

import { describeValue } from '../protocol/json-text.ts';
import { sha256Hex } from '../protocol/sha256-hex.ts';
import { ajv, packageVersion, readCacheModule, standaloneCacheDir, writeCacheModule } from '../protocol/standalone-cache.ts';
import { joinPath, pointerToPath } from './json-path.ts';

/** One problem: where (`scenarios[3].steps[0].key`, empty for the whole file) and what was expected. */
export interface FormatProblem {
  path: string;
  problem: string;
}

export interface FormatSchemaOptions {
  /** The schema file. */
  url: URL;
  /** Named in the message for an unknown key: `the <family> scenario format is closed`. */
  family: string;
  /** The step operations, listed when a step has an unknown `op`. */
  ops: readonly string[];
  /** Where compiled validators are cached; `false` compiles in this process only. Default: DEFAULT_FORMAT_SCHEMA_CACHE_DIR. */
  cacheDir?: string | false;
}

/** Where this instance's validator came from: a cache module, or a compile in this process. */
export interface FormatValidatorSource {
  origin: 'cache' | 'compiled';
  /** The cache module for this schema text, or null when caching is disabled. */
  cacheFile: string | null;
}

export const DEFAULT_FORMAT_SCHEMA_CACHE_DIR = standaloneCacheDir('format-schemas');

/** Bumped whenever the generated cache module changes shape. */
const CACHE_FORMAT = 'ahp-conformance-format-schema/1';
/** `verbose` gives each error its `schema` and `parentSchema`, where the expectations are read from. */
const AJV_OPTIONS = { allErrors: true, strict: true, strictRequired: false, verbose: true, discriminator: true } as const;

type Schema = Record<string, unknown>;
type CompiledFunction = ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };

interface LoadedFormat {
  validate: CompiledFunction;
  /** The parsed schema, whose `$defs` the error descriptions follow. */
  root: Schema;
  source: FormatValidatorSource;
}

/** Keywords whose failure means the value has the right type but breaks a bound; ajv says which. */
const BOUND_KEYWORDS = new Set(['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems', 'maxProperties', 'uniqueItems', 'pattern']);

export class FormatSchema {
  private loaded: LoadedFormat | undefined;

  constructor(private readonly options: FormatSchemaOptions) {}

  /** Every format problem of `value`, in document order; empty when it fits the format. */
  problems(value: unknown): FormatProblem[] {
    const { validate } = this.load();
    if (validate(value)) return [];
    return this.describeErrors(validate.errors ?? []);
  }

  /** Where the validator came from (loading it on first use). */
  validatorSource(): FormatValidatorSource {
    return this.load().source;
  }

  private load(): LoadedFormat {
    if (this.loaded === undefined) {
      let text: string;
      let root: Schema;
      try {
        text = readFileSync(this.options.url, 'utf8');
        root = JSON.parse(text) as Schema;
      } catch (error) {
        throw new Error(`cannot read the ${this.options.family} format schema ${fileURLToPath(this.options.url)}: ${error instanceof Error ? error.message : String(error)}`);
      }
      const key = sha256Hex(`${CACHE_FORMAT}\0ajv@${packageVersion('ajv')}\0${JSON.stringify(AJV_OPTIONS)}\0${text}`).slice(0, 32);
      const cacheDir = this.options.cacheDir ?? DEFAULT_FORMAT_SCHEMA_CACHE_DIR;
      const cacheFile = cacheDir === false ? null : path.join(path.resolve(cacheDir), `${key}.cjs`);
      const cached = cacheFile === null ? undefined : readCacheModule(cacheFile, CACHE_FORMAT, key)?.['default'];
      if (typeof cached === 'function') {
        this.loaded = { validate: cached as CompiledFunction, root, source: { origin: 'cache', cacheFile } };
      } else {
        const { Ajv2020, standaloneCode } = ajv();
        const compiler = new Ajv2020({ ...AJV_OPTIONS, code: { source: cacheFile !== null } });
        const validate = compiler.compile(root);
        if (cacheFile !== null) writeCacheModule(cacheFile, CACHE_FORMAT, key, () => standaloneCode(compiler, validate));
        this.loaded = { validate, root, source: { origin: 'compiled', cacheFile } };
      }
    }
    return this.loaded;
  }

  /** Follows local `#/$defs/...` references of the format schema. */
  private resolve(schema: unknown): Schema | undefined {
    if (typeof schema !== 'object' || schema === null) return undefined;
    const s = schema as Schema;
    if (typeof s.description === 'string' || typeof s.$ref !== 'string' || !s.$ref.startsWith('#/$defs/')) return s;
    const defs = this.loaded?.root.$defs as Record<string, unknown> | undefined;
    return this.resolve(defs?.[s.$ref.slice('#/$defs/'.length)]);
  }

  private expectation(schema: unknown): string | undefined {
    const description = this.resolve(schema)?.description;
    return typeof description === 'string' ? description : undefined;
  }

  private describeErrors(errors: ErrorObject[]): FormatProblem[] {
    // Alternatives (anyOf/oneOf) are reported once, as a whole, not branch by branch.
    const alternatives = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => `${e.schemaPath}/`);
    // A wrong type also fails the if/then/else branches; the described schema says it best.
    const describedTypes = new Set(errors.filter((e) => e.keyword === 'type' && this.expectation(e.parentSchema) !== undefined).map((e) => e.instancePath));
    const problems: FormatProblem[] = [];
    const seen = new Set<string>();
    for (const error of errors) {
      if (alternatives.some((prefix) => error.schemaPath.startsWith(prefix))) continue;
      if (error.keyword === 'if' || error.propertyName !== undefined) continue;
      if (error.keyword === 'type' && describedTypes.has(error.instancePath) && this.expectation(error.parentSchema) === undefined) continue;
      const found = this.describeError(error);
      if (found === undefined) continue;
      const line = `${found.path}\0${found.problem}`;
      if (seen.has(line)) continue;
      seen.add(line);
      problems.push(found);
    }
    return problems;
  }

  private describeError(error: ErrorObject): FormatProblem | undefined {
    const at = pointerToPath(error.instancePath);
    const params = error.params as Record<string, unknown>;
    const parent = error.parentSchema as Schema | undefined;
    const got = describeValue(error.data);
    switch (error.keyword) {
      case 'required': {
        const key = String(params.missingProperty);
        const properties = parent?.properties as Record<string, unknown> | undefined;
        const wanted = this.expectation(properties?.[key]) ?? `the key required by ${this.expectation(parent) ?? 'the format'}`;
        return { path: joinPath(at, key), problem: `expected ${wanted}, got nothing (missing)` };
      }
      case 'additionalProperties': {
        const allowed = Object.keys((parent?.properties as Record<string, unknown> | undefined) ?? {});
        const only = allowed.length === 0 ? 'no keys' : `only ${allowed.map((k) => JSON.stringify(k)).join(', ')}`;
        return {
          path: joinPath(at, String(params.additionalProperty)),
          problem: `unknown key; expected ${only} (the ${this.options.family} scenario format is closed)`,
        };
      }
      case 'discriminator':
        // A missing op is already reported by `required`.
        if (params.tagValue === undefined) return undefined;
        return {
          // ajv names the discriminating key (`op` for lifecycle steps, `kind` for elicitation steps).
          path: joinPath(at, typeof params.tag === 'string' ? params.tag : 'op'),
          problem: `expected one of ${this.options.ops.map((op) => JSON.stringify(op)).join(', ')}, got ${describeValue(params.tagValue)}`,
        };
      case 'dependentRequired':
        return { path: at, problem: `expected ${JSON.stringify(params.missingProperty)} alongside ${JSON.stringify(params.property)}, got nothing (missing)` };
      case 'propertyNames':
        return { path: at, problem: `expected non-empty keys, got ${describeValue(params.propertyName)}` };
      case 'oneOf': {
        const branches = (error.schema as unknown[]).map((branch) => (branch as Schema).required);
        if (branches.every((required) => Array.isArray(required) && required.length === 1)) {
          const names = branches.map((required) => JSON.stringify((required as string[])[0]));
          return { path: at, problem: `expected exactly one of ${names.join(' or ')}` };
        }
        return { path: at, problem: `expected ${this.expectation(parent) ?? 'exactly one alternative'}, got ${got}` };
      }
      default: {
        const wanted = this.expectation(parent) ?? error.message ?? error.keyword;
        const detail = BOUND_KEYWORDS.has(error.keyword) ? ` (${error.message ?? error.keyword})` : '';
        return { path: at, problem: `expected ${wanted}, got ${got}${detail}` };
      }
    }
  }
}
