// Reading and validating the `--config ABS_PATH` file the harness (or a peer client) hands us.
// Unknown keys are ignored so a newer harness can add fields; every known key is type-checked.
// Messages name the file, the key and what was expected, but never echo auth option values.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { AUTH_ALLOW_LIST_EXTENSION } from '../../../harness/auth/allow-list.ts';
import { TRANSPORTS, type Transport } from '../../../harness/config/define-config.ts';
import { isAuthMode, type AuthConfig } from '../auth.ts';

export class AdapterConfigError extends Error {
  override readonly name = 'AdapterConfigError';
}

export interface ServerConfig {
  transport: Transport;
  readinessFile: string;
  scenarioFile: string;
  auth: AuthConfig;
  /** Optional: validate against another schema directory (e.g. the canonical one). */
  schemaDir?: string;
}

export interface ClientConfig {
  transport: Transport;
  /** HTTP base URL (transport http). */
  endpoint?: string;
  /** Server argv to spawn (transport stdio); `--config serverConfig` is appended. */
  serverCommand?: string[];
  serverCwd?: string;
  serverConfig?: string;
  scenarioFile: string;
  reportFile: string;
  auth: AuthConfig;
  schemaDir?: string;
  /** Optional watchdog overrides (milliseconds); defaults live in client.ts. */
  watchdogs: ClientWatchdogs;
}

export interface ClientWatchdogs {
  /** Spawned stdio server: until its readiness file appears. */
  startupMs?: number;
  /** Capability discovery response. */
  discoveryMs?: number;
  /** Each intercept response. */
  requestMs?: number;
}

const WATCHDOG_KEYS = ['startupMs', 'discoveryMs', 'requestMs'] as const;

/** The path after `--config` (or `--config=PATH`); the only argument adapters receive. */
export function configPathFromArgs(argv: readonly string[]): string {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--config') {
      const value = argv[i + 1];
      if (!value) throw new AdapterConfigError('--config needs a path argument');
      return path.resolve(value);
    }
    if (arg.startsWith('--config=')) return path.resolve(arg.slice('--config='.length));
  }
  throw new AdapterConfigError('missing --config PATH argument');
}

/** The parsed top-level object of a config file; AdapterConfigError names the file otherwise. */
export function readConfigObject(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new AdapterConfigError(`${file}: cannot read config (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AdapterConfigError(`${file}: config is not valid JSON`);
  }
  if (!isObject(value)) throw new AdapterConfigError(`${file}: expected a JSON object at the top level`);
  return value;
}

/** Typed access to a config object's keys; every failure names the file, the key and the expectation. */
export class Fields {
  constructor(
    private readonly file: string,
    private readonly raw: Record<string, unknown>,
    /** Names the object these fields belong to inside the file (`upload.`), for messages. */
    private readonly prefix = '',
  ) {}

  fail(key: string, expectation: string): never {
    throw new AdapterConfigError(`${this.file}: "${this.prefix}${key}" ${expectation}`);
  }

  /** The fields of a nested object `key`; `shape` describes it for the message when it is not one. */
  nested(key: string, shape: string): Fields {
    const value = this.raw[key];
    if (!isObject(value)) this.fail(key, `must be an object ${shape}`);
    return new Fields(this.file, value, `${this.prefix}${key}.`);
  }

  has(key: string): boolean {
    return this.raw[key] !== undefined;
  }

  string(key: string, expectation = 'must be a non-empty string'): string {
    const value = this.raw[key];
    if (typeof value !== 'string' || value === '') this.fail(key, expectation);
    return value;
  }

  integer(key: string, min: number): number {
    const value = this.raw[key];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) this.fail(key, `must be an integer >= ${min}`);
    return value;
  }

  transport(): Transport {
    const value = this.raw.transport;
    if (typeof value !== 'string' || !(TRANSPORTS as readonly string[]).includes(value)) {
      this.fail('transport', `must be one of ${TRANSPORTS.map((t) => JSON.stringify(t)).join(', ')}`);
    }
    return value as Transport;
  }

  /** A required non-empty path; relative paths resolve against the config file's folder. */
  path(key: string): string {
    const value = this.raw[key];
    if (typeof value !== 'string' || value === '') this.fail(key, 'must be a non-empty path string');
    return path.resolve(path.dirname(this.file), value);
  }

  optionalPath(key: string): string | undefined {
    return this.raw[key] === undefined ? undefined : this.path(key);
  }

  auth(): AuthConfig {
    const value = this.raw.auth;
    if (!isObject(value)) this.fail('auth', 'must be an object {mode, ...}');
    const { mode, ...options } = value;
    if (!isAuthMode(mode)) this.fail('auth.mode', 'must be one of "none", "bearer", "oauth", "mtls", "workload"');
    return { mode, options, baseDir: path.dirname(this.file) };
  }

  /**
   * A server's `auth` plus the harness's allow-list of principals, when the config carries one in
   * `extensions["ahp-conformance/auth-allow-list"]` (`{principals: [non-empty strings]}`). Other
   * extensions are ignored; a malformed allow-list is a bad config, never an open door.
   */
  serverAuth(): AuthConfig {
    const auth = this.auth();
    const extensions = this.raw.extensions;
    if (extensions === undefined) return auth;
    if (!isObject(extensions)) this.fail('extensions', 'must be an object mapping extension names to their settings');
    if (extensions[AUTH_ALLOW_LIST_EXTENSION] === undefined) return auth;
    const key = `extensions["${AUTH_ALLOW_LIST_EXTENSION}"]`;
    const entry = extensions[AUTH_ALLOW_LIST_EXTENSION];
    if (!isObject(entry)) this.fail(key, 'must be an object {principals: [...]}');
    const principals = entry.principals;
    if (!Array.isArray(principals) || principals.length === 0 || !principals.every((p) => typeof p === 'string' && p !== '')) {
      this.fail(`${key}.principals`, 'must be a non-empty array of non-empty strings (the authorised JWT subjects / client-certificate CNs)');
    }
    return { ...auth, allowList: principals as string[] };
  }

  /** An absolute http(s) URL without embedded credentials; `why` says when the key is needed. */
  httpUrl(key: string, why = ''): string {
    const value = this.raw[key];
    if (typeof value !== 'string') this.fail(key, `must be an http(s) URL string${why}`);
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      this.fail(key, 'must be an absolute http(s) URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') this.fail(key, 'must use http: or https:');
    if (url.username || url.password) this.fail(key, 'must not embed credentials');
    return value;
  }

  /** A non-empty argv array (no shell); `why` says when the key is needed. */
  argv(key: string, why = ''): string[] {
    const value = this.raw[key];
    if (!Array.isArray(value) || value.length === 0 || !value.every((part) => typeof part === 'string' && part !== '')) {
      this.fail(key, `must be a non-empty array of non-empty strings (argv, no shell)${why}`);
    }
    return value as string[];
  }

  /** Optional `{name: positive integer ms}` overrides, restricted to `names`. */
  watchdogs<K extends string>(names: readonly K[]): Partial<Record<K, number>> {
    const value = this.raw.watchdogs;
    const out: Partial<Record<K, number>> = {};
    if (value === undefined) return out;
    if (!isObject(value)) this.fail('watchdogs', `must be an object {${names.map((n) => `${n}?`).join(', ')}}`);
    for (const name of names) {
      const ms = value[name];
      if (ms === undefined) continue;
      if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 1) this.fail(`watchdogs.${name}`, 'must be a positive integer (milliseconds)');
      out[name] = ms;
    }
    return out;
  }
}

export function loadServerConfig(file: string): ServerConfig {
  const raw = readConfigObject(file);
  const fields: Fields = new Fields(file, raw);
  const config: ServerConfig = {
    transport: fields.transport(),
    readinessFile: fields.path('readinessFile'),
    scenarioFile: fields.path('scenarioFile'),
    auth: fields.serverAuth(),
  };
  const schemaDir = fields.optionalPath('schemaDir');
  if (schemaDir) config.schemaDir = schemaDir;
  return config;
}

export function loadClientConfig(file: string): ClientConfig {
  const raw = readConfigObject(file);
  const fields: Fields = new Fields(file, raw);
  const config: ClientConfig = {
    transport: fields.transport(),
    scenarioFile: fields.path('scenarioFile'),
    reportFile: fields.path('reportFile'),
    auth: fields.auth(),
    watchdogs: fields.watchdogs(WATCHDOG_KEYS),
  };
  const schemaDir = fields.optionalPath('schemaDir');
  if (schemaDir) config.schemaDir = schemaDir;

  if (config.transport === 'http') {
    config.endpoint = fields.httpUrl('endpoint', ' for transport "http"');
  } else {
    config.serverCommand = fields.argv('serverCommand', ' for transport "stdio"');
    config.serverConfig = fields.path('serverConfig');
    config.serverCwd = fields.optionalPath('serverCwd') ?? process.cwd();
  }
  return config;
}

/** The readiness file named in a server config, if it can be read (used by the stdio client). */
export function readinessFileOf(serverConfigFile: string): string | undefined {
  try {
    const raw = readConfigObject(serverConfigFile);
    return typeof raw.readinessFile === 'string' && raw.readinessFile !== ''
      ? path.resolve(path.dirname(serverConfigFile), raw.readinessFile)
      : undefined;
  } catch {
    return undefined;
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
