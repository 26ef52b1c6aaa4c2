// Runs the reference compaction host's cases in this process against an in-process reference
// receiver (the same modules the adapter processes run, without processes or sockets), and checks a
// case's output against the rules' outcome — for the adapter's unit-level self-tests and for showing
// which cases each lying fake breaks.

import { loadValidators } from '../../../harness/protocol/load-validators.ts';
import type { JsonObject, JsonValue } from '../../../harness/protocol/json.ts';
import { DEFAULT_SCHEMA_DIR } from '../../../adapters/reference/lib/paths.ts';
import { REFERENCE_HOST_STEPS, runCase, type CaseOutput, type Exchange, type HostSteps } from '../../../adapters/reference/compaction/host.ts';
import type { HostCase } from '../../../adapters/reference/compaction/host-plan.ts';
import type { CompactionReceipt } from '../../../adapters/reference/compaction/receipt-file.ts';
import { CompactionReceiver, REFERENCE_RECEIVER_STEPS, type ReceiverSteps } from '../../../adapters/reference/compaction/receiver.ts';
import type { SubscriptionAction } from '../../../adapters/reference/compaction/subscriptions.ts';
import { inlineText } from '../../../adapters/reference/compaction/text-parts.ts';
import { COMPACTION_CASES, hostRows, subscriptionConfig, type CaseOutcome } from './compaction-wire-cases.ts';

export const validators = loadValidators(DEFAULT_SCHEMA_DIR);

export interface InProcessRun {
  outputs: CaseOutput[];
  receipts: CompactionReceipt[];
}

export function inProcessReceiver(receipts: CompactionReceipt[], steps: ReceiverSteps = REFERENCE_RECEIVER_STEPS): CompactionReceiver {
  const subscriptions = new Map(Object.entries(subscriptionConfig()) as Array<[string, SubscriptionAction]>);
  return new CompactionReceiver({ interceptRequest: validators.interceptRequest, subscriptions, record: (receipt) => receipts.push(receipt), steps });
}

/** Every case (or the named ones) through the host steps and receiver steps given. */
export async function runInProcess(options: { host?: HostSteps; receiver?: ReceiverSteps; names?: readonly string[] } = {}): Promise<InProcessRun> {
  const receipts: CompactionReceipt[] = [];
  const receiver = inProcessReceiver(receipts, options.receiver);
  const exchange: Exchange = async (scope, request) => ({ ok: true, reply: JSON.parse(receiver.answer(structuredClone(request), scope)) as JsonValue });
  const outputs: CaseOutput[] = [];
  for (const row of hostRows() as unknown as HostCase[]) {
    if (options.names && !options.names.includes(row.name)) continue;
    outputs.push(await runCase(row, exchange, validators.interceptResponse, options.host ?? REFERENCE_HOST_STEPS));
  }
  return { outputs, receipts };
}

const textOf = (parts: JsonValue): string | null => (parts === null ? null : inlineText(parts));

/** How a case's output departs from the rules' outcome (empty when it settles as the rules say). */
export function outcomeProblems(output: CaseOutput, outcome: CaseOutcome): string[] {
  const result = output.result;
  const problems: string[] = [];
  const expectEqual = (what: string, actual: unknown, expected: unknown): void => {
    if (JSON.stringify(actual) !== JSON.stringify(expected)) problems.push(`${what}: ${JSON.stringify(actual)} instead of ${JSON.stringify(expected)}`);
  };
  expectEqual('instructions', textOf(result.instructions!), outcome.instructions);
  expectEqual('generated', result.generated, outcome.generated);
  expectEqual('applied', result.applied, outcome.applied);
  expectEqual('failure count', (result.failures as JsonValue[]).length, outcome.failures);
  expectEqual('summary', textOf(result.summary!), outcome.summary);
  expectEqual('messages', result.messages, []);
  expectEqual('downstream', output.downstream, outcome.applied ? [outcome.summary] : []);
  expectEqual('seen', result.seen, outcome.seen);
  const traced = output.trace.map((entry) => {
    const event = ((entry.request as JsonObject).params as JsonObject).event as JsonObject;
    return inlineText(event.instructions ?? event.summary);
  });
  expectEqual('traced text', traced, outcome.seen);
  return problems;
}

export const CASE_NAMES = COMPACTION_CASES.map((row) => row.name);
