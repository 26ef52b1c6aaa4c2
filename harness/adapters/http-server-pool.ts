// Starting and stopping HTTP server adapters (what globalSetup does once per adapter × auth mode),
// plus the per-server lock that lets runs attribute receipts one at a time.
//
// A server is launched through the supervisor in a fresh temp dir holding its config (0600), its
// readiness file and its log. Handles are plain data (ServerHandle) so globalSetup can `provide`
// them; the live process objects stay in this module, keyed by the handle's workDir.

import { mkdirSync, mkdtempSync, rmSync, rmdirSync, watch, writeFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { threadId } from 'node:worker_threads';
import path from 'node:path';

import { allowListServerConfig } from '../auth/allow-list.ts';
import type { AuthMode } from '../config/define-config.ts';
import { health, shutdown } from './control-client.ts';
import { launch, SpawnError, type LaunchedProcess } from './launch.ts';
import { writePrivateJson } from './private-json.ts';
import { ReadinessError, waitForReadiness } from './readiness.ts';
import type { LoadedAdapter, ServerHandle } from './types.ts';
import { killGroup, killPid, waitGroupGone } from './supervise.ts';
import { adapterFolderPart } from './file-name-part.ts';

export interface StartHttpServerOptions {
  adapter: LoadedAdapter;
  /** The argv to run (default: the adapter's core `server` command), e.g. its `lifecycleServer`. */
  command?: string[];
  /** More server-config keys (e.g. a lifecycle `suite` and `uploadAuth`), merged before the core ones. */
  extraConfig?: Record<string, unknown>;
  /** The readiness file must name an `uploadEndpoint` (lifecycle receivers). */
  requireUploadEndpoint?: boolean;
  auth: AuthMode;
  /** Extra `auth` settings for the server config (token, key files, ...), merged after `mode`. */
  authSettings?: Record<string, unknown>;
  /** Absolute scenario file the server answers from. */
  scenarioFile: string;
  /**
   * Absolute directory of draft JSON Schemas (the config's `schemas`), passed as the server config's
   * optional `schemaDir` key so an adapter that honours it validates with the configured schemas.
   * Omitted from the server config when undefined.
   */
  schemaDir?: string;
  /** Parent folder for the server's fresh temp dir. Default: the OS temp dir. */
  workDir?: string;
  /** Startup watchdog: readiness file + /health. */
  startupMs: number;
  /** Grace between SIGTERM and SIGKILL when stopping. Default 2000. */
  graceMs?: number;
}

export type ServerStartStage = 'spawn' | 'startup';

/** A server that could not be started. Its process tree is already gone when this is thrown. */
export class ServerStartError extends Error {
  override readonly name = 'ServerStartError';
  constructor(
    readonly adapter: string,
    readonly stage: ServerStartStage,
    readonly kind: string,
    readonly logFile: string,
    /** Group leader pid, when the command started at all. */
    readonly pid: number | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

interface Running {
  process: LaunchedProcess;
  options: StartHttpServerOptions;
  handle: ServerHandle;
}

const running = new Map<string, Running>();


export async function startHttpServer(options: StartHttpServerOptions): Promise<ServerHandle> {
  const { adapter, auth, startupMs } = options;
  const parent = options.workDir ?? os.tmpdir();
  mkdirSync(parent, { recursive: true });
  const workDir = mkdtempSync(path.join(parent, `server-${adapterFolderPart(adapter.name)}-${auth}-`));
  const configFile = path.join(workDir, 'server-config.json');
  const readinessFile = path.join(workDir, 'readiness.json');
  const logFile = path.join(workDir, 'server.log');
  writePrivateJson(configFile, {
    ...options.extraConfig,
    transport: 'http',
    readinessFile,
    scenarioFile: options.scenarioFile,
    auth: { ...options.authSettings, mode: auth },
    ...(options.schemaDir === undefined ? {} : { schemaDir: options.schemaDir }),
    // Every HTTP server of a run (core, lifecycle, the probes) is told the same policy, or none.
    ...allowListServerConfig(adapter, auth),
  });

  const fail = (stage: ServerStartStage, kind: string, pid: number | undefined, message: string, cause?: unknown): ServerStartError =>
    new ServerStartError(adapter.name, stage, kind, logFile, pid, `${stage}: server adapter "${adapter.name}" (${auth}): ${message}`, { cause });

  let proc: LaunchedProcess;
  try {
    proc = await launch({
      command: [...(options.command ?? adapter.manifest.server), '--config', configFile],
      cwd: adapter.cwd,
      stdoutFile: logFile,
      stderrFile: logFile,
      graceMs: options.graceMs ?? 2000,
    });
  } catch (error) {
    rmSync(workDir, { recursive: true, force: true });
    if (error instanceof SpawnError) throw fail('spawn', error.code, undefined, `${error.message}`, error);
    throw error;
  }

  const deadline = Date.now() + startupMs;
  try {
    const readiness = await waitForReadiness(readinessFile, { timeoutMs: startupMs, exited: proc.exited, logFile });
    if (readiness.endpoint === null) {
      throw fail('startup', 'readiness', proc.pid, `readiness file ${readinessFile}: endpoint: expected an http(s) URL string for an HTTP server, got null; see the server log ${logFile}`);
    }
    if (options.requireUploadEndpoint && readiness.uploadEndpoint === undefined) {
      throw fail('startup', 'readiness', proc.pid, `readiness file ${readinessFile}: uploadEndpoint: expected the upload receiver's http URL (lifecycle servers advertise it); see the server log ${logFile}`);
    }
    try {
      await health(readiness.controlEndpoint, { timeoutMs: Math.max(1, deadline - Date.now()) });
    } catch (error) {
      throw fail('startup', 'health', proc.pid, `${(error as Error).message}; see the server log ${logFile}`, error);
    }
    const handle: ServerHandle = {
      adapter: adapter.name,
      transport: 'http',
      auth,
      endpoint: readiness.endpoint,
      controlEndpoint: readiness.controlEndpoint,
      ...(readiness.uploadEndpoint === undefined ? {} : { uploadEndpoint: readiness.uploadEndpoint }),
      pid: proc.pid,
      workDir,
      logFile,
    };
    running.set(workDir, { process: proc, options, handle });
    return handle;
  } catch (error) {
    await proc.stop(0);
    if (error instanceof ServerStartError) throw error;
    if (error instanceof ReadinessError) throw fail('startup', error.kind, proc.pid, stripStage(error.message), error);
    throw error;
  }
}

function stripStage(message: string): string {
  return message.replace(/^startup: /, '');
}

export interface StopHttpServerOptions {
  /** Bound for the polite POST /shutdown + exit. Default 3000. */
  shutdownMs?: number;
  /** Grace between SIGTERM and SIGKILL afterwards. Default 1000. */
  graceMs?: number;
  /** Keep the temp dir (logs) instead of removing it. */
  keepWorkDir?: boolean;
}

/**
 * POST /shutdown, wait (bounded) for the exit, then kill the tree; removes the temp dir. Never throws.
 * Resolves with how many escaped descendants the server left running (killed by its supervisor).
 */
export async function stopHttpServer(handle: ServerHandle, options: StopHttpServerOptions = {}): Promise<{ leftovers: number }> {
  const shutdownMs = options.shutdownMs ?? 3000;
  const entry = running.get(handle.workDir);
  running.delete(handle.workDir);
  try {
    if (!entry || !entry.process.exit) {
      const deadline = Date.now() + shutdownMs;
      await shutdown(handle.controlEndpoint, { timeoutMs: shutdownMs }).catch(() => undefined);
      const remaining = Math.max(0, deadline - Date.now());
      if (entry) await Promise.race([entry.process.exited, new Promise((resolve) => setTimeout(resolve, remaining).unref())]);
      else await waitGroupGone(handle.pid, remaining);
    }
    if (entry) {
      await entry.process.stop(options.graceMs ?? 1000);
      return { leftovers: (entry.process.exit ?? (await entry.process.exited)).leftovers ?? 0 };
    }
    // Not started by this process (a handle provided from elsewhere): kill its group directly.
    killGroup(handle.pid, 'SIGKILL');
    return { leftovers: 0 };
  } finally {
    if (!options.keepWorkDir) rmSync(handle.workDir, { recursive: true, force: true });
  }
}

/**
 * Watch mode: checks /health and, when the server is gone or unhealthy, stops whatever is left and
 * starts it again with the same options. Returns the (possibly new) handle.
 */
export async function ensureAlive(handle: ServerHandle, options: { timeoutMs?: number } = {}): Promise<ServerHandle> {
  const entry = running.get(handle.workDir);
  if (!entry) throw new Error(`ensureAlive: server ${handle.adapter} (${handle.workDir}) was not started by this process`);
  if (!entry.process.exit) {
    try {
      await health(handle.controlEndpoint, { timeoutMs: options.timeoutMs ?? 2000 });
      return handle;
    } catch {
      // fall through: restart
    }
  }
  await stopHttpServer(handle, { shutdownMs: 500, graceMs: 500 });
  return startHttpServer(entry.options);
}

/** The live process behind a handle started by this process (tests, diagnostics). */
export function serverProcess(handle: ServerHandle): LaunchedProcess | undefined {
  return running.get(handle.workDir)?.process;
}

// ----- per-server lock -----------------------------------------------------------------------------
// A shared server's receipts can only be attributed to one run at a time (receipts after − before).
// The lock is an in-process promise queue plus a lock directory in the server's workDir (mkdir is
// atomic), so runs in different vitest workers serialise too. A lock left by a dead process is
// broken (its owner pid no longer exists). Waiting is bounded.

export class ServerLockTimeoutError extends Error {
  override readonly name = 'ServerLockTimeoutError';
}

const queues = new Map<string, Promise<void>>();

export interface ServerLockOptions {
  /** Bound for acquiring the lock. Default 600000 (10 min). */
  timeoutMs?: number;
}

export async function withServerLock<T>(
  handle: Pick<ServerHandle, 'workDir' | 'adapter'>,
  fn: () => Promise<T>,
  options: ServerLockOptions = {},
): Promise<T> {
  const key = handle.workDir;
  const previous = queues.get(key) ?? Promise.resolve();
  let releaseQueue!: () => void;
  const mine = new Promise<void>((resolve) => {
    releaseQueue = resolve;
  });
  const tail = previous.then(() => mine);
  queues.set(key, tail);
  try {
    await previous;
    const deadline = Date.now() + (options.timeoutMs ?? 600_000);
    const lockDir = path.join(handle.workDir, 'run.lock');
    await acquireDirLock(lockDir, deadline, handle.adapter);
    try {
      return await fn();
    } finally {
      try {
        rmSync(lockDir, { recursive: true, force: true });
      } catch {
        // workDir already removed
      }
    }
  } finally {
    releaseQueue();
    if (queues.get(key) === tail) queues.delete(key);
  }
}

async function acquireDirLock(lockDir: string, deadline: number, adapter: string): Promise<void> {
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(path.join(lockDir, 'owner'), `${process.pid}:${threadId}`);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    // Held: break it if its owner is dead, else wait for a change (bounded).
    // Owner `pid:threadId`. Stale when that process is dead, or when it is this very thread (the
    // in-process queue already guarantees exclusivity here, so it is a leftover).
    let stale = false;
    try {
      const [pidText, threadText] = readFileSync(path.join(lockDir, 'owner'), 'utf8').split(':');
      const owner = Number(pidText);
      if (Number.isInteger(owner) && owner > 0) {
        stale = owner === process.pid ? Number(threadText) === threadId : !killPid(owner, 0);
      }
    } catch {
      // being created or removed right now
    }
    if (stale) {
      try {
        rmSync(path.join(lockDir, 'owner'), { force: true });
        rmdirSync(lockDir);
      } catch {
        // someone else broke it first
      }
      continue;
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new ServerLockTimeoutError(`run: timed out waiting for the run lock of server "${adapter}" (${lockDir})`);
    }
    await new Promise<void>((resolve) => {
      let watcher: ReturnType<typeof watch> | undefined;
      const done = (): void => {
        clearTimeout(timer);
        watcher?.close();
        resolve();
      };
      const timer = setTimeout(done, Math.min(left, 100));
      try {
        watcher = watch(path.dirname(lockDir), done);
        watcher.on('error', done);
      } catch {
        // poll only
      }
    });
  }
}
