// A whole elicitation pair in memory, for the verifier's self-tests: the receiver model stands in for
// the receiver SDK, a plain sender for the client SDK and the expected rows for the atomic helper,
// all driven by the same drivePair a real run uses. Each lie swaps one honest behaviour for a wrong
// one, so a test can show the verifier fails exactly the entries that lie touches.

import type { AtomicOutput, ElicitationCaseFile, PairEvidence, PairSecrets, ProcessOutcome, SenderPlan, UploadDescriptor } from '../../../harness/families/elicitation/case-types.ts';
import { drivePair } from '../../../harness/families/elicitation/drive-pair.ts';
import { selectedEntryIds } from '../../../harness/families/elicitation/plan-steps.ts';
import { withPrincipal } from '../../../harness/families/elicitation/receipt-summary.ts';
import { ReceiverModel, type ModelReceipt } from '../../../harness/families/elicitation/receiver-model.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../harness/protocol/json.ts';

export const SIMULATED_SECRETS: PairSecrets = { endpoint: 'http://127.0.0.1:9', token: 'event-token-sim', uploadToken: 'upload-token-sim' };
export const SIMULATED_PRINCIPAL = 'authenticated:sim';

export interface PairLies {
  /** The receiver to use instead of the honest model (a subclass that breaks one duty). */
  receiver?: (uploadToken: string) => ReceiverModel;
  /** What the receiver records for an accepted intercept instead of the honest receipt. */
  recordReceipt?: (receipt: ModelReceipt) => ModelReceipt;
  /** The receiver's 201 body for an upload instead of its descriptor. */
  uploadAnswer?: (descriptor: UploadDescriptor) => string;
  /** The `/receipts` route answers without the event bearer. */
  receiptsWithoutBearer?: boolean;
  /** What the sender's SDK path delivers instead of the planned envelope. */
  sdkDelivers?: (message: JsonObject, plan: SenderPlan) => JsonObject;
  /** What a raw (bypass) step delivers instead of the exact planned bytes. */
  rawDelivers?: (message: JsonObject, plan: SenderPlan) => JsonObject;
  /** The `contentUploads` the sender reports (and the envelope it then delivers). */
  contentUploads?: (message: JsonObject, plan: SenderPlan) => { report: JsonValue; delivers: JsonObject } | undefined;
  /** The helper's output instead of the honest one. */
  atomicOutputs?: (outputs: AtomicOutput[]) => unknown[];
}

export interface SimulatedPair {
  evidence: PairEvidence;
  /** Every plan a client process would have read, in order. */
  plans: SenderPlan[];
}

function exited(stdout: string): ProcessOutcome {
  return { kind: 'exited', exitCode: 0, signal: null, stdout, stderrTail: '' };
}

function clientResult(result: JsonObject): ProcessOutcome {
  return exited(JSON.stringify([result]));
}

/** The honest helper's outputs: exactly the rows' expectations, with the request body it parsed. */
function honestAtomicOutputs(file: ElicitationCaseFile): AtomicOutput[] {
  return file.atomic.map((row) => {
    if (!row.expected.accepted) return { accepted: false, inputUnchanged: true };
    const item = ((row.input.request.params as JsonObject).event as JsonObject).elicitation as JsonObject;
    const part = item.request as JsonObject;
    let text: string;
    if (typeof part.text === 'string') text = part.text;
    else {
      const ref = (part.body as JsonObject).ref;
      const upload = row.input.uploads.find((u) => u.ref === ref);
      text = Buffer.from(upload?.bytes ?? '', 'base64').toString('utf8');
    }
    return {
      accepted: true,
      inputUnchanged: true,
      summary: {
        request: JSON.parse(text) as JsonObject,
        result: row.expected.result,
        provenance: { kind: 'hook', authenticatedSource: SIMULATED_PRINCIPAL, effects: row.expected.effects },
        externalCompletion: false,
      },
    };
  });
}

export async function simulatePair(file: ElicitationCaseFile, options: { selection?: Iterable<string>; lies?: PairLies } = {}): Promise<SimulatedPair> {
  const lies = options.lies ?? {};
  const secrets = SIMULATED_SECRETS;
  const receiver = lies.receiver?.(secrets.uploadToken) ?? new ReceiverModel(secrets.uploadToken);
  const receipts: JsonObject[] = [];
  const plans: SenderPlan[] = [];

  const deliver = (message: JsonObject): JsonObject => {
    const outcome = receiver.intercept(message);
    if (outcome.status !== 200) return { status: 400, body: JSON.stringify({ error: outcome.reason }) };
    const recorded = lies.recordReceipt?.(outcome.receipt) ?? outcome.receipt;
    receipts.push({ message: recorded.message, bytes: recorded.bytes, summary: withPrincipal(recorded.summary, SIMULATED_PRINCIPAL) });
    return { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: message.id ?? null, result: { protocolVersion: 'draft', effects: [] } }) };
  };

  const runClient = async (plan: SenderPlan): Promise<ProcessOutcome> => {
    plans.push(plan);
    const [step] = plan.steps;
    const bytes = Buffer.from(step.bytes, 'base64');
    if (step.path === '/receipts') {
      const allowed = plan.token === secrets.token || lies.receiptsWithoutBearer === true;
      return clientResult(allowed ? { status: 200, body: JSON.stringify(receipts) } : { status: 401, body: '{"error":"unauthorized"}' });
    }
    if (step.path === '/upload') {
      const authorization = step.headers?.Authorization ?? `Bearer ${plan.uploadToken ?? ''}`;
      const outcome = receiver.upload(bytes, { Authorization: authorization });
      if (outcome.status !== 201) return clientResult({ status: outcome.status, body: '{"error":"unauthorized"}' });
      return clientResult({ status: 201, body: lies.uploadAnswer?.(outcome.descriptor) ?? JSON.stringify(outcome.descriptor) });
    }
    const planned = JSON.parse(bytes.toString('utf8')) as JsonObject;
    if (step.bypass === true) return clientResult(deliver(lies.rawDelivers?.(planned, plan) ?? planned));
    const reupload = lies.contentUploads?.(planned, plan);
    const sent = reupload?.delivers ?? lies.sdkDelivers?.(planned, plan) ?? planned;
    const result = deliver(sent);
    if (reupload !== undefined) result.contentUploads = reupload.report;
    return clientResult(result);
  };

  const evidence = await drivePair(
    { file, selected: selectedEntryIds(file, options.selection), sender: 'sim', receiver: 'sim', principal: SIMULATED_PRINCIPAL, secrets },
    {
      runAtomicHelper: async () => {
        const honest = honestAtomicOutputs(file);
        return exited(JSON.stringify(lies.atomicOutputs?.(honest) ?? honest));
      },
      runClient,
    },
  );
  return { evidence, plans };
}

/** The first item of the envelope's elicitation (request or result), for lies that edit it. */
export function itemOf(message: JsonObject): JsonObject | undefined {
  const elicitation = ((message.params as JsonObject).event as JsonObject).elicitation;
  if (!isJsonObject(elicitation)) return undefined;
  const item = elicitation.request ?? elicitation.result;
  return isJsonObject(item) ? item : undefined;
}
