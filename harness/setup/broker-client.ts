// A test worker's side of the server broker (server-broker.ts): JSON over loopback with the run's
// token. Calls are bounded: a lease may wait for a server to start and for a busy instance, so its
// bound is the caller's (startup watchdog plus the time other runs may hold the instances).

import type { AuthMode } from '../config/define-config.ts';
import { boundedRequest, keepAliveAgent, RequestFailure } from '../http/bounded-request.ts';
import type { BrokerAddress, LeaseAnswer, TrustAnswer } from './server-broker.ts';

const agent = keepAliveAgent(Infinity);

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
    let answer: { status: number; text: string };
    try {
      answer = await boundedRequest(new URL(route, this.address.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${this.address.token}` },
        body: JSON.stringify(body),
        timeoutMs: this.timeoutMs,
        agent,
      });
    } catch (error) {
      if (!(error instanceof RequestFailure)) throw error;
      throw new Error(`harness fault: the run's server broker gave no answer to ${route} (${error.message})`, { cause: error });
    }
    const { status, text } = answer;
    if (status !== 200) throw new Error(`harness fault: the run's server broker answered ${route} with HTTP ${status}: ${text.slice(0, 200)}`);
    return JSON.parse(text) as unknown;
  }
}
