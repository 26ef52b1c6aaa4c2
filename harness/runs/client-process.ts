// The one way a client adapter process runs, whichever family started it: spawned under the
// supervisor with its stdout and stderr in one log, bounded by the run watchdog, its whole process
// tree ended on every path before the caller sees the result, and its report read back. Callers word
// the failures themselves (each family's labels and parties differ); this module only says what
// happened, so the process handling cannot drift apart between the core, lifecycle and probe runs.

import { readFileSync } from 'node:fs';

import { launch, SpawnError, type LaunchedProcess, type ProcessExit } from '../adapters/launch.ts';
import { parseJsonText } from '../protocol/json-text.ts';

export interface ClientProcessSpec {
  /** The adapter's command with its arguments (argv, no shell). */
  command: string[];
  cwd: string;
  /** Added to the environment the supervisor passes on. */
  env?: Record<string, string>;
  /** The client's stdout and stderr, combined (stderr only when `stdoutFile` is given). */
  logFile: string;
  /** The client's stdout on its own, for a client that answers there (a JSON result). */
  stdoutFile?: string;
  /** The client's stdin: this file's content (a plan). Default: empty. */
  stdinFile?: string;
  /** Run watchdog: the client is stopped when it has not exited by then. */
  runMs: number;
  /** Grace between SIGTERM and SIGKILL. */
  graceMs: number;
  /** Called once the process runs, before the wait (a caller's own watchers, e.g. barriers). */
  onStarted?: (client: LaunchedProcess) => void;
  /** Called when the watchdog fired, while the tree is still alive (a last look at what it holds). */
  onTimeout?: () => Promise<void>;
}

export type ClientProcessRun =
  /** The command could not be started at all. */
  | { started: false; spawnError: SpawnError }
  /** The client ran; its tree is gone. `timedOut`: the watchdog ended it. */
  | { started: true; process: LaunchedProcess; exit: ProcessExit; timedOut: boolean };

/** Runs the client to its exit or the watchdog. Throws only for harness bugs, never for the adapter's. */
export async function runClientProcess(spec: ClientProcessSpec): Promise<ClientProcessRun> {
  let client: LaunchedProcess;
  try {
    client = await launch({
      command: spec.command,
      cwd: spec.cwd,
      ...(spec.env === undefined ? {} : { env: spec.env }),
      ...(spec.stdinFile === undefined ? {} : { stdinFile: spec.stdinFile }),
      stdoutFile: spec.stdoutFile ?? spec.logFile,
      stderrFile: spec.logFile,
      graceMs: spec.graceMs,
    });
  } catch (error) {
    if (!(error instanceof SpawnError)) throw error;
    return { started: false, spawnError: error };
  }
  spec.onStarted?.(client);
  let timedOut = false;
  let watchdog: NodeJS.Timeout | undefined;
  try {
    const result = await Promise.race([
      client.exited,
      new Promise<'timeout'>((resolve) => {
        // After a blocked event loop the timers phase runs before the poll phase that would read
        // the exit: one setImmediate lets an exit that already happened win the race.
        watchdog = setTimeout(() => setImmediate(() => resolve('timeout')), spec.runMs);
      }),
    ]);
    if (result === 'timeout') {
      timedOut = true;
      await spec.onTimeout?.();
    }
  } finally {
    clearTimeout(watchdog);
    await client.stop(spec.graceMs); // no-op once exited; ends the tree on every path
  }
  return { started: true, process: client, exit: client.exit ?? (await client.exited), timedOut };
}

/** Reads a JSON file; reports "missing" / "unreadable" / "invalid-json" through `onFail` and returns undefined. */
export function readJsonFile(file: string, onFail: (kind: string, message: string) => void, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    onFail(code === 'ENOENT' ? 'missing' : 'unreadable', `${what} file ${file} ${code === 'ENOENT' ? 'was not written' : `cannot be read (${code})`}`);
    return undefined;
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    onFail('invalid-json', `${what} file ${file} is not valid JSON ${parsed.where}`);
    return undefined;
  }
  return parsed.value;
}
