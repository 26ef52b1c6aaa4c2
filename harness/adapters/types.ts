import type { AuthMode, Transport } from '../config/define-config.ts';

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
  /** AHP endpoint (HTTP base URL) — absent/null for stdio servers. */
  endpoint: string | null;
  /** Control HTTP base URL: /health, /receipts, /release, /shutdown. */
  controlEndpoint: string;
  pid: number;
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
  pid: number;
  /** Temp dir owned by the harness for this server (configs, readiness, logs). */
  workDir: string;
  /** Captured stdout+stderr of the server, for failure messages. */
  logFile: string;
}
