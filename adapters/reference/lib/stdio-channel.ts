// The client's stdio binding: spawns the server (argv array, no shell) with `--config serverConfig`,
// waits for its readiness file under the startup watchdog (process startup is never charged to the
// discovery timeout), then exchanges one NDJSON line per request. The spawned process is always
// cleaned up: stdin closed, then SIGTERM, then SIGKILL, each after a grace period.

import { spawn, type ChildProcess } from 'node:child_process';

import type { AhpChannel, Received } from './channel.ts';
import { LineQueue } from './ndjson.ts';
import { CLEANUP_GRACE_MS, READINESS_POLL_MS, readFreshReadiness, signalChild, stopChild } from './spawned-server.ts';

export interface StdioServerSpec {
  command: string[];
  cwd: string;
  serverConfig: string;
  /** The server's readiness file (from its config), if known. */
  readinessFile: string | undefined;
  startupTimeoutMs: number;
}

export class StdioChannel implements AhpChannel {
  private readonly child: ChildProcess;
  private readonly lines: LineQueue;
  private readonly exited: Promise<void>;
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private spawnError: string | undefined;
  /** Once set, the stream can no longer be trusted and every exchange fails with this label. */
  private broken: string | undefined;
  private closing: Promise<void> | undefined;
  private readonly spawnedAt = Date.now();

  private constructor(private readonly spec: StdioServerSpec) {
    const [file, ...args] = spec.command;
    this.child = spawn(file!, [...args, '--config', spec.serverConfig], {
      cwd: spec.cwd,
      stdio: ['pipe', 'pipe', 'inherit'],
      shell: false,
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
    this.child.stdin!.on('error', () => {
      this.broken ??= 'transport: server stdin closed';
    });
    this.lines = new LineQueue(this.child.stdout!);
  }

  /** Spawns the server process (synchronously, so callers can always clean it up). */
  static spawn(spec: StdioServerSpec): StdioChannel {
    return new StdioChannel(spec);
  }

  /**
   * Resolves once the server is ready: its readiness file (written after the spawn) exists, or, when
   * the config names none, the process has started. Returns a fixed failure label otherwise.
   */
  async waitReady(): Promise<string | undefined> {
    const { spec, spawnedAt } = this;
    const deadline = spawnedAt + spec.startupTimeoutMs;
    let done = false;
    const exited = this.exited.then(() => {
      done = true;
    });
    const spawned = new Promise<void>((resolve) => this.child.once('spawn', () => resolve()));
    await Promise.race([spawned, exited]);
    if (this.spawnError && this.child.pid === undefined) return `spawn: server command failed to start (${this.spawnError})`;
    if (!spec.readinessFile) return undefined;

    while (!done && Date.now() < deadline) {
      if ((await readFreshReadiness(spec.readinessFile, spawnedAt)) !== undefined) return undefined;
      await Promise.race([new Promise((resolve) => setTimeout(resolve, READINESS_POLL_MS)), exited]);
    }
    if (this.exitInfo) {
      return `spawn: server exited before it was ready (${this.exitInfo.signal ?? `code ${this.exitInfo.code}`})`;
    }
    return `spawn: server not ready within ${spec.startupTimeoutMs} ms`;
  }

  discover(timeoutMs: number): Promise<Received> {
    return this.exchange({ jsonrpc: '2.0', id: 'capabilities-1', method: 'hooks/capabilities', params: { protocolVersion: 'draft' } }, timeoutMs);
  }

  async exchange(message: unknown, timeoutMs: number): Promise<Received> {
    if (this.broken) return { ok: false, error: this.broken };
    const stdin = this.child.stdin!;
    if (stdin.destroyed || !stdin.writable) return { ok: false, error: (this.broken = 'transport: server stdin closed') };
    stdin.write(`${JSON.stringify(message)}\n`);
    const next = await this.lines.next(timeoutMs);
    switch (next.kind) {
      case 'timeout':
        // A late reply would be read as the next row's: nothing after this can be trusted.
        this.broken = 'transport: stdio stream unusable after an earlier timeout';
        return { ok: false, error: `transport: timeout after ${timeoutMs} ms` };
      case 'end':
        this.broken = 'transport: server closed stdout';
        return { ok: false, error: this.broken };
      case 'overflow':
        return { ok: false, error: 'transport: response line exceeds the size limit' };
      case 'line':
        try {
          return { ok: true, message: JSON.parse(next.line) };
        } catch {
          return { ok: false, error: 'transport: malformed JSON line' };
        }
    }
  }

  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    this.broken ??= 'transport: channel closed';
    if (this.child.pid === undefined) return;
    const waitExit = (ms: number): Promise<boolean> =>
      this.exitInfo
        ? Promise.resolve(true)
        : Promise.race([this.exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref())]);
    await stopChild(this.child, waitExit, { group: false, graceMs: CLEANUP_GRACE_MS });
  }

  /** Synchronous last resort for process exit paths: SIGKILL if still running. */
  killNow(): void {
    if (!this.exitInfo) signalChild(this.child, 'SIGKILL', false);
  }
}
