// A stdio server a client spawns itself (argv, no shell, `--config serverConfig` appended, stderr
// passed through): knowing when it is ready — its readiness file, written after the spawn, under the
// startup watchdog, so process startup is never charged to a request — and stopping it on every exit
// path: stdin closed, then SIGTERM, then SIGKILL, each after a grace period. A server spawned in its
// own process group (`group: true`) is signalled as a group, and the group gets a final SIGKILL
// even after its leader exited, so no descendant outlives the client.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';

const CLEANUP_GRACE_MS = 1_500;
const READINESS_POLL_MS = 20;

export interface SpawnSpec {
  command: string[];
  cwd: string;
  serverConfig: string;
  /** Spawn it as the leader of its own process group, and signal the group. */
  group: boolean;
}

export type Readiness = Record<string, unknown>;

export class SpawnedServer {
  readonly child: ChildProcess;
  private readonly exited: Promise<void>;
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private spawnError: string | undefined;
  private readonly spawnedAt = Date.now();
  private stopping: Promise<void> | undefined;
  private reaped = false;

  /** Spawns synchronously, so a caller can always clean up what it started. */
  constructor(private readonly spec: SpawnSpec) {
    const [file, ...args] = spec.command;
    this.child = spawn(file!, [...args, '--config', spec.serverConfig], {
      cwd: spec.cwd,
      stdio: ['pipe', 'pipe', 'inherit'],
      shell: false,
      detached: spec.group,
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve();
      });
      this.child.once('error', (error: NodeJS.ErrnoException) => {
        this.spawnError = error.code ?? 'error';
        // 'exit' does not follow a failed spawn.
        if (this.child.pid === undefined) resolve();
      });
    });
  }

  get running(): boolean {
    return this.child.pid !== undefined && this.exitInfo === undefined;
  }

  /**
   * The readiness file's object once it exists, was written after the spawn and names a control
   * endpoint and pid; `{}` when no file is known and the process started. A fixed label otherwise.
   */
  async waitReady(readinessFile: string | undefined, startupMs: number): Promise<{ ok: true; readiness: Readiness } | { ok: false; error: string }> {
    const deadline = this.spawnedAt + startupMs;
    let done = false;
    const exited = this.exited.then(() => {
      done = true;
    });
    await Promise.race([new Promise<void>((resolve) => this.child.once('spawn', () => resolve())), exited]);
    if (this.spawnError !== undefined && this.child.pid === undefined) return { ok: false, error: `spawn: server command failed to start (${this.spawnError})` };
    if (readinessFile === undefined) return { ok: true, readiness: {} };
    while (!done && Date.now() < deadline) {
      const readiness = await readFreshReadiness(readinessFile, this.spawnedAt);
      if (readiness !== undefined) return { ok: true, readiness };
      await Promise.race([new Promise((resolve) => setTimeout(resolve, READINESS_POLL_MS)), exited]);
    }
    if (this.exitInfo) return { ok: false, error: `spawn: server exited before it was ready (${this.exitInfo.signal ?? `code ${this.exitInfo.code}`})` };
    return { ok: false, error: `spawn: server not ready within ${startupMs} ms` };
  }

  /** stdin closed, then SIGTERM, then SIGKILL, waiting a grace period after each. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.child.pid === undefined) return;
      this.child.stdin?.end();
      let exited = await this.waitExit(CLEANUP_GRACE_MS);
      if (!exited) {
        this.signal('SIGTERM');
        exited = await this.waitExit(CLEANUP_GRACE_MS);
      }
      if (!exited || this.spec.group) this.signal('SIGKILL');
      if (!exited) await this.waitExit(CLEANUP_GRACE_MS);
      this.reaped = true;
    })();
    return this.stopping;
  }

  /** Synchronous last resort for process exit paths: SIGKILL, unless stop() already reaped it. */
  killNow(): void {
    if (this.reaped || (!this.spec.group && this.exitInfo)) return;
    this.signal('SIGKILL');
  }

  private waitExit(ms: number): Promise<boolean> {
    if (this.exitInfo) return Promise.resolve(true);
    return Promise.race([this.exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref())]);
  }

  /** Sends `signal` to the child (or its whole group); a process already gone is not an error. */
  private signal(signal: NodeJS.Signals): void {
    if (this.child.pid === undefined) return;
    try {
      if (this.spec.group) process.kill(-this.child.pid, signal);
      else this.child.kill(signal);
    } catch {
      // ESRCH: already gone
    }
  }
}

/** The readiness object when the file exists, was written after the spawn and has a control endpoint and pid. */
async function readFreshReadiness(file: string, spawnedAt: number): Promise<Readiness | undefined> {
  try {
    const info = await stat(file);
    if (info.mtimeMs < spawnedAt - 5) return undefined;
    const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const readiness = parsed as Readiness;
    return typeof readiness.controlEndpoint === 'string' && typeof readiness.pid === 'number' ? readiness : undefined;
  } catch {
    return undefined;
  }
}
