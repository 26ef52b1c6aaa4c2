// The sender SDK's path for an intercept the plan expects to succeed (ELICITATION-RULES §4): decode
// the planned envelope, refuse to send one that breaks the id rule, and deliver it to
// `<endpoint>/hooks/intercept` with the event bearer. Each item keeps its own selection (the
// subscription's content default). In the upload binding, a body whose descriptor equals a
// confirmed content source is hydrated from that source and streamed to the receiver again through
// the SDK's upload API; the delivered envelope then names the new receipt, and the step reports it
// as `contentUploads:[{sourceRef, descriptor}]` so the harness can fold it into what it expects.

import { isJsonObject, type JsonObject } from '../../../harness/protocol/json.ts';
import type { ContentUploadReceipt } from '../../../harness/protocol/messages.ts';
import { sha256Hex } from '../../../harness/protocol/sha256-hex.ts';
import type { ElicitationBinding, Stage } from './binding.ts';
import { post } from './http-post.ts';
import { confirmedReceipt, sdkUpload, STEP_TIMEOUT_MS } from './sender-upload.ts';
import type { SenderPlan } from './sender-plan.ts';

export interface ContentUpload {
  sourceRef: string;
  descriptor: ContentUploadReceipt;
}

export interface SdkDelivery {
  status: number;
  body: string;
  contentUploads: ContentUpload[];
}

/** The sender refuses to send; the message says which rule the planned envelope breaks. */
export class SenderRefusal extends Error {
  override readonly name = 'SenderRefusal';
}

function elicitationOf(envelope: JsonObject): JsonObject | undefined {
  const params = envelope['params'];
  const event = isJsonObject(params) ? params['event'] : undefined;
  const elicitation = isJsonObject(event) ? event['elicitation'] : undefined;
  return isJsonObject(elicitation) ? elicitation : undefined;
}

function parseEnvelope(bytes: Buffer): JsonObject {
  let envelope: unknown;
  try {
    envelope = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new SenderRefusal('the planned intercept is not JSON');
  }
  if (!isJsonObject(envelope) || envelope['jsonrpc'] !== '2.0' || envelope['method'] !== 'hooks/intercept') {
    throw new SenderRefusal('the planned intercept is not a JSON-RPC hooks/intercept request');
  }
  const params = envelope['params'];
  const event = isJsonObject(params) ? params['event'] : undefined;
  if (!isJsonObject(event) || event['id'] !== envelope['id']) throw new SenderRefusal('the JSON-RPC id must equal params.event.id');
  return envelope;
}

async function hydrate(envelope: JsonObject, plan: SenderPlan): Promise<ContentUpload[]> {
  const uploads: ContentUpload[] = [];
  const elicitation = elicitationOf(envelope);
  for (const stage of ['request', 'result'] satisfies Stage[]) {
    const item = elicitation?.[stage];
    const body = isJsonObject(item) ? item['body'] : undefined;
    if (!isJsonObject(item) || !isJsonObject(body)) continue;
    const source = plan.contentSources.find(
      (candidate) => candidate.descriptor.ref === body['ref'] && candidate.descriptor.size === body['size'] && candidate.descriptor.sha256 === body['sha256'],
    );
    // Only bytes that are exactly what the descriptor says are ever streamed.
    if (source === undefined || source.bytes.length !== source.descriptor.size || sha256Hex(source.bytes) !== source.descriptor.sha256) continue;
    const answer = await sdkUpload(plan.endpoint, plan.uploadToken, source.bytes);
    const receipt = confirmedReceipt(answer, source.bytes);
    if (receipt === undefined) throw new SenderRefusal(`streaming the ${stage} body failed (HTTP ${answer.status})`);
    item['body'] = { ...receipt };
    uploads.push({ sourceRef: source.descriptor.ref, descriptor: receipt });
  }
  return uploads;
}

export async function deliverThroughSdk(
  plan: SenderPlan,
  binding: ElicitationBinding,
  emitted: (envelope: JsonObject) => JsonObject,
): Promise<SdkDelivery> {
  const envelope = parseEnvelope(plan.step.bytes);
  const contentUploads = binding === 'upload' ? await hydrate(envelope, plan) : [];
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (plan.token !== undefined) headers['authorization'] = `Bearer ${plan.token}`;
  const answer = await post(`${plan.endpoint}/hooks/intercept`, headers, Buffer.from(JSON.stringify(emitted(envelope)), 'utf8'), STEP_TIMEOUT_MS);
  return { status: answer.status, body: answer.text, contentUploads };
}
