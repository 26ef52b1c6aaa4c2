// How the lifecycle client reaches the receiver's event side, whatever the transport: send an
// intercept without awaiting its reply (the returned promise is the reply's slot), deliver an
// observation, and — stdio only — learn that a stray frame was read and discarded.

import type { JsonObject } from '../../../harness/protocol/json.ts';
import type { RequestId } from '../../../harness/lifecycle-adapters/scenario-types.ts';
import type { Received } from '../lib/channel.ts';
import type { HttpChannel } from '../lib/http-channel.ts';
import { semanticRefusal } from '../lib/strict-wire.ts';
import { RowFailure } from './row-failure.ts';

export type Delivery = { ok: true } | { ok: false; error: string };

export interface EventTransport {
  /** Transmits `message` now; the promise settles with its reply or a failure label (never rejects). */
  send(message: JsonObject): Promise<Received>;
  /** Delivers a hooks/observe notification; whatever an observer answers is ignored. */
  observe(message: JsonObject): Promise<Delivery>;
  /** stdio: frames the reader discarded for lack of a pending request, per id. */
  readonly strays?: StrayFrames;
  /** Releases every resource (stdio: stops the spawned server). Idempotent. */
  close(): Promise<void>;
}

export interface StrayFrames {
  /** How many frames with `id` were discarded so far. */
  count(id: RequestId): number;
  /** Resolves true once more than `seen` frames with `id` were discarded; false after `timeoutMs`. */
  waitBeyond(id: RequestId, seen: number, timeoutMs: number): Promise<boolean>;
}

/** HTTP: each intercept is its own POST /intercept (held by the receiver until released). */
export class HttpEvents implements EventTransport {
  constructor(
    private readonly channel: HttpChannel,
    private readonly requestMs: number,
    private readonly observeMs: number,
  ) {}

  send(message: JsonObject): Promise<Received> {
    return this.channel.exchange(message, this.requestMs);
  }

  observe(message: JsonObject): Promise<Delivery> {
    return this.channel.notify(message, this.observeMs);
  }

  close(): Promise<void> {
    return this.channel.close();
  }
}

/**
 * The strict client (strict-wire.ts): every intercept and observation passes the spec's per-message
 * MUSTs before it leaves. One that breaks one is never transmitted: `send`/`observe` throw a
 * RowFailure naming the rule at once, so the row fails at the step that would have sent it.
 */
export class StrictEvents implements EventTransport {
  constructor(private readonly inner: EventTransport) {}

  get strays(): StrayFrames | undefined {
    return this.inner.strays;
  }

  send(message: JsonObject): Promise<Received> {
    refuseBroken(message, 'intercept');
    return this.inner.send(message);
  }

  observe(message: JsonObject): Promise<Delivery> {
    refuseBroken(message, 'observe');
    return this.inner.observe(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

function refuseBroken(message: JsonObject, kind: 'intercept' | 'observe'): void {
  const refusal = semanticRefusal(message, kind);
  if (refusal !== undefined) throw new RowFailure(`refusing to send a ${kind === 'intercept' ? 'request' : 'notification'} that breaks the spec (not sent): ${refusal}`);
}
