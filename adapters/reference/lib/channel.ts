// What the client needs from a transport: discovery, one request/response exchange at a time, and
// cleanup. Failures are fixed short labels (no bodies, endpoints, ports or paths).

export type Received = { ok: true; message: unknown } | { ok: false; error: string };

export interface AhpChannel {
  /** Sends the discovery request (or GET) and returns the parsed reply, under `timeoutMs`. */
  discover(timeoutMs: number): Promise<Received>;
  /** Sends `request` unchanged and returns the parsed reply, under `timeoutMs`. */
  exchange(request: unknown, timeoutMs: number): Promise<Received>;
  /** Releases every resource; for stdio, stops the spawned server. Idempotent. */
  close(): Promise<void>;
}
