// `client` mode, the sender (ELICITATION-RULES §4): one plan on stdin, one step, and on stdout one
// JSON array holding exactly one result `{status, body, contentUploads?}`. A status the receiver
// answered is a result, whatever it is; only a refusal to send or a connection failure exits 1.
//   /upload, no Authorization in the step        the SDK's upload API with the upload bearer
//   /upload, another Authorization in the step   raw POST keeping that header (never replaced)
//   /hooks/intercept                             the SDK's delivery, or with `bypass` a raw POST
//                                                of the exact bytes with the event bearer
//   /receipts                                    raw POST, empty body, event bearer

import type { JsonObject } from '../../../harness/protocol/json.ts';
import type { Log } from '../lib/log.ts';
import type { ElicitationBinding } from './binding.ts';
import { post } from './http-post.ts';
import { deliverThroughSdk, SenderRefusal } from './sdk-intercept.ts';
import { parseSenderPlan, PlanError, type SenderPlan } from './sender-plan.ts';
import { sdkUpload, STEP_TIMEOUT_MS } from './sender-upload.ts';
import { readStdin } from './read-stdin.ts';

export interface ClientFlaws {
  /** Rewrites the exact bytes of a bypass intercept before they are posted. */
  rawIntercept?: (bytes: Buffer, plan: SenderPlan) => Buffer;
  /** Rewrites the envelope the SDK emits. */
  emitted?: (envelope: JsonObject) => JsonObject;
}

export interface ClientModeOptions {
  binding: ElicitationBinding;
  log: Log;
  flaws: ClientFlaws;
}

type StepResult = { status: number; body: string; contentUploads?: unknown[] };

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

function eventHeaders(plan: SenderPlan, type?: string): Record<string, string> {
  const headers: Record<string, string> = type === undefined ? {} : { 'content-type': type };
  if (plan.token !== undefined) headers['authorization'] = `Bearer ${plan.token}`;
  return headers;
}

async function runStep(plan: SenderPlan, options: ClientModeOptions): Promise<StepResult> {
  const { step } = plan;
  if (step.path === '/upload') {
    const authorization = headerValue(step.headers, 'authorization');
    if (authorization !== undefined && authorization !== `Bearer ${plan.uploadToken}`) {
      const headers = { 'content-type': 'application/octet-stream', ...step.headers };
      const answer = await post(`${plan.endpoint}/upload`, headers, step.bytes, STEP_TIMEOUT_MS);
      return { status: answer.status, body: answer.text };
    }
    const answer = await sdkUpload(plan.endpoint, plan.uploadToken, step.bytes, headerValue(step.headers, 'ahp-content-sha256'));
    return { status: answer.status, body: answer.text };
  }
  if (step.path === '/hooks/intercept') {
    if (step.bypass) {
      const bytes = options.flaws.rawIntercept?.(step.bytes, plan) ?? step.bytes;
      const answer = await post(`${plan.endpoint}/hooks/intercept`, eventHeaders(plan, 'application/json'), bytes, STEP_TIMEOUT_MS);
      return { status: answer.status, body: answer.text };
    }
    const delivered = await deliverThroughSdk(plan, options.binding, options.flaws.emitted ?? ((envelope) => envelope));
    const result: StepResult = { status: delivered.status, body: delivered.body };
    if (delivered.contentUploads.length > 0) result.contentUploads = delivered.contentUploads;
    return result;
  }
  if (step.path === '/receipts') {
    const answer = await post(`${plan.endpoint}/receipts`, eventHeaders(plan), Buffer.alloc(0), STEP_TIMEOUT_MS);
    return { status: answer.status, body: answer.text };
  }
  throw new PlanError(`plan: steps[0].path: expected /upload, /hooks/intercept or /receipts, got ${JSON.stringify(step.path)}`);
}

/** The process exit code: 0 with one result on stdout, 2 for a bad plan, 1 when nothing could be sent. */
export async function runClientMode(options: ClientModeOptions): Promise<number> {
  const { log } = options;
  let plan: SenderPlan;
  try {
    plan = parseSenderPlan(await readStdin());
  } catch (error) {
    if (!(error instanceof PlanError)) throw error;
    log.error(error.message);
    return 2;
  }
  try {
    const result = await runStep(plan, options);
    process.stdout.write(`${JSON.stringify([result])}\n`);
    return 0;
  } catch (error) {
    if (error instanceof PlanError) {
      log.error(error.message);
      return 2;
    }
    log.error(error instanceof SenderRefusal ? `refusing to send: ${error.message}` : `step failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
