// The lifecycle adapter configs (LIFECYCLE-RULES §2): what `lifecycle-server.ts` and
// `lifecycle-client.ts` read from `--config ABS_PATH`. Unknown keys are ignored (a newer runner may
// add some); every known key is type-checked, and a message names the file, the key and what was
// expected, never a credential value. `suite` selects the runner family: "lifecycle" (also when
// absent) or "catalogue" (CATALOGUE-RULES §1: the same configs, the only suite signal). Any other
// value is a fatal config error (exit 2), so an unknown family can never pass or be skipped.

import type { Transport } from '../../../harness/config/define-config.ts';
import type { AuthConfig } from '../auth.ts';
import type { UploadConfig } from '../../../harness/lifecycle-adapters/scenario-types.ts';
import { Fields, readConfigObject } from '../lib/config.ts';

export const LIFECYCLE_SUITE = 'lifecycle';
export const CATALOGUE_SUITE = 'catalogue';
const SUITES = [LIFECYCLE_SUITE, CATALOGUE_SUITE] as const;
export type LifecycleFamilySuite = (typeof SUITES)[number];

export interface LifecycleServerConfig {
  suite: LifecycleFamilySuite;
  transport: Transport;
  readinessFile: string;
  scenarioFile: string;
  /** Event endpoint authentication (HTTP only; stdio is process trust). */
  auth: AuthConfig;
  /**
   * The one upload credential the upload receiver authorises; independent of `auth`. The runner
   * writes it for both suites (CATALOGUE-RULES §1: configs unchanged); the catalogue takes no uploads.
   */
  uploadAuth: { token: string };
  schemaDir?: string;
}

/** Upload settings of the client config or of one upload step (a step's replace, never merge). */
export interface UploadSettings {
  /**
   * Environment variable holding the bearer token. Absent when the config's `upload` block has no
   * `auth`: the upload then carries no credential at all (SENDER-ISOLATION-RULES §2) — never an
   * environment token, never an event credential.
   */
  tokenEnv?: string;
  timeoutMs: number;
  maxBytes: number;
  /** Absent: the spawned stdio server's readiness `uploadEndpoint`. */
  endpoint?: string;
}

export interface LifecycleClientWatchdogs {
  /** Spawned stdio server: until its readiness file appears. */
  startupMs: number;
  /** Each intercept reply, counted from its send. */
  requestMs: number;
  /** Each control call, including the receiver's blocking waits. */
  controlMs: number;
  /** Each observation notification (HTTP) and each stray-frame discard rendezvous (stdio). */
  observeMs: number;
}

export const CLIENT_WATCHDOG_DEFAULTS: Readonly<LifecycleClientWatchdogs> = {
  startupMs: 20_000,
  requestMs: 30_000,
  controlMs: 30_000,
  observeMs: 10_000,
};
const WATCHDOG_NAMES = Object.keys(CLIENT_WATCHDOG_DEFAULTS) as Array<keyof LifecycleClientWatchdogs>;

export interface LifecycleClientConfig {
  suite: LifecycleFamilySuite;
  transport: Transport;
  scenarioFile: string;
  reportFile: string;
  auth: AuthConfig;
  /** Client-level upload settings; an upload step's own `upload` replaces them. */
  upload: UploadSettings | undefined;
  /** HTTP: event base URL (a trailing `/intercept` is tolerated) and the receiver's control endpoint. */
  endpoint?: string;
  controlEndpoint?: string;
  /** stdio: the server to spawn (`--config serverConfig` appended), its cwd, and where to write its pid. */
  serverCommand?: string[];
  serverCwd?: string;
  serverConfig?: string;
  childPidFile?: string;
  schemaDir?: string;
  watchdogs: LifecycleClientWatchdogs;
}

const SUITE_EXPECTATION = `must be ${SUITES.map((s) => JSON.stringify(s)).join(' or ')} (or absent)`;

function suiteOf(fields: Fields): LifecycleFamilySuite {
  if (!fields.has('suite')) return LIFECYCLE_SUITE;
  const suite = fields.string('suite', SUITE_EXPECTATION);
  if ((SUITES as readonly string[]).includes(suite)) return suite as LifecycleFamilySuite;
  fields.fail('suite', `${SUITE_EXPECTATION}; ${JSON.stringify(suite).slice(0, 60)} is an unknown suite`);
}

export function loadLifecycleServerConfig(file: string): LifecycleServerConfig {
  const fields = new Fields(file, readConfigObject(file));
  const config: LifecycleServerConfig = {
    suite: suiteOf(fields),
    transport: fields.transport(),
    readinessFile: fields.path('readinessFile'),
    scenarioFile: fields.path('scenarioFile'),
    auth: fields.serverAuth(),
    uploadAuth: { token: fields.nested('uploadAuth', '{token} (the independent upload credential)').string('token') },
  };
  const schemaDir = fields.optionalPath('schemaDir');
  if (schemaDir) config.schemaDir = schemaDir;
  return config;
}

export function loadLifecycleClientConfig(file: string): LifecycleClientConfig {
  const raw = readConfigObject(file);
  const fields = new Fields(file, raw);
  const config: LifecycleClientConfig = {
    suite: suiteOf(fields),
    transport: fields.transport(),
    scenarioFile: fields.path('scenarioFile'),
    reportFile: fields.path('reportFile'),
    auth: fields.auth(),
    upload: fields.has('upload') ? uploadSettings(fields.nested('upload', '{auth?, timeoutMs, maxBytes, endpoint?}')) : undefined,
    watchdogs: { ...CLIENT_WATCHDOG_DEFAULTS, ...fields.watchdogs(WATCHDOG_NAMES) },
  };
  const schemaDir = fields.optionalPath('schemaDir');
  if (schemaDir) config.schemaDir = schemaDir;
  // SDK-driven uploads are optional (§5); this client never makes them, so the sources go unused.
  if (raw.contentSources !== undefined && !Array.isArray(raw.contentSources)) fields.fail('contentSources', 'must be an array');

  if (config.transport === 'http') {
    config.endpoint = fields.httpUrl('endpoint', ' for transport "http"');
    config.controlEndpoint = fields.httpUrl('controlEndpoint', ' for transport "http"');
  } else {
    config.serverCommand = fields.argv('serverCommand', ' for transport "stdio"');
    config.serverConfig = fields.path('serverConfig');
    config.serverCwd = fields.optionalPath('serverCwd') ?? process.cwd();
    const childPidFile = fields.optionalPath('childPidFile');
    if (childPidFile) config.childPidFile = childPidFile;
  }
  return config;
}

/** The config's `upload` block; without an `auth` key, uploads are anonymous (no credential at all). */
function uploadSettings(fields: Fields): UploadSettings {
  const settings: UploadSettings = { timeoutMs: fields.integer('timeoutMs', 1), maxBytes: fields.integer('maxBytes', 0) };
  if (fields.has('auth')) {
    const auth = fields.nested('auth', '{type: "bearer", tokenEnv} (or no "auth" key for anonymous uploads)');
    if (auth.string('type') !== 'bearer') auth.fail('type', 'must be "bearer"');
    const tokenEnv = auth.string('tokenEnv');
    if (!ENV_NAME.test(tokenEnv)) auth.fail('tokenEnv', 'must name an environment variable');
    settings.tokenEnv = tokenEnv;
  }
  if (fields.has('endpoint')) settings.endpoint = fields.httpUrl('endpoint');
  return settings;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An upload step's own settings (already checked by the scenario file's format schema). */
export function stepUploadSettings(upload: UploadConfig): UploadSettings {
  const settings: UploadSettings = { tokenEnv: upload.auth.tokenEnv, timeoutMs: upload.timeoutMs, maxBytes: upload.maxBytes };
  if (upload.endpoint !== undefined) settings.endpoint = upload.endpoint;
  return settings;
}
