// Starts a command under the supervisor (supervisor.mjs) so its whole process tree ends with it —
// on stop(), on failure or timeout in the caller, on Ctrl-C, and when this process (or the vitest
// worker that called launch) dies, even by SIGKILL (the supervisor sees its stdin close).

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

import { groupAlive, killGroup, killPid, register } from './supervise.ts';

export const SUPERVISOR_PATH = fileURLToPath(new URL('./supervisor.mjs', import.meta.url));

export interface LaunchSpec {
  /** argv; no shell. `command[0]` is looked up on PATH. */
  command: string[];
  cwd: string;
  /**
   * Added to (and overriding) this process's environment (VITEST* markers are never passed on).
   * `undefined` removes a variable.
   */
  env?: Record<string, string | undefined>;
  /** The child's stdin: this file's content (e.g. a plan written 0600 into the run dir). Default: empty. */
  stdinFile?: string;
  /** Where the child's stdout goes (appended; created 0600). Ignored when `passStdout`. */
  stdoutFile?: string;
  /** Where the child's stderr goes (may equal stdoutFile: one combined log). */
  stderrFile?: string;
  /** Expose the child's stdout as `LaunchedProcess.stdout` instead of writing it to a file. */
  passStdout?: boolean;
  /** Grace between SIGTERM and SIGKILL when the supervisor's stdin closes unexpectedly. Default 2000. */
  graceMs?: number;
  /**
   * Upper bound for the supervisor to spawn the command. Default 30000: the supervisor reports as
   * soon as the OS started the command, so only a starved machine comes near it, and a starved
   * machine is nobody's adapter fault.
   */
  spawnTimeoutMs?: number;
}

export interface ProcessExit {
  /** Exit code, null when killed by a signal (a signal exit is never reported as 0). */
  code: number | null;
  signal: string | null;
  /**
   * Descendants that had left the process group and were still running after it ended (and after a
   * short grace): the supervisor killed them. A process that leaves one behind is at fault.
   */
  leftovers?: number;
}

export interface LaunchedProcess {
  /** Pid of the real command; it leads its own process group (pgid === pid). */
  pid: number;
  supervisorPid: number;
  /** Resolves once the command exited and its group was cleaned up. Never rejects. */
  exited: Promise<ProcessExit>;
  /** Current state: undefined while running. */
  readonly exit: ProcessExit | undefined;
  /** SIGTERM to the group, SIGKILL after graceMs; resolves when everything is gone (bounded). */
  stop(graceMs?: number): Promise<void>;
  /** The command's stdout when `passStdout` was asked. */
  stdout?: Readable;
}

/** The command could not be started at all (stage "spawn"). */
export class SpawnError extends Error {
  override readonly name = 'SpawnError';
  constructor(
    readonly command: string,
    readonly cwd: string,
    readonly code: string,
    detail: string,
  ) {
    super(`spawn: cannot start ${JSON.stringify(command)} in ${cwd} (${code}): ${detail}`);
  }
}

type StatusEvent =
  | { event: 'started'; pid: number }
  | { event: 'spawn-error'; code: string; message: string }
  | { event: 'exit'; code: number | null; signal: string | null; leftovers?: number };

const DEFAULT_GRACE_MS = 2000;
const DEFAULT_SPAWN_TIMEOUT_MS = 30_000;

export function launch(spec: LaunchSpec): Promise<LaunchedProcess> {
  const [file] = spec.command;
  if (file === undefined || file === '') throw new TypeError('launch: empty command');
  const graceMs = spec.graceMs ?? DEFAULT_GRACE_MS;
  // The adapter gets this process's environment minus vitest's own markers (an SDK must not believe
  // it runs inside vitest), plus spec.env.
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== 'VITEST' && !key.startsWith('VITEST_')) env[key] = value;
  }
  for (const [key, value] of Object.entries(spec.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }

  const supervisor: ChildProcess = spawn(process.execPath, [SUPERVISOR_PATH], {
    stdio: ['pipe', spec.passStdout ? 'pipe' : 'ignore', 'ignore', 'pipe'],
    windowsHide: true,
  });
  const stdin = supervisor.stdin!;
  stdin.on('error', () => undefined); // EPIPE when the supervisor is gone: handled via 'exit'
  const statusStream = supervisor.stdio[3] as Readable;

  let pgid: number | undefined;
  let exit: ProcessExit | undefined;
  let reportedExit: ProcessExit | undefined;
  let resolveExited!: (exit: ProcessExit) => void;
  const exited = new Promise<ProcessExit>((resolve) => {
    resolveExited = resolve;
  });

  let onStarted: ((pid: number) => void) | undefined;
  let onSpawnError: ((error: SpawnError) => void) | undefined;

  let buffered = '';
  statusStream.setEncoding('utf8');
  statusStream.on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      let event: StatusEvent;
      try {
        event = JSON.parse(line) as StatusEvent;
      } catch {
        continue;
      }
      if (event.event === 'started') {
        pgid = event.pid;
        onStarted?.(event.pid);
      } else if (event.event === 'spawn-error') {
        onSpawnError?.(new SpawnError(file, spec.cwd, event.code, event.message));
      } else if (event.event === 'exit') {
        reportedExit = { code: event.code, signal: event.signal, ...(typeof event.leftovers === 'number' && event.leftovers > 0 ? { leftovers: event.leftovers } : {}) };
      }
    }
  });
  statusStream.on('error', () => undefined);

  const unregister = register({
    pgid: () => (exit ? undefined : pgid),
    supervisorPid: () => (exit ? undefined : supervisor.pid),
    stop: (ms) => stop(ms),
  });

  // 'exit' can come before the status pipe is drained, so the outcome is settled on 'close' (all
  // pipes drained), bounded in case an escaped grandchild still holds a passed-through stdout.
  const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
    if (exit) return;
    // Without a report the supervisor was killed itself: what we know, never a fake 0.
    exit = reportedExit ?? { code: code === 0 ? null : code, signal: signal ?? null };
    unregister();
    resolveExited(exit);
    onSpawnError?.(new SpawnError(file, spec.cwd, 'ESUPERVISOR', 'the supervisor exited before starting the command'));
  };
  supervisor.once('exit', (code, signal) => {
    // Normally the group is already empty (the supervisor empties it before reporting); if the
    // supervisor itself was killed, this is what keeps the group from surviving it.
    if (pgid !== undefined && reportedExit === undefined) killGroup(pgid, 'SIGKILL');
    setTimeout(() => finish(code, signal), 2000).unref();
  });
  supervisor.once('close', (code, signal) => finish(code, signal));
  supervisor.once('error', (error) => {
    onSpawnError?.(new SpawnError(file, spec.cwd, 'ESUPERVISOR', `cannot start the supervisor: ${error.message}`));
  });

  let stopping: Promise<void> | undefined;
  function stop(ms: number = graceMs): Promise<void> {
    if (exit) return Promise.resolve();
    stopping ??= (async () => {
      try {
        stdin.write(`${JSON.stringify({ op: 'stop', graceMs: ms })}\n`);
        stdin.end();
      } catch {
        // supervisor already gone
      }
      const bounded = await Promise.race([
        exited.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), ms + 2000).unref()),
      ]);
      if (!bounded) {
        if (pgid !== undefined) killGroup(pgid, 'SIGKILL');
        if (supervisor.pid !== undefined) killPid(supervisor.pid, 'SIGKILL');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
      }
    })();
    return stopping;
  }

  stdin.write(
    `${JSON.stringify({
      command: spec.command,
      cwd: spec.cwd,
      env,
      stdinFile: spec.stdinFile,
      stdoutFile: spec.stdoutFile,
      stderrFile: spec.stderrFile,
      passStdout: spec.passStdout ?? false,
      graceMs,
      tag: randomBytes(12).toString('hex'),
    })}\n`,
  );

  const spawnTimeoutMs = spec.spawnTimeoutMs ?? DEFAULT_SPAWN_TIMEOUT_MS;
  return new Promise<LaunchedProcess>((resolve, reject) => {
    // When this process's own event loop was blocked past the deadline, the timers phase runs before
    // the poll phase that would read the supervisor's "started" line: look at pending I/O once
    // (setImmediate runs after poll) before calling it a timeout.
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (onStarted === undefined) return;
        onStarted = undefined;
        onSpawnError = undefined;
        void stop(0);
        reject(
          new SpawnError(
            file,
            spec.cwd,
            'ETIMEDOUT',
            `the harness's supervisor did not report a start within ${spawnTimeoutMs} ms (a harness or machine-load problem, not the adapter's: the supervisor reports as soon as the OS started the command)`,
          ),
        );
      });
    }, spawnTimeoutMs);
    onSpawnError = (error) => {
      clearTimeout(timer);
      onStarted = undefined;
      onSpawnError = undefined;
      void stop(0);
      reject(error);
    };
    onStarted = (pid) => {
      clearTimeout(timer);
      onStarted = undefined;
      onSpawnError = undefined;
      const launched: LaunchedProcess = {
        pid,
        supervisorPid: supervisor.pid!,
        exited,
        get exit() {
          return exit;
        },
        stop,
      };
      if (spec.passStdout && supervisor.stdout) launched.stdout = supervisor.stdout;
      resolve(launched);
    };
    if (pgid !== undefined) onStarted(pgid);
  });
}

/** True while any process of the launched command's group is alive. */
export function treeAlive(launched: Pick<LaunchedProcess, 'pid'>): boolean {
  return groupAlive(launched.pid);
}
