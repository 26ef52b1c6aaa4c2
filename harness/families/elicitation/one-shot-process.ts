// One short-lived adapter process of a pair — an atomic helper run, a sender step, the
// unauthenticated probe — with its JSON input on stdin and its JSON answer on stdout (rules §4, §5):
// the input is written 0600 into the pair's folder (it holds the pair's tokens) and removed again,
// the process runs under the supervisor with the step watchdog, and its tree is gone before this
// returns, whatever happened. The caller words the outcome with the family's labels.

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { runClientProcess } from '../../runs/client-process.ts';

export type OneShotOutcome =
  /** The process exited by itself; `stdout` is what it printed (possibly empty). */
  | { kind: 'exited'; code: number | null; signal: string | null; stdout: string; durationMs: number }
  /** The watchdog ended it after `timeoutMs`. */
  | { kind: 'timeout'; timeoutMs: number; durationMs: number }
  /** It never started (the command is missing, not executable, ...). */
  | { kind: 'spawn-failed'; message: string; durationMs: number };

export interface OneShotSpec {
  /** The base command with the mode arguments appended. */
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** The JSON value written to the process's stdin. */
  input: unknown;
  /** Folder of this process's files: `<name>.stdin.json`, `<name>.stdout`, `<name>.stderr`. */
  dir: string;
  name: string;
  timeoutMs: number;
  graceMs?: number;
}

export interface OneShotFiles {
  stdin: string;
  stdout: string;
  stderr: string;
}

export function oneShotFiles(dir: string, name: string): OneShotFiles {
  return { stdin: path.join(dir, `${name}.stdin.json`), stdout: path.join(dir, `${name}.stdout`), stderr: path.join(dir, `${name}.stderr`) };
}

/** Runs the process once. Its stderr stays in `<name>.stderr` for the caller's tail; stdin is removed. */
export async function runOneShot(spec: OneShotSpec): Promise<OneShotOutcome> {
  const files = oneShotFiles(spec.dir, spec.name);
  // A reused name (the same step slot of the next step) must not append to the last one's output.
  for (const file of [files.stdout, files.stderr]) rmSync(file, { force: true });
  writeFileSync(files.stdin, JSON.stringify(spec.input), { mode: 0o600 });
  const started = Date.now();
  try {
    const run = await runClientProcess({
      command: spec.argv,
      cwd: spec.cwd,
      env: spec.env,
      stdinFile: files.stdin,
      stdoutFile: files.stdout,
      logFile: files.stderr,
      runMs: spec.timeoutMs,
      graceMs: spec.graceMs ?? 1000,
    });
    const durationMs = Date.now() - started;
    if (!run.started) return { kind: 'spawn-failed', message: run.spawnError.message, durationMs };
    if (run.timedOut) return { kind: 'timeout', timeoutMs: spec.timeoutMs, durationMs };
    return { kind: 'exited', code: run.exit.code, signal: run.exit.signal, stdout: readText(files.stdout), durationMs };
  } finally {
    rmSync(files.stdin, { force: true });
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
