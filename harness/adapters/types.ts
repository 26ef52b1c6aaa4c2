import type { AuthMode, Transport } from '../config/define-config.ts';

/** The auth modes with an authenticated identity an allow-list can name: JWT `sub`, client-certificate CN. */
export const AUTH_ALLOW_LIST_MODES = ['oauth', 'workload', 'mtls'] as const;
export type AuthAllowListMode = (typeof AUTH_ALLOW_LIST_MODES)[number];

/** `interop/adapter.json` after validation. Extra keys (lifecycle commands, ...) are kept, not read. */
export interface AdapterManifest {
  language: string;
  server: string[];
  client: string[];
  /**
   * Our documented extension: the auth modes this adapter implements (both halves). Absent: no
   * declaration, every configured mode is tried. Modes not listed are planned `unsupported`.
   */
  auth?: AuthMode[];
  /**
   * Our documented extension: the modes in which this adapter's server reads the harness's allow-list
   * of principals (server config `extensions["ahp-conformance/auth-allow-list"]`, see
   * harness/auth/allow-list.ts) and refuses an authenticated identity it does not name. Absent: the
   * server is never given one, and the probes that need it are skipped.
   */
  authAllowList?: AuthAllowListMode[];
  /** The lifecycle contract's commands (test control v1), when the adapter has them. */
  lifecycleServer?: string[];
  lifecycleClient?: string[];
  /**
   * The elicitation family's base command (ELICITATION-RULES §2): the harness appends `server …`,
   * `check …` or `client`. Absent: the protocol's conventional location, when the SDK has it.
   */
  elicitation?: string[];
  /** The compaction family's wire adapter (`<paths> server`, `<paths> stdio <scope>`, `host`). */
  compactionWire?: string[];
  /** The compaction family's transport adapter (`client`), used by the rejection probe only. */
  compaction?: string[];
  [extra: string]: unknown;
}

/** A configured adapter with its manifest loaded: everything needed to start either half. */
export interface LoadedAdapter {
  name: string;
  /** Absolute; adapter commands run here. */
  cwd: string;
  /** Absolute path of the adapter.json that was read. */
  adapterFile: string;
  manifest: AdapterManifest;
}

/** What a server writes to its readiness file once it listens. */
export interface Readiness {
  /** AHP endpoint (HTTP base URL, or the intercept route itself) — absent/null for stdio servers. */
  endpoint: string | null;
  /** Control HTTP base URL: /health, /receipts, /release, /shutdown. */
  controlEndpoint: string;
  pid: number;
  /** The lifecycle receiver's raw upload URL, when the readiness file names one (plain HTTP). */
  uploadEndpoint?: string;
}

/**
 * A running HTTP server adapter as globalSetup `provide`s it to test files (serialisable: plain
 * strings and numbers only).
 */
export interface ServerHandle {
  adapter: string;
  transport: Transport;
  auth: AuthMode;
  endpoint: string;
  controlEndpoint: string;
  /** The lifecycle receiver's upload URL, when its readiness file named one. */
  uploadEndpoint?: string;
  pid: number;
  /** Temp dir owned by the harness for this server (configs, readiness, logs). */
  workDir: string;
  /** Captured stdout+stderr of the server, for failure messages. */
  logFile: string;
}
