// What every reference adapter executable does the same way around its own work: read `--config`
// (a bad config is exit 2 with a message naming the file and the field). Servers: settle the auth
// plan (a bad `auth` is exit 2, a mode the transport cannot use exit 3), listen on loopback port 0,
// and shut down once — closing every listener, letting stdout drain, exiting within a grace period —
// on a signal or whatever else the caller wires to it. Clients: settle the auth plan (inapplicable
// modes are reported per row), and exit with a code on every path, never leaving a spawned server.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Transport } from '../../../harness/config/define-config.ts';
import { AuthConfigError, prepareClientAuth, prepareServerAuth, type AuthConfig, type ClientAuth, type ServerAuth } from '../auth.ts';
import { AdapterConfigError, configPathFromArgs } from './config.ts';
import type { Log } from './log.ts';

/** How long shutdown may take before the process exits regardless. */
const SHUTDOWN_GRACE_MS = 2_000;

export function exitWith(log: Log, code: number, message: string): never {
  log.error(message);
  process.exit(code);
}

/** `load(--config path)`, or exit 2 naming what is wrong with the file. */
export function loadConfigOrExit<T>(log: Log, load: (file: string) => T): T {
  try {
    return load(configPathFromArgs(process.argv.slice(2)));
  } catch (error) {
    if (error instanceof AdapterConfigError) exitWith(log, 2, `bad config: ${error.message}`);
    throw error;
  }
}

/** The server's auth settings, or exit 2 (bad `auth`) / 3 (the mode does not apply to the transport). */
export function serverAuthOrExit(log: Log, transport: Transport, auth: AuthConfig): ServerAuth {
  try {
    const plan = prepareServerAuth(transport, auth);
    if (plan.kind !== 'supported') exitWith(log, 3, `refusing to start: ${plan.reason}`);
    return plan.auth;
  } catch (error) {
    if (error instanceof AuthConfigError) exitWith(log, 2, `bad config: ${error.message}`);
    throw error;
  }
}

/** Listens on 127.0.0.1 port 0; resolves with the origin URL. */
export function listen(server: Server, scheme: 'http' | 'https' = 'http'): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      resolve(`${scheme}://127.0.0.1:${port}`);
    });
  });
}

/**
 * The server's one shutdown: `onClose` first (wake held work), then every listener in `servers`
 * (added to as they start) is closed, stdout drains, and the process exits with `code`. Later calls
 * are ignored. SIGTERM and SIGINT shut down with 0.
 */
export function serverShutdown(log: Log, servers: Server[], onClose: () => void): (code: number, why: string) => void {
  let closing = false;
  const shutdown = (code: number, why: string): void => {
    if (closing) return;
    closing = true;
    log.info(`shutting down (${why})`);
    setTimeout(() => process.exit(code), SHUTDOWN_GRACE_MS).unref();
    onClose();
    for (const server of servers) {
      server.close();
      server.closeAllConnections();
    }
    // Let pending stdout writes (stdio replies) drain before exiting.
    process.stdout.write('', () => process.exit(code));
  };
  process.on('SIGTERM', () => shutdown(0, 'SIGTERM'));
  process.on('SIGINT', () => shutdown(0, 'SIGINT'));
  return shutdown;
}

/** How a client runs `auth`: with these settings, not at all (every row gets `reason`), or a bad config. */
export type ClientAuthOutcome = { kind: 'supported'; auth: ClientAuth } | { kind: 'inapplicable'; reason: string } | { kind: 'bad-config' };

/** The client's auth plan; a bad `auth` is logged here (the caller exits 2). */
export function clientAuthOutcome(log: Log, transport: Transport, auth: AuthConfig, endpoint: string | undefined): ClientAuthOutcome {
  try {
    const plan = prepareClientAuth(transport, auth, endpoint);
    if (plan.kind === 'supported') return plan;
    log.info(plan.reason);
    return plan;
  } catch (error) {
    if (!(error instanceof AuthConfigError)) throw error;
    log.error(`bad config: ${error.message}`);
    return { kind: 'bad-config' };
  }
}

export interface ClientExitPaths {
  /** Interrupted by a signal: release everything (a spawned server first) and write what is known. */
  interrupted(signal: NodeJS.Signals): Promise<void>;
  /** `main` threw: the same, for an unexpected failure. */
  failed(): Promise<void>;
  /** Synchronous last resort when the process exits: kill whatever this client spawned. */
  killNow(): void;
}

/**
 * Runs a client's `main` and exits with its code, on every path: SIGTERM → 143, SIGINT → 130
 * (bounded: after 5 s the spawned server is killed and the process exits anyway), an unexpected
 * failure → 1, and on any exit the spawned server is killed if still there.
 */
export function runClientMain(log: Log, main: () => Promise<number>, paths: ClientExitPaths): void {
  // Once a signal is being handled, its path alone decides the exit (main may still be unwinding).
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals, code: number): void => {
    if (interrupted) return;
    interrupted = true;
    log.error(`interrupted by ${signal}; stopping`);
    setTimeout(() => {
      paths.killNow();
      process.exit(code);
    }, 5_000).unref();
    void paths
      .interrupted(signal)
      .catch(() => undefined)
      .finally(() => process.exit(code));
  };
  process.on('SIGTERM', () => onSignal('SIGTERM', 143));
  process.on('SIGINT', () => onSignal('SIGINT', 130));
  process.on('exit', () => paths.killNow());
  main().then(
    (code) => {
      if (!interrupted) process.exit(code);
    },
    async (error: unknown) => {
      if (interrupted) return;
      log.error(`failed: ${error instanceof Error ? error.message : String(error)}`);
      await paths.failed().catch(() => undefined);
      process.exit(1);
    },
  );
}
