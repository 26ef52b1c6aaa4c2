// Loads the user's config (adapters.config.ts by default, or the file named by AHP_CONFIG), validates
// every field, and resolves it into absolute paths plus defaults. Nothing downstream ever sees a
// relative path or a missing field.
//
// Rules worth knowing:
// - `AHP_CONFIG` may be absolute or relative; a relative value resolves against `process.cwd()` (the
//   folder you ran vitest/tsx from), never against the project root.
// - Relative paths inside the config resolve against the config FILE's folder.
// - `.json` is read as JSON; `.ts`/`.mts`/`.mjs`/`.js` are imported and their default export is used.
//   `.ts` needs a TypeScript-aware loader (vitest, or node started through tsx).
// - Scenario file paths are not checked here (the scenario loader reports those); the schemas
//   directory is.

import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import {
  AUTH_MODES,
  ELICITATION_BINDINGS,
  TRANSPORTS,
  type AuthMode,
  type ElicitationBinding,
  type Pairing,
  type Transport,
} from './define-config.ts';
import { describeValue, parseJsonText } from '../protocol/json-text.ts';

export interface ResolvedAdapterEntry {
  name: string;
  /** Absolute SDK checkout folder; adapter commands run here. */
  cwd: string;
  /** Absolute path of the SDK's adapter.json (default `<cwd>/interop/adapter.json`). */
  adapterFile: string;
}

export interface ResolvedConfig {
  /** Absolute path of the config file that was loaded. */
  file: string;
  /** Its folder: the base of every relative path in it. */
  dir: string;
  /** Absolute, existing directory of draft JSON Schemas. */
  schemas: string;
  /** Suite name → absolute scenario file path (existence not checked). */
  scenarios: Record<string, string>;
  adapters: ResolvedAdapterEntry[];
  transports: Transport[];
  auth: AuthMode[];
  /** `null` means every server adapter × every client adapter. */
  pairings: Pairing[] | null;
  watchdogs: { startupMs: number; runMs: number };
  parallelism: number;
  /** Directory for matrix reports and kept logs of failed runs. */
  reports: string;
  /** Absolute known-failure baseline file (harness/baseline/), or null. */
  baseline: string | null;
  /** Blind mode (harness/runs/blind.ts): config `blind`, overridden by AHP_BLIND. */
  blind: boolean;
  /** The elicitation family's binding (default `upload`). */
  elicitation: { binding: ElicitationBinding };
  /** A previous run's reports directory or JSON report to compare with (config `compare`, overridden by AHP_COMPARE), or null. */
  compare: string | null;
}

export interface LoadConfigOptions {
  /** Config file; absolute, or relative to `process.cwd()`. Wins over `env.AHP_CONFIG`. */
  file?: string;
  /** Environment to read `AHP_CONFIG` from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/** A config problem. The message names the file, the field path and what was expected. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly file: string;
  /** Field path such as `adapters[1].cwd`; empty when the problem is the file itself. */
  readonly field: string;

  constructor(file: string, field: string, problem: string, options?: { cause?: unknown }) {
    super(`${file}: ${field ? `${field}: ` : ''}${problem}`, options);
    this.file = file;
    this.field = field;
  }
}

export const CONFIG_KEYS = [
  'schemas',
  'scenarios',
  'adapters',
  'transports',
  'auth',
  'pairings',
  'watchdogs',
  'parallelism',
  'reports',
  'baseline',
  'blind',
  'compare',
  'elicitation',
] as const;

const ADAPTER_KEYS = ['name', 'cwd', 'adapterFile'] as const;
const PAIRING_KEYS = ['server', 'client'] as const;
const WATCHDOG_KEYS = ['startupMs', 'runMs'] as const;
const ELICITATION_KEYS = ['binding'] as const;
/** The case file of each elicitation binding when `scenarios.elicitation` names none. */
const ELICITATION_CASE_FILES: Record<ElicitationBinding, string> = { upload: 'elicitation.json', inline: 'elicitation-inline.json' };
const DEFAULT_WATCHDOGS = { startupMs: 20_000, runMs: 120_000 } as const;
const DEFAULT_PARALLELISM = 2;
const MODULE_EXTENSIONS = ['.ts', '.mts', '.mjs', '.js'];

/** The package root: two folders above this module. */
export function projectRoot(): string {
  return path.resolve(fileURLToPath(new URL('../../', import.meta.url)));
}

export async function loadConfig(options: LoadConfigOptions = {}): Promise<ResolvedConfig> {
  const env = options.env ?? process.env;
  const chosen = options.file ?? nonEmpty(env.AHP_CONFIG) ?? path.join(projectRoot(), 'adapters.config.ts');
  const file = path.resolve(process.cwd(), chosen);
  const raw = await readConfigValue(file);
  return resolveConfig(raw, file, env);
}

/** Validates an already-loaded config value as if it came from `file`, and resolves it. */
export async function resolveConfig(raw: unknown, file: string, env: NodeJS.ProcessEnv = process.env): Promise<ResolvedConfig> {
  const dir = path.dirname(file);
  const v = new FieldValidator(file);
  const config = v.object(raw, '', 'a config object (see defineConfig in harness/config/define-config.ts)');
  v.knownKeys(config, '', CONFIG_KEYS);

  const schemas =
    config.schemas === undefined ? path.join(projectRoot(), 'schemas') : path.resolve(dir, v.string(config.schemas, 'schemas'));
  await checkDirectory(file, config.schemas === undefined ? 'schemas (default)' : 'schemas', schemas);

  const scenarios: Record<string, string> = {};
  if (config.scenarios === undefined) {
    scenarios.core = path.join(projectRoot(), 'fixtures', 'scenarios.json');
    scenarios.lifecycle = path.join(projectRoot(), 'fixtures', 'lifecycle-scenarios.json');
    scenarios.catalogue = path.join(projectRoot(), 'fixtures', 'catalogue-scenarios.json');
    scenarios.compaction = path.join(projectRoot(), 'fixtures', 'compaction.json');
  } else {
    const entries = v.object(config.scenarios, 'scenarios', "an object mapping suite names to scenario files, e.g. { core: 'fixtures/scenarios.json' }");
    for (const [suite, value] of Object.entries(entries)) {
      const field = `scenarios${propertyPath(suite)}`;
      if (suite.trim() === '') v.fail(field, 'expected a non-empty suite name as the key');
      scenarios[suite] = path.resolve(dir, v.string(value, field));
    }
  }

  let elicitation: { binding: ElicitationBinding } = { binding: 'upload' };
  if (config.elicitation !== undefined) {
    const given = v.object(config.elicitation, 'elicitation', "an object { binding?: 'upload' | 'inline' }");
    v.knownKeys(given, 'elicitation', ELICITATION_KEYS);
    if (given.binding !== undefined) {
      if (typeof given.binding !== 'string' || !(ELICITATION_BINDINGS as readonly string[]).includes(given.binding)) {
        v.fail('elicitation.binding', `expected one of ${ELICITATION_BINDINGS.join(', ')} (how elicitation bodies travel), got ${describeValue(given.binding)}`);
      }
      elicitation = { binding: given.binding as ElicitationBinding };
    }
  }

  const adapters: ResolvedAdapterEntry[] = [];
  if (config.adapters !== undefined) {
    const list = v.array(config.adapters, 'adapters', 'an array of { name, cwd, adapterFile? }');
    const firstIndex = new Map<string, number>();
    list.forEach((item, i) => {
      const at = `adapters[${i}]`;
      const entry = v.object(item, at, 'an adapter entry { name, cwd, adapterFile? }');
      v.knownKeys(entry, at, ADAPTER_KEYS);
      const name = v.string(entry.name, `${at}.name`);
      if (/[\s→›]/u.test(name)) {
        v.fail(`${at}.name`, `expected a name without whitespace, "→" or "›" (it is part of every test name), got ${describeValue(name)}`);
      }
      const previous = firstIndex.get(name);
      if (previous !== undefined) {
        v.fail(`${at}.name`, `expected a unique adapter name, but "${name}" is already used by adapters[${previous}]`);
      }
      firstIndex.set(name, i);
      const cwd = path.resolve(dir, v.string(entry.cwd, `${at}.cwd`));
      const adapterFile =
        entry.adapterFile === undefined
          ? path.join(cwd, 'interop', 'adapter.json')
          : path.resolve(dir, v.string(entry.adapterFile, `${at}.adapterFile`));
      adapters.push({ name, cwd, adapterFile });
    });
  }

  const transports = config.transports === undefined ? [...TRANSPORTS] : v.enumList(config.transports, 'transports', TRANSPORTS);
  const auth = config.auth === undefined ? ['none' as const] : v.enumList(config.auth, 'auth', AUTH_MODES);

  let pairings: Pairing[] | null = null;
  if (config.pairings !== undefined && config.pairings !== null) {
    const names = adapters.map((a) => a.name);
    const known = names.length === 0 ? 'no adapters are configured' : `one of ${names.map((n) => `"${n}"`).join(', ')}`;
    const list = v.array(config.pairings, 'pairings', 'an array of { server, client } adapter names');
    const seen = new Map<string, number>();
    pairings = list.map((item, i) => {
      const at = `pairings[${i}]`;
      const pairing = v.object(item, at, 'a pairing { server, client }');
      v.knownKeys(pairing, at, PAIRING_KEYS);
      const server = v.string(pairing.server, `${at}.server`);
      const client = v.string(pairing.client, `${at}.client`);
      for (const [role, name] of [['server', server], ['client', client]] as const) {
        if (!names.includes(name)) {
          v.fail(`${at}.${role}`, `expected the name of a configured adapter (${known}), got ${describeValue(name)}`);
        }
      }
      const key = JSON.stringify([server, client]);
      const previous = seen.get(key);
      if (previous !== undefined) v.fail(at, `expected a unique pairing, but ${server}→${client} repeats pairings[${previous}]`);
      seen.set(key, i);
      return { server, client };
    });
  }

  const watchdogs: { startupMs: number; runMs: number } = { ...DEFAULT_WATCHDOGS };
  if (config.watchdogs !== undefined) {
    const given = v.object(config.watchdogs, 'watchdogs', 'an object { startupMs?, runMs? }');
    v.knownKeys(given, 'watchdogs', WATCHDOG_KEYS);
    for (const key of WATCHDOG_KEYS) {
      if (given[key] !== undefined) watchdogs[key] = v.positiveInteger(given[key], `watchdogs.${key}`, 'milliseconds');
    }
  }

  const parallelism =
    config.parallelism === undefined ? DEFAULT_PARALLELISM : v.positiveInteger(config.parallelism, 'parallelism', 'pairings at once');

  const reports =
    config.reports === undefined ? path.join(projectRoot(), 'reports') : path.resolve(dir, v.string(config.reports, 'reports'));
  const baseline = config.baseline === undefined || config.baseline === null ? null : path.resolve(dir, v.string(config.baseline, 'baseline'));
  let blind = false;
  if (config.blind !== undefined) {
    if (typeof config.blind !== 'boolean') v.fail('blind', `expected true or false, got ${describeValue(config.blind)}`);
    blind = config.blind as boolean;
  }
  if (nonEmpty(env.AHP_BLIND) !== undefined) blind = env.AHP_BLIND !== '0';
  // A path on the command line's environment is the caller's, so it resolves against the working directory.
  const fromEnv = nonEmpty(env.AHP_COMPARE);
  const compare = fromEnv !== undefined ? path.resolve(process.cwd(), fromEnv) : config.compare === undefined || config.compare === null ? null : path.resolve(dir, v.string(config.compare, 'compare'));
  return { file, dir, schemas, scenarios, adapters, transports, auth, pairings, watchdogs, parallelism, reports, baseline, blind, compare, elicitation };
}

/**
 * The elicitation family's case file: `scenarios.elicitation` when the config names one, else our
 * file of the configured binding (so a config written before the family still runs it).
 */
export function elicitationCaseFile(config: Pick<ResolvedConfig, 'scenarios' | 'elicitation'>): string {
  return config.scenarios.elicitation ?? path.join(projectRoot(), 'fixtures', ELICITATION_CASE_FILES[config.elicitation.binding]);
}

/** How a config module is imported: natively by default; the installed package passes vite's runner for `.ts`. */
export type ImportModule = (url: string) => Promise<Record<string, unknown>>;

const nativeImport: ImportModule = async (url) => (await import(url)) as Record<string, unknown>;

/** The config file's value as written (not yet validated): parsed JSON, or the module's default export. */
export async function readConfigValue(file: string, importModule: ImportModule = nativeImport): Promise<unknown> {
  const ext = path.extname(file).toLowerCase();
  if (ext !== '.json' && !MODULE_EXTENSIONS.includes(ext)) {
    throw new ConfigError(file, '', `unsupported config file extension "${ext}"; expected one of .json, ${MODULE_EXTENSIONS.join(', ')}`);
  }
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new ConfigError(file, '', 'expected a config file, but this path is not a regular file');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(file, '', `config file not found or unreadable (${errorText(error)})`, { cause: error });
  }

  if (ext === '.json') {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new ConfigError(file, '', `cannot read config file (${errorText(error)})`, { cause: error });
    }
    const parsed = parseJsonText(text);
    if (!parsed.ok) throw new ConfigError(file, '', `invalid JSON ${parsed.where}: ${parsed.reason}`);
    return parsed.value;
  }

  let namespace: Record<string, unknown>;
  try {
    namespace = await importModule(pathToFileURL(file).href);
  } catch (error) {
    const hint =
      ext === '.ts' || ext === '.mts'
        ? ' (a .ts config needs vitest or node started through tsx; use .mjs or .json elsewhere)'
        : '';
    throw new ConfigError(file, '', `cannot import config module: ${errorText(error)}${hint}`, { cause: error });
  }
  if (!('default' in namespace) || namespace.default === undefined) {
    throw new ConfigError(file, '', 'expected a default export, e.g. `export default defineConfig({ ... })`');
  }
  return namespace.default;
}

async function checkDirectory(file: string, field: string, dir: string): Promise<void> {
  let isDirectory = false;
  try {
    isDirectory = (await stat(dir)).isDirectory();
  } catch {
    throw new ConfigError(file, field, `expected an existing directory of JSON Schemas, but ${dir} does not exist`);
  }
  if (!isDirectory) throw new ConfigError(file, field, `expected a directory of JSON Schemas, but ${dir} is not a directory`);
}

/** Small typed checks that throw ConfigError with the field path and the expectation. */
class FieldValidator {
  constructor(private readonly file: string) {}

  fail(field: string, problem: string): never {
    throw new ConfigError(this.file, field, problem);
  }

  object(value: unknown, field: string, expectation: string): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.fail(field, `expected ${expectation}, got ${describeValue(value)}`);
    }
    return value as Record<string, unknown>;
  }

  array(value: unknown, field: string, expectation: string): unknown[] {
    if (!Array.isArray(value)) this.fail(field, `expected ${expectation}, got ${describeValue(value)}`);
    return value;
  }

  string(value: unknown, field: string): string {
    if (typeof value !== 'string' || value.trim() === '') this.fail(field, `expected a non-empty string, got ${describeValue(value)}`);
    return value;
  }

  positiveInteger(value: unknown, field: string, unit: string): number {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      this.fail(field, `expected a positive integer (${unit}), got ${describeValue(value)}`);
    }
    return value;
  }

  knownKeys(value: Record<string, unknown>, field: string, allowed: readonly string[]): void {
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) {
        this.fail(`${field}${propertyPath(key)}`.replace(/^\./, ''), `unknown key; expected only ${allowed.join(', ')}`);
      }
    }
  }

  enumList<T extends string>(value: unknown, field: string, allowed: readonly T[]): T[] {
    const list = this.array(value, field, `a non-empty array of ${allowed.join(' | ')}`);
    if (list.length === 0) this.fail(field, `expected a non-empty array of ${allowed.join(' | ')}, got []`);
    const result: T[] = [];
    list.forEach((item, i) => {
      if (typeof item !== 'string' || !(allowed as readonly string[]).includes(item)) {
        this.fail(`${field}[${i}]`, `expected one of ${allowed.join(', ')}, got ${describeValue(item)}`);
      }
      if ((result as string[]).includes(item)) this.fail(`${field}[${i}]`, `expected unique entries, but "${item}" is repeated`);
      result.push(item as T);
    });
    return result;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function propertyPath(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
