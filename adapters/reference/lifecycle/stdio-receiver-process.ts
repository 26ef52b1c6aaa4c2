// The lifecycle client's stdio transport: it spawns the server (argv, no shell, `--config
// serverConfig` appended) in its own process group, writes `childPidFile` `{"pid":N}` at once, waits
// for the server's readiness file under the startup watchdog, and then talks NDJSON over the
// child's stdin/stdout (LIFECYCLE-RULES §4, §10).
//
// Reading is concurrent with everything else: every stdout frame is routed by its JSON-RPC id to
// the oldest still-pending request with that id (FIFO per id), so several requests may be
// outstanding at once. A frame no pending request is waiting for — a stale reply, an unknown id, an
// observer's unsolicited answer — is discarded without consuming anything and counted per id, which
// is the rendezvous an `emit` step waits on. A request whose reply does not come within its watchdog
// stops waiting; a later frame for it is then discarded as stale.
//
// Cleanup on every exit path: `POST /shutdown` (when the control endpoint is known), close stdin,
// wait, SIGTERM the group, wait, SIGKILL the group; `killNow` is the synchronous last resort.

import type { RequestId } from '../../../harness/lifecycle-adapters/scenario-types.ts';
import { isJsonObject, type JsonObject } from '../../../harness/protocol/json.ts';
import { writeJsonAtomicSync } from '../lib/atomic-write.ts';
import type { Received } from '../lib/channel.ts';
import type { Log } from '../lib/log.ts';
import { readLines } from '../lib/ndjson.ts';
import { SpawnedServer } from '../lib/spawned-server.ts';
import type { Delivery, EventTransport, StrayFrames } from './event-transport.ts';
import { idKey } from './request-id.ts';

export interface StdioReceiverSpec {
  command: string[];
  cwd: string;
  serverConfig: string;
  /** The server's readiness file (from its config). */
  readinessFile: string | undefined;
  /** Written with `{"pid":N}` right after the spawn. */
  childPidFile: string | undefined;
  startupMs: number;
  requestMs: number;
  log: Log;
}

export interface StdioReadiness {
  controlEndpoint: string;
  uploadEndpoint: string | undefined;
}

const SHUTDOWN_CALL_MS = 2_000;

export class StdioReceiverProcess implements EventTransport, StrayFrames {
  private readonly server: SpawnedServer;
  /** Pending requests by id key, oldest first. */
  private readonly pending = new Map<string, Array<(received: Received) => void>>();
  private readonly discarded = new Map<string, number>();
  private readonly discardWaiters = new Set<() => void>();
  private ended: string | undefined;
  private closing: Promise<void> | undefined;
  readonly strays: StrayFrames = this;

  private constructor(private readonly spec: StdioReceiverSpec) {
    this.server = new SpawnedServer({ command: spec.command, cwd: spec.cwd, serverConfig: spec.serverConfig, group: true });
    const { child } = this.server;
    child.stdin!.on('error', () => this.end('transport: server stdin closed'));
    readLines(child.stdout!, (event) => {
      if (event.kind === 'end') this.end('transport: server closed stdout');
      else if (event.kind === 'overflow') spec.log.error('discarded a stdout line over the size limit');
      else this.route(event.line);
    });
  }

  /** Spawns the server and registers its pid (synchronously, so every exit path can clean it up). */
  static spawn(spec: StdioReceiverSpec): StdioReceiverProcess {
    const receiver = new StdioReceiverProcess(spec);
    const pid = receiver.server.child.pid;
    if (spec.childPidFile !== undefined && pid !== undefined) writeJsonAtomicSync(spec.childPidFile, { pid });
    return receiver;
  }

  /** The control and upload endpoints from the server's fresh readiness file, or a failure label. */
  async waitReady(): Promise<{ ok: true; readiness: StdioReadiness } | { ok: false; error: string }> {
    if (this.spec.readinessFile === undefined) return { ok: false, error: 'spawn: the server config names no readinessFile' };
    const ready = await this.server.waitReady(this.spec.readinessFile, this.spec.startupMs);
    if (!ready.ok) return ready;
    const { controlEndpoint, uploadEndpoint } = ready.readiness;
    return { ok: true, readiness: { controlEndpoint: controlEndpoint as string, uploadEndpoint: typeof uploadEndpoint === 'string' ? uploadEndpoint : undefined } };
  }

  send(message: JsonObject): Promise<Received> {
    if (this.ended !== undefined) return Promise.resolve({ ok: false, error: this.ended });
    const key = idKey(message.id as RequestId);
    return new Promise<Received>((resolve) => {
      const queue = this.pending.get(key) ?? [];
      this.pending.set(key, queue);
      const settle = (received: Received): void => {
        clearTimeout(timer);
        resolve(received);
      };
      const timer = setTimeout(() => {
        const index = queue.indexOf(settle);
        if (index >= 0) queue.splice(index, 1);
        resolve({ ok: false, error: `transport: timeout after ${this.spec.requestMs} ms` });
      }, this.spec.requestMs);
      queue.push(settle);
      this.server.child.stdin!.write(`${JSON.stringify(message)}\n`);
    });
  }

  observe(message: JsonObject): Promise<Delivery> {
    if (this.ended !== undefined) return Promise.resolve({ ok: false, error: this.ended });
    return new Promise((resolve) => {
      this.server.child.stdin!.write(`${JSON.stringify(message)}\n`, (error) => resolve(error ? { ok: false, error: 'transport: server stdin closed' } : { ok: true }));
    });
  }

  count(id: RequestId): number {
    return this.discarded.get(idKey(id)) ?? 0;
  }

  waitBeyond(id: RequestId, seen: number, timeoutMs: number): Promise<boolean> {
    if (this.count(id) > seen) return Promise.resolve(true);
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.count(id) <= seen) return;
        finish(true);
      };
      const finish = (outcome: boolean): void => {
        clearTimeout(timer);
        this.discardWaiters.delete(check);
        resolve(outcome);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.discardWaiters.add(check);
    });
  }

  /** Shuts the server down via control (when known), then stops the process group. Idempotent. */
  close(control?: { shutdown(timeoutMs: number): Promise<void> }): Promise<void> {
    this.closing ??= (async () => {
      if (this.server.running && control !== undefined) await control.shutdown(SHUTDOWN_CALL_MS).catch(() => undefined);
      await this.server.stop();
      this.end('transport: channel closed');
    })();
    return this.closing;
  }

  /** Synchronous last resort for process exit paths: SIGKILL to the whole group, unless close() reaped it. */
  killNow(): void {
    this.server.killNow();
  }

  private route(line: string): void {
    if (line.trim() === '') return;
    let frame: unknown;
    try {
      frame = JSON.parse(line);
    } catch {
      this.spec.log.error('discarded a stdout line that is not JSON');
      return;
    }
    const id = isJsonObject(frame) && !('method' in frame) ? frame.id : undefined;
    const key = typeof id === 'string' || typeof id === 'number' ? idKey(id) : 'null';
    const waiter = this.pending.get(key)?.shift();
    if (waiter !== undefined) return waiter({ ok: true, message: frame });
    this.spec.log.info(`discarded a stdout frame with id ${key.slice(0, 120)}: no request is waiting for it`);
    this.discarded.set(key, (this.discarded.get(key) ?? 0) + 1);
    for (const check of [...this.discardWaiters]) check();
  }

  private end(reason: string): void {
    if (this.ended !== undefined) return;
    this.ended = reason;
    for (const queue of this.pending.values()) for (const settle of queue.splice(0)) settle({ ok: false, error: reason });
  }
}
