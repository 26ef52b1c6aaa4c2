// The pair's final `/receipts` read (ELICITATION-RULES §8 step 6). The protocol's runner has the
// sender's client fetch it; here the harness asks the receiver itself, with the event bearer, so a
// sender that lies about what it delivered cannot also lie about what the receiver recorded. The
// answer is handed to the verifier in the shape a client step's result has (one `{status, body}`).

import { boundedRequest, RequestFailure } from '../../http/bounded-request.ts';
import type { ProcessOutcome } from './case-types.ts';

export async function fetchReceipts(endpoint: string, token: string, timeoutMs: number): Promise<ProcessOutcome> {
  try {
    const answer = await boundedRequest(new URL('/receipts', endpoint), {
      method: 'POST',
      body: '',
      headers: { authorization: `Bearer ${token}` },
      timeoutMs,
    });
    return { kind: 'exited', exitCode: 0, signal: null, stdout: JSON.stringify([{ status: answer.status, body: answer.text }]), stderrTail: '' };
  } catch (error) {
    if (!(error instanceof RequestFailure)) throw error;
    if (error.kind === 'timeout') return { kind: 'timeout', timeoutMs, stderrTail: `the harness's POST /receipts got no answer within ${timeoutMs} ms` };
    return { kind: 'exited', exitCode: 1, signal: null, stdout: '', stderrTail: `the harness's POST /receipts failed: ${error.message} (the receiver is gone?)` };
  }
}
