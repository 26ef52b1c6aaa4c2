// Direct HTTP to an elicitation receiver for the self-tests: each duty is one request, without a
// sender process in between. Tokens are the pair's event and upload bearers.

import type { JsonObject } from '../../../harness/protocol/json.ts';
import { bodyBytes, sha256, type Descriptor } from './elicitation-wire.ts';

export interface Answer {
  status: number;
  text: string;
}

export interface PairTokens {
  token: string;
  uploadToken: string;
}

export class ReceiverClient {
  constructor(
    readonly endpoint: string,
    private readonly tokens: PairTokens,
  ) {}

  async post(route: string, body: Buffer | string, headers: Record<string, string>): Promise<Answer> {
    const response = await fetch(`${this.endpoint}${route}`, { method: 'POST', body, headers, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    return { status: response.status, text: await response.text() };
  }

  upload(bytes: Buffer, token = this.tokens.uploadToken): Promise<Answer> {
    return this.post('/upload', bytes, { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream', 'ahp-content-sha256': sha256(bytes) });
  }

  /** Uploads a body and returns its receipt; throws unless the receiver answered 201. */
  async uploaded(value: JsonObject): Promise<Descriptor> {
    const answer = await this.upload(bodyBytes(value));
    if (answer.status !== 201) throw new Error(`upload answered ${answer.status}: ${answer.text}`);
    return JSON.parse(answer.text) as Descriptor;
  }

  intercept(message: unknown, token = this.tokens.token): Promise<Answer> {
    return this.post('/hooks/intercept', JSON.stringify(message), { authorization: `Bearer ${token}`, 'content-type': 'application/json' });
  }

  /** The receipts with the event bearer; throws unless 200. */
  async receipts(): Promise<JsonObject[]> {
    const answer = await this.post('/receipts', '', { authorization: `Bearer ${this.tokens.token}` });
    if (answer.status !== 200) throw new Error(`/receipts answered ${answer.status}`);
    return JSON.parse(answer.text) as JsonObject[];
  }
}
