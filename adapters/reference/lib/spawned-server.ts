// What every client that spawns its own stdio server needs besides the protocol: knowing when the
// server is ready (its readiness file, written after the spawn) and stopping it on every exit path
// — stdin closed, then SIGTERM, then SIGKILL, each after a grace period. A server spawned in its own
// process group (`group: true`) is signalled as a group, and the group gets a final SIGKILL even
// after its leader exited, so no descendant outlives the client.

import type { ChildProcess } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';

export const CLEANUP_GRACE_MS = 1_500;
export const READINESS_POLL_MS = 20;

/** The readiness object when the file exists, was written after the spawn and has a control endpoint and pid. */
export async function readFreshReadiness(file: string, spawnedAt: number): Promise<Record<string, unknown> | undefined> {
  try {
    const info = await stat(file);
    if (info.mtimeMs < spawnedAt - 5) return undefined;
    const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const readiness = parsed as Record<string, unknown>;
    return typeof readiness.controlEndpoint === 'string' && typeof readiness.pid === 'number' ? readiness : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Stops `child`: closes its stdin, then SIGTERM, then SIGKILL, waiting `graceMs` after each.
 * `waitExit(ms)` resolves true once the child has exited (false when `ms` passed first).
 */
export async function stopChild(
  child: ChildProcess,
  waitExit: (ms: number) => Promise<boolean>,
  options: { group: boolean; graceMs?: number },
): Promise<void> {
  const grace = options.graceMs ?? CLEANUP_GRACE_MS;
  if (child.pid === undefined) return;
  child.stdin?.end();
  let exited = await waitExit(grace);
  if (!exited) {
    signalChild(child, 'SIGTERM', options.group);
    exited = await waitExit(grace);
  }
  if (!exited || options.group) signalChild(child, 'SIGKILL', options.group);
  if (!exited) await waitExit(grace);
}

/** Sends `signal` to the child (or its whole group); a process already gone is not an error. */
export function signalChild(child: ChildProcess, signal: NodeJS.Signals, group: boolean): void {
  if (child.pid === undefined) return;
  try {
    if (group) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // ESRCH: already gone
  }
}
