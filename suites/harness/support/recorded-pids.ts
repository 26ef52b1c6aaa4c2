// The processes the broken-* fixtures record (fixtures/broken-common/selftest.mjs writes
// `<pidDir>/<pid>` containing the role when AHP_SELFTEST_PID_DIR is set): reading them, waiting for
// roles to appear, checking they are gone, and killing what is left.

import { readdirSync, readFileSync, watch } from 'node:fs';
import path from 'node:path';

/** pid → role, as recorded by the broken-* fixtures (`<pidDir>/<pid>` containing the role). */
export function recordedPids(pidDir: string): Map<number, string> {
  const pids = new Map<number, string>();
  for (const entry of readdirSync(pidDir)) {
    if (!/^\d+$/.test(entry)) continue; // skip `*.tmp` files of an atomic write in progress
    pids.set(Number(entry), readFileSync(path.join(pidDir, entry), 'utf8').trim());
  }
  return pids;
}

/** True when `pid` no longer exists: kill(pid, 0) throws ESRCH. */
export function pidGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Waits (bounded) until every pid is gone; returns the survivors as `pid (role)`. A zombie still
 * answers kill(pid, 0), and init reaps reparented zombies within about a second here, so the bound
 * leaves room for that. Polls: there is no OS event for "this pid is gone"; the poll only observes.
 */
export async function survivorsAfter(pids: Map<number, string>, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let alive = [...pids.keys()].filter((pid) => !pidGone(pid));
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    alive = alive.filter((pid) => !pidGone(pid));
  }
  return alive.map((pid) => `${pid} (${pids.get(pid)})`);
}

/** SIGKILLs the given recorded pids (only ever processes this test started, through the fixtures). */
export function killRecorded(pids: Iterable<number>): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Waits (bounded) until the pid dir holds every role in `roles`; resolves with the recorded map. */
export function waitForRoles(pidDir: string, roles: string[], timeoutMs: number): Promise<Map<number, string>> {
  return new Promise((resolve, reject) => {
    let done = false;
    const check = (): void => {
      if (done) return;
      const pids = recordedPids(pidDir);
      const seen = new Set(pids.values());
      if (roles.every((role) => seen.has(role))) finish(undefined, pids);
    };
    const finish = (error: Error | undefined, pids?: Map<number, string>): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(poll);
      watcher.close();
      if (error) reject(error);
      else resolve(pids!);
    };
    const timer = setTimeout(() => {
      const seen = [...recordedPids(pidDir).values()];
      finish(new Error(`within ${timeoutMs} ms only these roles recorded a pid: ${seen.join(', ') || 'none'}; waiting for ${roles.join(', ')}`));
    }, timeoutMs);
    const watcher = watch(pidDir, check);
    watcher.on('error', () => undefined);
    const poll = setInterval(check, 100); // fs.watch can miss events on some filesystems
    check();
  });
}
