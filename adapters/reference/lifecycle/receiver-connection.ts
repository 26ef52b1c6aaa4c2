// How a lifecycle-family client reaches its receiver, whatever the suite: over HTTP an event channel
// with the mode's credentials (the runner started the receiver and it is never shut down from here)
// plus its control endpoint; over stdio the receiver this client spawns in its own process group
// (LIFECYCLE-RULES §4, §10), whose readiness names the control and upload endpoints. Closing is the
// same on every exit path: stdio /shutdown, close stdin, wait, SIGTERM, SIGKILL the group; HTTP only
// our own connections.

import type { ClientAuth } from '../auth.ts';
import { readinessFileOf } from '../lib/config.ts';
import type { HttpChannel } from '../lib/http-channel.ts';
import type { Log } from '../lib/log.ts';
import type { LifecycleClientConfig } from './config.ts';
import { ReceiverControl } from './receiver-control.ts';
import { StdioReceiverProcess } from './stdio-receiver-process.ts';

export type EventLink = { transport: 'http'; channel: HttpChannel } | { transport: 'stdio'; child: StdioReceiverProcess };

export type Connected = { ok: true; link: EventLink; control: ReceiverControl; uploadEndpoint: string | undefined } | { ok: false; error: string };

export class ReceiverConnection {
  private channel: HttpChannel | undefined;
  private child: StdioReceiverProcess | undefined;
  private childControl: ReceiverControl | undefined;

  constructor(
    private readonly config: LifecycleClientConfig,
    private readonly auth: ClientAuth,
    private readonly log: Log,
  ) {}

  /** Whether the receiver is this client's own child (stdio), whose receipts the report forwards. */
  get spawned(): boolean {
    return this.child !== undefined;
  }

  async open(): Promise<Connected> {
    const { config } = this;
    const { watchdogs } = config;
    if (config.transport === 'http') {
      // Loaded on demand: undici is the most expensive import and stdio runs never need it for events.
      const [{ HttpChannel }, { ClientCredentials }] = await Promise.all([import('../lib/http-channel.ts'), import('../lib/client-credentials.ts')]);
      this.channel = new HttpChannel(config.endpoint!, new ClientCredentials(this.auth));
      return { ok: true, link: { transport: 'http', channel: this.channel }, control: new ReceiverControl(config.controlEndpoint!, watchdogs.controlMs), uploadEndpoint: undefined };
    }
    // Registered before the readiness wait, so that every exit path can reap it.
    this.child = StdioReceiverProcess.spawn({
      command: config.serverCommand!,
      cwd: config.serverCwd!,
      serverConfig: config.serverConfig!,
      readinessFile: readinessFileOf(config.serverConfig!),
      childPidFile: config.childPidFile,
      startupMs: watchdogs.startupMs,
      requestMs: watchdogs.requestMs,
      log: this.log,
    });
    const ready = await this.child.waitReady();
    if (!ready.ok) return ready;
    this.childControl = new ReceiverControl(ready.readiness.controlEndpoint, watchdogs.controlMs);
    return { ok: true, link: { transport: 'stdio', child: this.child }, control: this.childControl, uploadEndpoint: ready.readiness.uploadEndpoint };
  }

  /** stdio: /shutdown, close stdin, wait, SIGTERM, SIGKILL the child's group. HTTP: only our own connections. Idempotent. */
  async close(): Promise<void> {
    if (this.child !== undefined) await this.child.close(this.childControl);
    else await this.channel?.close();
  }

  /** Synchronous last resort for process exit paths. */
  killNow(): void {
    this.child?.killNow();
  }
}
