// The public configuration surface: what `adapters.config.ts` (or a JSON/MJS file named by
// AHP_CONFIG) may contain. Other tools write these keys, so they are a stable interface.

export const TRANSPORTS = ['http', 'stdio'] as const;
export type Transport = (typeof TRANSPORTS)[number];

export const AUTH_MODES = ['none', 'bearer', 'oauth', 'mtls', 'workload'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export interface AdapterEntry {
  /** The name tests use: `<server>→<client> <transport>/<auth> › <id>`. */
  name: string;
  /** The SDK checkout; adapter commands run here. Relative to the config file's folder. */
  cwd: string;
  /** Defaults to `<cwd>/interop/adapter.json`. Relative to the config file's folder. */
  adapterFile?: string;
}

export interface Pairing {
  server: string;
  client: string;
}

export interface Watchdogs {
  /** Upper bound for an adapter to become ready (readiness file + /health). */
  startupMs?: number;
  /** Upper bound for one client run over its selected scenarios. */
  runMs?: number;
}

export const ELICITATION_BINDINGS = ['upload', 'inline'] as const;
/**
 * How elicitation bodies travel (ELICITATION-RULES §14): `upload`, the MCP JSON uploaded first and named
 * by `body:{ref,size,sha256}` (what SDK adapters speak today), or `inline`, the current draft's text part.
 */
export type ElicitationBinding = (typeof ELICITATION_BINDINGS)[number];

export interface ElicitationSettings {
  /** Default `upload`. `inline` also changes the default case file (`fixtures/elicitation-inline.json`). */
  binding?: ElicitationBinding;
}

export interface UserConfig {
  /** Directory of draft JSON Schemas laid out like the canonical `schema/draft`. */
  schemas?: string;
  /** Scenario files by suite, e.g. `{ core: 'fixtures/scenarios.json', compaction: 'fixtures/compaction.json' }` (compaction left out: ours). */
  scenarios?: Record<string, string>;
  adapters?: AdapterEntry[];
  transports?: Transport[];
  auth?: AuthMode[];
  /** Restricts the default every-server × every-client matrix. */
  pairings?: Pairing[];
  watchdogs?: Watchdogs;
  /** How many pairings may run at once. */
  parallelism?: number;
  /** Directory for reports/<project>.json, the matrix summary and kept logs (default `reports`). */
  reports?: string;
  /**
   * A known-failure baseline file (JSON): `{version: 1, entries: [{group, id, reason, project?}]}`.
   * A listed row that fails is an expected failure; a listed row that passes fails the run as stale.
   */
  baseline?: string;
  /** The elicitation family's settings. */
  elicitation?: ElicitationSettings;
  /** Blind mode: clients get decoy expectations and opaque ids (also `AHP_BLIND=1`). */
  blind?: boolean;
  /**
   * A previous run to compare with (its reports directory or one of its JSON reports): the page and
   * the terminal summary list newly failing, newly passing and vanished rows. Also `AHP_COMPARE=<path>`.
   */
  compare?: string | null;
}

/** Identity helper that gives `adapters.config.ts` type checking and editor completion. */
export function defineConfig(config: UserConfig): UserConfig {
  return config;
}
