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
  /** What the client's scenario file holds, when it differs from `scenarios` (blind mode's decoys). */
  clientScenarios?: Scenario[];
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
  /** Who is at fault when the stage alone does not say it (see verify-run.ts partyOfFailure). */
  party?: 'client' | 'server' | 'client or server' | 'harness';
}

/** What every client run's outcome says of the client process and of the run's failures. */
export interface ClientProcessOutcome {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  failures: RunFailure[];
  /** Captured client stdout/stderr (and the relay's, or the server's), for diagnostics. */
  logFiles: string[];
  durationMs: number;
}

export interface ClientRunOutcome extends ClientProcessOutcome {
  spec: Pick<ClientRunSpec, 'transport' | 'auth'> & { server: string; client: string };
  /** Parsed report JSON, or undefined when missing/garbled (see failures). */
  report: unknown;
  /** Requests the server received during this run, in arrival order. Undefined when unavailable. */
  receipts: unknown[] | undefined;
  /**
   * The response evidence of the run, from the harness's own place on the wire (the stdio relay, or
   * the HTTP forwarding proxy): every response the client was handed, in order, each paired with the
   * request it answers by the order requests were sent (never by the response's own id):
   * `{requestId, method, response}` or `{requestId, method, invalidJson: true}`, plus `status` (the
   * HTTP status) over HTTP and `instance` (which server process) over stdio; `{unsolicited: true,
   * ...}` for a stdio line while no request was pending; `{overflow: true}` once a record reached its
   * size bound. Undefined when there is none (a run failure or `evidenceNote` says why).
   */
  responses?: unknown[];
  /** Every message the client sent, parsed, in order, as the relay or proxy saw it; undefined when unknown. */
  sent?: unknown[];
  /** Why this run has receipts-only evidence (no response record), when it has; shown with every row. */
  evidenceNote?: string;
}

/** What globalSetup provides per shared HTTP server: a handle, or why it could not start. */
export type ProvidedServer = { handle: ServerHandle; error?: undefined } | { handle?: undefined; error: RunFailure };
