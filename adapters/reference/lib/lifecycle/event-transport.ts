// How the lifecycle client reaches the receiver's event side, whatever the transport: send an
// intercept without awaiting its reply (the returned promise is the reply's slot), deliver an
// observation, and — stdio only — learn that a stray frame was read and discarded.

import type { JsonObject } from '../../../../harness/protocol/json.ts';
import type { RequestId } from '../../../../harness/lifecycle/scenario-types.ts';
import type { Received } from '../channel.ts';
import type { HttpChannel } from '../http-channel.ts';

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
