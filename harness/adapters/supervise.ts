// The process-wide registry of supervised processes, and the cleanup hooks that guarantee no orphan:
//
// - `process.on('exit')`: synchronously SIGKILL every remaining process group (and its supervisor).
// - SIGINT / SIGTERM: stop everything (bounded), then re-raise the signal with our listener removed,
//   so the default action applies (not re-raised when other listeners own that signal).
// - The vitest worker (or the whole harness) dying without running any of this is covered by the
//   supervisor itself: its stdin pipe closes and it terminates the child's group (supervisor.mjs).

import { existsSync, readdirSync, readFileSync } from 'node:fs';

export interface SupervisedEntry {
  /** Group leader pid of the real command (= its process group id); undefined until started. */
  pgid(): number | undefined;
  /** Pid of the supervisor process. */
  supervisorPid(): number | undefined;
  /** Graceful bounded stop (SIGTERM to the group, SIGKILL after graceMs). */
  stop(graceMs: number): Promise<void>;
}

const live = new Set<SupervisedEntry>();
let installed = false;

export function register(entry: SupervisedEntry): () => void {
  installCleanupHooks();
  live.add(entry);
  return () => {
    live.delete(entry);
  };
}

/** How many supervised processes this process currently owns (for tests and diagnostics). */
export function liveCount(): number {
  return live.size;
}

/** Stops every supervised process this process started (each bounded by graceMs + a margin). */
export async function stopAll(graceMs = 1000): Promise<void> {
  await Promise.all([...live].map((entry) => entry.stop(graceMs).catch(() => undefined)));
}

/** SIGKILLs every registered group and supervisor, synchronously. */
export function killAllNow(): void {
  for (const entry of live) {
    const pgid = entry.pgid();
    if (pgid !== undefined) killGroup(pgid, 'SIGKILL');
    const sup = entry.supervisorPid();
    if (sup !== undefined) killPid(sup, 'SIGKILL');
  }
}

/** Sends `signal` to process group `pgid`; false when the group no longer exists. */
export function killGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

export function killPid(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * True while any live process of group `pgid` exists. Zombies do not count: an exited process that
 * its (new) parent has not reaped yet — e.g. a grandchild reparented to an init that reaps slowly —
 * holds nothing. On Linux this reads /proc; elsewhere it falls back to kill(-pgid, 0).
 */
export function groupAlive(pgid: number): boolean {
  if (!killGroup(pgid, 0)) return false;
  const states = procStates((stat) => stat.pgrp === pgid);
  return states === undefined ? true : states.some((state) => state !== 'Z' && state !== 'X');
}

/** True while `pid` is a live (non-zombie) process. */
export function pidAlive(pid: number): boolean {
  if (!killPid(pid, 0)) return false;
  try {
    const stat = parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return stat === undefined || (stat.state !== 'Z' && stat.state !== 'X');
  } catch {
    return !existsSync('/proc/self/stat'); // no /proc: trust kill(pid, 0)
  }
}

/** The process group of `pid` from /proc, or undefined when it cannot be read (gone, or no /proc). */
export function processGroupOf(pid: number): number | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.pgrp;
  } catch {
    return undefined;
  }
}

interface ProcStat {
  pid: number;
  state: string;
  pgrp: number;
}

function parseStat(text: string): ProcStat | undefined {
  // "pid (comm) state ppid pgrp ..." — comm may hold spaces and parentheses: split after the last ')'.
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text.slice(close + 2).split(' ');
  return { pid: Number.parseInt(text, 10), state: fields[0] ?? '', pgrp: Number(fields[2]) };
}

/** States of the processes matching `filter`, or undefined without a readable /proc. */
function procStates(filter: (stat: ProcStat) => boolean): string[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const states: string[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: ProcStat | undefined;
    try {
      stat = parseStat(readFileSync(`/proc/${entry}/stat`, 'utf8'));
    } catch {
      continue; // exited meanwhile
    }
    if (stat && filter(stat)) states.push(stat.state);
  }
  return states;
}

/**
 * Resolves once group `pgid` is empty, or false after `timeoutMs`. Polls (there is no OS event for
 * "group empty"); the poll only observes, it never orders anything.
 */
export function waitGroupGone(pgid: number, timeoutMs: number, pollMs = 20): Promise<boolean> {
  return waitUntilGone(() => groupAlive(pgid), timeoutMs, pollMs);
}

/** Resolves once `pid` is gone (or a zombie), or false after `timeoutMs`. Polls, like waitGroupGone. */
export function waitPidGone(pid: number, timeoutMs: number, pollMs = 20): Promise<boolean> {
  return waitUntilGone(() => pidAlive(pid), timeoutMs, pollMs);
}

async function waitUntilGone(alive: () => boolean, timeoutMs: number, pollMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return true;
}

/** Installs the exit/SIGINT/SIGTERM hooks (idempotent; launch() does it on first use). */
export function installCleanupHooks(): void {
  if (installed) return;
  installed = true;
  process.on('exit', killAllNow);
  const onSignal = (signal: NodeJS.Signals): void => {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    const reraise = (): void => {
      killAllNow();
      // Re-raise for the default action — unless someone else (e.g. vitest's own Ctrl-C handling)
      // listens: they got this very signal already and own the exit; a second one would read as a
      // double Ctrl-C. The 'exit' hook still covers anything started meanwhile.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    // Bounded: whatever happens, re-raise within 3 s.
    const timer = setTimeout(reraise, 3000);
    stopAll(1000).then(
      () => {
        clearTimeout(timer);
        reraise();
      },
      () => {
        clearTimeout(timer);
        reraise();
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
