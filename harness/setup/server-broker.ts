// The run's server broker, living in the globalSetup (main) process: HTTP server adapters and the
// synthetic trust are created lazily, when the first client run that needs them asks, and kept for
// the rest of the run and across watch-mode reruns. So a `-t` selection of one group starts one
// server and builds one mode's trust, and a shard starts only what its groups need.
//
// A client run *leases* a server instance: exclusive use while it runs, so receipts (after − before)
// stay attributable without a lock, and concurrent runs of the same (adapter, mode) get instances of
// their own (at most `maxInstances` per key; more leases wait for a release). A server that cannot
// start is remembered with its failure (every later lease gets it at once, instead of waiting out the
// startup watchdog again) until the next watch-mode rerun retries it.
//
// Test workers reach the broker over a loopback HTTP endpoint with a per-run token
// (broker-client.ts); every answer is plain JSON.

import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

import { ensureAlive, ServerStartError, startHttpServer, stopHttpServer } from '../adapters/http-server-pool.ts';
import type { LoadedAdapter, ServerHandle } from '../adapters/types.ts';
import type { ClientAuthSettings, ServerAuthSettings } from '../auth/auth-settings.ts';
import { proxyTlsFiles } from '../auth/proxy-tls.ts';
import type { RunTrust } from '../auth/run-trust.ts';
import { AUTH_MODES, type AuthMode } from '../config/define-config.ts';
import { readBody, sendJson } from '../http/json-body.ts';
import { probeTrustOf, type ProbeTrust } from '../auth/probe-trust.ts';
import type { ProxyTlsFiles } from '../runs/client-run.ts';
import { safeLabel } from '../adapters/file-name-part.ts';
import type { ProvidedServer, RunFailure } from '../runs/types.ts';

export interface BrokerAddress {
  url: string;
  token: string;
}

export interface TrustAnswer {
  server: ServerAuthSettings;
  client: ClientAuthSettings;
  /** The PKI files the HTTP proxy needs in mtls runs; null before the mtls trust exists. */
  proxyTls: ProxyTlsFiles | null;
  /** Endpoints and file paths of the trust built so far, for the auth probes (no secret values). */
  probe: ProbeTrust;
}

export interface LeaseAnswer {
  /** Hand back with release(); absent when the server could not start (nothing to release). */
  lease?: string;
  server: ProvidedServer;
}

export interface ServerBrokerOptions {
  adapters: Map<string, LoadedAdapter>;
  trust: RunTrust;
  /** Absolute scenario file the servers answer from. */
  scenarioFile: string;
  schemaDir: string;
  /** Parent of the servers' temp dirs. */
  runDir: string;
  /** Where the log of a server that could not start is kept. */
  logDir: string;
  startupMs: number;
  /** Server instances per (adapter, mode) at most. */
  maxInstances: number;
}

interface Instance {
  handle: ServerHandle;
  busy: boolean;
}

export class ServerBroker {
  private readonly instances = new Map<string, Instance[]>();
  private readonly starting = new Map<string, number>();
  private readonly failures = new Map<string, RunFailure>();
  private readonly waiters = new Map<string, Array<() => void>>();
  private readonly leases = new Map<string, { key: string; instance: Instance; own: boolean }>();
  /** Keys whose server a prewarm is starting right now: a lease waits for it instead of starting another. */
  private readonly warming = new Map<string, Promise<unknown>>();
  private http: Server | undefined;
  private stopped = false;

  constructor(private readonly options: ServerBrokerOptions) {}

  /** The auth settings of `mode`, building its trust on first use. */
  async trust(mode: AuthMode): Promise<TrustAnswer> {
    await this.options.trust.ensure(mode);
    const pki = this.options.trust.pki;
    return { server: this.options.trust.server(mode), client: this.options.trust.client(mode), proxyTls: pki ? proxyTlsFiles(pki) : null, probe: probeTrustOf(this.options.trust) };
  }

  /**
   * An instance of `adapter`'s HTTP server in `mode` for one client run's exclusive use. With
   * `scenarioFile` (blind mode: a file renamed for that run) the instance is the run's own: started
   * for it and stopped on release, never shared.
   */
  async lease(adapterName: string, mode: AuthMode, scenarioFile?: string): Promise<LeaseAnswer> {
    const adapter = this.options.adapters.get(adapterName);
    if (!adapter) throw new Error(`server broker: no configured adapter "${adapterName}"`);
    const key = `${adapterName}/${mode}`;
    if (scenarioFile !== undefined) {
      const started = await this.start(adapter, mode, key, scenarioFile);
      if ('error' in started) return { server: { error: started.error } };
      return this.grant(key, started.instance, true);
    }
    for (;;) {
      if (this.stopped) throw new Error('server broker: the run is over');
      const failure = this.failures.get(key);
      if (failure) return { server: { error: failure } };
      const list = this.instances.get(key) ?? [];
      const free = list.find((instance) => !instance.busy);
      if (free) return this.grant(key, free);
      const warming = this.warming.get(key);
      if (warming) {
        await warming;
        continue;
      }
      if (list.length + (this.starting.get(key) ?? 0) < this.options.maxInstances) {
        const started = await this.start(adapter, mode, key);
        if ('error' in started) return { server: { error: started.error } };
        return this.grant(key, started.instance);
      }
      await new Promise<void>((resolve) => this.waiters.set(key, [...(this.waiters.get(key) ?? []), resolve]));
    }
  }

  async release(leaseId: string): Promise<void> {
    const lease = this.leases.get(leaseId);
    if (!lease) return;
    this.leases.delete(leaseId);
    if (lease.own) {
      await stopHttpServer(lease.instance.handle);
      return;
    }
    lease.instance.busy = false;
    this.waiters.get(lease.key)?.shift()?.();
  }

  /**
   * Watch mode, before a rerun: an idle server that died or turned unhealthy is started again, and a
   * remembered startup failure gets another try on the next lease. Never throws.
   */
  async restartDead(): Promise<void> {
    this.failures.clear();
    await Promise.all(
      [...this.instances.entries()].flatMap(([key, list]) =>
        list.filter((instance) => !instance.busy).map(async (instance) => {
          try {
            instance.handle = await ensureAlive(instance.handle);
          } catch {
            this.instances.set(key, (this.instances.get(key) ?? []).filter((other) => other !== instance));
          }
        }),
      ),
    );
  }

  /**
   * Starts one instance of each server in `servers`, one after another in the given order, in the
   * background (selection-forecast.ts: what the selection will lease, while vitest still boots). A key
   * that already has an instance, or is starting one for a lease, is skipped; a start failure is
   * remembered for the leases as usual. Never throws.
   */
  prewarm(servers: ReadonlyArray<{ adapter: LoadedAdapter; auth: AuthMode }>): Promise<void> {
    let chain: Promise<void> = Promise.resolve();
    for (const { adapter, auth } of servers) {
      const key = `${adapter.name}/${auth}`;
      chain = chain.then(async () => {
        if (this.stopped || (this.instances.get(key)?.length ?? 0) > 0 || (this.starting.get(key) ?? 0) > 0 || this.failures.has(key)) return;
        const started = this.start(adapter, auth, key);
        this.warming.set(key, started);
        try {
          await started;
        } finally {
          this.warming.delete(key);
        }
      });
    }
    return chain.catch(() => undefined);
  }

  /** Stops every server of `adapterName` (watch mode: its files changed); the next lease starts fresh ones. */
  async restartAdapter(adapterName: string): Promise<void> {
    const stops: Array<Promise<unknown>> = [];
    for (const mode of AUTH_MODES) {
      const key = `${adapterName}/${mode}`;
      this.failures.delete(key);
      const list = this.instances.get(key) ?? [];
      this.instances.set(key, list.filter((instance) => instance.busy));
      stops.push(...list.filter((instance) => !instance.busy).map((instance) => stopHttpServer(instance.handle)));
    }
    await Promise.all(stops);
  }

  /** Server instances of `key` (`<adapter>/<mode>`) running now (tests, diagnostics). */
  instanceCount(key: string): number {
    return this.instances.get(key)?.length ?? 0;
  }

  /** Keys with at least one server started so far (tests, diagnostics). */
  startedKeys(): string[] {
    return [...this.instances.entries()].filter(([, list]) => list.length > 0).map(([key]) => key);
  }

  async listen(): Promise<BrokerAddress> {
    const token = randomBytes(18).toString('base64url');
    this.http = createServer((request, response) => {
      void this.handle(request, response, token).catch((error: unknown) => sendJson(response, 500, { error: (error as Error).message }));
    });
    // Workers keep their connections to the broker pooled across runs; a long idle timeout makes the
    // server closing one just as a request goes out on it rare (boundedRequest resends that request).
    this.http.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve) => this.http!.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`, token };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const resolve of [...this.waiters.values()].flat()) resolve();
    this.waiters.clear();
    this.http?.closeAllConnections();
    await new Promise<void>((resolve) => (this.http ? this.http.close(() => resolve()) : resolve()));
    await Promise.all([...this.instances.values()].flat().map((instance) => stopHttpServer(instance.handle)));
    this.instances.clear();
  }

  private grant(key: string, instance: Instance, own = false): LeaseAnswer {
    instance.busy = true;
    const lease = randomBytes(9).toString('base64url');
    this.leases.set(lease, { key, instance, own });
    return { lease, server: { handle: instance.handle } };
  }

  private async start(adapter: LoadedAdapter, mode: AuthMode, key: string, ownScenarioFile?: string): Promise<{ instance: Instance } | { error: RunFailure }> {
    this.starting.set(key, (this.starting.get(key) ?? 0) + 1);
    try {
      const trust = await this.trust(mode);
      const handle = await startHttpServer({
        adapter,
        auth: mode,
        authSettings: { ...trust.server },
        scenarioFile: ownScenarioFile ?? this.options.scenarioFile,
        schemaDir: this.options.schemaDir,
        workDir: this.options.runDir,
        startupMs: this.options.startupMs,
      });
      if (this.stopped) {
        await stopHttpServer(handle);
        throw new Error('server broker: the run is over');
      }
      const instance: Instance = { handle, busy: false };
      if (ownScenarioFile === undefined) this.instances.set(key, [...(this.instances.get(key) ?? []), instance]);
      return { instance };
    } catch (error) {
      const failure = startFailure(error, path.join(this.options.logDir, 'servers', safeLabel(key)));
      // A startup failure is the adapter's verdict for this run; a later lease gets it at once.
      if (error instanceof ServerStartError && ownScenarioFile === undefined) this.failures.set(key, failure);
      return { error: failure };
    } finally {
      this.starting.set(key, (this.starting.get(key) ?? 1) - 1);
    }
  }

  private async handle(request: IncomingMessage, response: ServerResponse, token: string): Promise<void> {
    if (request.headers.authorization !== `Bearer ${token}` || request.method !== 'POST') {
      request.resume();
      return sendJson(response, 403, { error: 'forbidden' });
    }
    const body = await readBody(request);
    if (!body.ok) return sendJson(response, body.status, { error: 'unreadable body' });
    const input = JSON.parse(body.text) as { mode?: AuthMode; adapter?: string; lease?: string; scenarioFile?: string };
    const route = new URL(request.url ?? '/', 'http://broker').pathname;
    if (route === '/trust') return sendJson(response, 200, await this.trust(input.mode!));
    if (route === '/lease') return sendJson(response, 200, await this.lease(input.adapter!, input.mode!, input.scenarioFile));
    if (route === '/release') {
      await this.release(input.lease!);
      return sendJson(response, 200, { ok: true });
    }
    return sendJson(response, 404, { error: 'not found' });
  }
}

/** A start error as a fixed-label RunFailure; the server log is kept under `keepDir` and named instead. */
export function startFailure(error: unknown, keepDir: string): RunFailure {
  if (error instanceof ServerStartError) {
    let message = error.message;
    if (existsSync(error.logFile)) {
      mkdirSync(keepDir, { recursive: true });
      const kept = path.join(keepDir, 'server.log');
      cpSync(error.logFile, kept);
      message = message.split(error.logFile).join(kept);
    }
    return { stage: error.stage, kind: error.kind, message, party: 'server' };
  }
  return { stage: 'startup', kind: 'error', message: `startup: ${(error as Error).message}`, party: 'harness' };
}
