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
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  failures: RunFailure[];
  /** Captured client stdout/stderr (and the relay's, for stdio), for diagnostics. */
  logFiles: string[];
  durationMs: number;
}
