// A test worker's side of the server broker (server-broker.ts): JSON over loopback with the run's
// token. Calls are bounded: a lease may wait for a server to start and for a busy instance, so its
// bound is the caller's (startup watchdog plus the time other runs may hold the instances).

import { Agent, request } from 'undici';

import type { AuthMode } from '../config/define-config.ts';
import type { BrokerAddress, LeaseAnswer, TrustAnswer } from './server-broker.ts';

const agent = new Agent({ keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000 });

export class BrokerClient {
  constructor(
    private readonly address: BrokerAddress,
    private readonly timeoutMs: number,
  ) {}

  trust(mode: AuthMode): Promise<TrustAnswer> {
    return this.call('/trust', { mode }) as Promise<TrustAnswer>;
  }

  lease(adapter: string, mode: AuthMode, scenarioFile?: string): Promise<LeaseAnswer> {
    return this.call('/lease', { adapter, mode, ...(scenarioFile === undefined ? {} : { scenarioFile }) }) as Promise<LeaseAnswer>;
  }

  async release(lease: string): Promise<void> {
    await this.call('/release', { lease });
  }

  private async call(route: string, body: unknown): Promise<unknown> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    const response = await request(new URL(route, this.address.url), {
      method: 'POST',
      dispatcher: agent,
      signal,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      headers: { authorization: `Bearer ${this.address.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`server broker ${route}: HTTP ${response.statusCode}: ${text.slice(0, 200)}`);
    return JSON.parse(text) as unknown;
  }
}
