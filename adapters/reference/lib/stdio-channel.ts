// The client's stdio binding: spawns the server (argv array, no shell) with `--config serverConfig`,
// waits for its readiness file under the startup watchdog (process startup is never charged to the
// discovery timeout), then exchanges one NDJSON line per request. The spawned process is always
// cleaned up: stdin closed, then SIGTERM, then SIGKILL, each after a grace period.

import type { AhpChannel, Received } from './channel.ts';
import { LineQueue } from './ndjson.ts';
import { SpawnedServer } from './spawned-server.ts';

export interface StdioServerSpec {
  command: string[];
  cwd: string;
  serverConfig: string;
  /** The server's readiness file (from its config), if known. */
  readinessFile: string | undefined;
  startupTimeoutMs: number;
}

export class StdioChannel implements AhpChannel {
  private readonly server: SpawnedServer;
  private readonly lines: LineQueue;
  /** Once set, the stream can no longer be trusted and every exchange fails with this label. */
  private broken: string | undefined;
  private closing: Promise<void> | undefined;

  private constructor(private readonly spec: StdioServerSpec) {
    this.server = new SpawnedServer({ command: spec.command, cwd: spec.cwd, serverConfig: spec.serverConfig, group: false });
    this.server.child.stdin!.on('error', () => {
      this.broken ??= 'transport: server stdin closed';
    });
    this.lines = new LineQueue(this.server.child.stdout!);
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
    const ready = await this.server.waitReady(this.spec.readinessFile, this.spec.startupTimeoutMs);
    return ready.ok ? undefined : ready.error;
  }

  discover(timeoutMs: number): Promise<Received> {
    return this.exchange({ jsonrpc: '2.0', id: 'capabilities-1', method: 'hooks/capabilities', params: { protocolVersion: 'draft' } }, timeoutMs);
  }

  async exchange(message: unknown, timeoutMs: number): Promise<Received> {
    if (this.broken) return { ok: false, error: this.broken };
    const stdin = this.server.child.stdin!;
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
    await this.server.stop();
  }

  /** Synchronous last resort for process exit paths: SIGKILL if still running. */
  killNow(): void {
    this.server.killNow();
  }
}
