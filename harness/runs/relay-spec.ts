// The spec file a stdio relay process reads (harness/runs/stdio-relay.mjs, `--relay SPEC`): one typed
// writer, so the client runs and capability discovery cannot drift from what the relay expects.

import { writePrivateJson } from '../adapters/private-json.ts';

export interface RelaySpec {
  /** The real stdio server's command (adapter.json `server`); the relay appends `--config`. */
  command: string[];
  cwd: string;
  /** stderr of every server instance, appended. */
  serverLogFile: string;
  relayLogFile: string;
  /** One numbered folder per server instance the relay starts (see stdio-relay.mjs). */
  instancesDir: string;
  /** Request id → barrier released once the server's receipts hold that request. */
  barriers: Record<string, string>;
  readinessTimeoutMs: number;
  controlTimeoutMs: number;
  barrierTimeoutMs: number;
  graceMs: number;
}

/** Writes `spec` where a relay started with `--relay file` reads it (owner-only, like every run file). */
export function writeRelaySpec(file: string, spec: RelaySpec): void {
  writePrivateJson(file, spec);
}
