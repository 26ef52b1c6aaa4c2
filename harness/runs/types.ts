import type { AuthMode, Transport } from '../config/define-config.ts';
import type { LoadedAdapter, ServerHandle } from '../adapters/types.ts';
import type { Scenario } from '../scenarios/types.ts';

/** One client run: a client adapter against a server adapter over one transport and auth mode. */
export interface ClientRunSpec {
  server: LoadedAdapter;
  client: LoadedAdapter;
  transport: Transport;
  auth: AuthMode;
  /** Exactly the rows the client must run (the tests selected), in file order. */
  scenarios: Scenario[];
  /** The already running HTTP server (transport http only). */
  httpServer?: ServerHandle;
  /** Path of the full scenario file the server was (or will be) started with. */
  serverScenarioFile: string;
  /**
   * Absolute directory of draft JSON Schemas (the config's `schemas`). Passed to the client config
   * and, over stdio, to the server config as the optional `schemaDir` key (adapters that do not
   * validate with a schema directory ignore it).
   */
  schemasDir: string;
  watchdogs: { startupMs: number; runMs: number };
}

/** Why a run produced no usable evidence, as a fixed label (never raw adapter output). */
export type RunStage = 'spawn' | 'startup' | 'run' | 'report' | 'receipts';

export interface RunFailure {
  stage: RunStage;
  kind: string;
  message: string;
}

export interface ClientRunOutcome {
  spec: Pick<ClientRunSpec, 'transport' | 'auth'> & { server: string; client: string };
  /** Parsed report JSON, or undefined when missing/garbled (see failures). */
  report: unknown;
  /** Requests the server received during this run, in arrival order. Undefined when unavailable. */
  receipts: unknown[] | undefined;
  /**
   * Stdio only: the stdio relay's records of every response line it forwarded to the client, in
   * order, each paired with the request it answers by the order requests were sent (never by the
   * response's own id): `{requestId, method, response}` or `{requestId, method, invalidJson: true}`;
   * `{unsolicited: true, ...}` for a line while no request was pending; `{overflow: true}` once the
   * record reached its size bound. Undefined for HTTP runs and when the record is unavailable (a
   * run failure then says why).
   */
  responses?: unknown[];
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  failures: RunFailure[];
  /** Captured client stdout/stderr (and the relay's, for stdio), for diagnostics. */
  logFiles: string[];
  durationMs: number;
}
