// The host (sender) side of the wire matrix: each case runs the compaction runtime from the
// instructions "base", and every hook callback is one canonical `hooks/intercept` exchange with the
// hook's scope — over HTTP with that scope's token, or with a receiver spawned for the call on stdio.
// The correlated response is checked here (JSON-RPC 2.0, the request's id, protocolVersion "draft",
// the intercept-response schema); a refused or failed exchange is a hook failure under its policy.
// The output reports each case's settled result, the exact request and reply of every exchange —
// also those whose reply was rejected — and what reached the downstream sink (only an applied one).

import { isJsonObject, type JsonObject, type JsonValue } from '../../../harness/protocol/json.ts';
import type { Validate } from '../../../harness/protocol/validator-types.ts';
import { compactionRequest } from './compaction-request.ts';
import { exchangeOverHttp, type WireReply } from './http-exchange.ts';
import type { HostCase, HostPlan } from './host-plan.ts';
import { REFERENCE_STEPS, runCompaction, type CompactionResult, type HookExchange, type RuntimeSteps } from './runtime.ts';
import { exchangeOverStdio } from './stdio-exchange.ts';
import { inlineText, textParts } from './text-parts.ts';

/** One exchange on the wire with what the runtime made of it. */
export interface WireExchange extends HookExchange {
  request: JsonObject;
  response: JsonValue;
}

export interface HostSteps {
  runtime: RuntimeSteps;
  /** The exchanges a case reports (the reference: every one, in call order). */
  reported(exchanges: readonly WireExchange[]): WireExchange[];
}

export const REFERENCE_HOST_STEPS: HostSteps = { runtime: REFERENCE_STEPS, reported: (exchanges) => [...exchanges] };

export interface CaseOutput {
  name: string;
  result: JsonObject;
  trace: JsonObject[];
  downstream: string[];
}

export type Exchange = (scope: string, request: JsonObject) => Promise<WireReply>;

export function planExchange(plan: HostPlan): Exchange {
  if (plan.transport === 'http') {
    return async (scope, request) => {
      const token = plan.tokens.get(scope);
      if (token === undefined) return { ok: false, error: `no credential for scope ${JSON.stringify(scope)} in the plan` };
      return exchangeOverHttp(plan.endpoint!, token, request);
    };
  }
  return (scope, request) => exchangeOverStdio(plan.receiverCommand!, scope, request);
}

/** Why a correlated reply cannot be used, or its effect list. */
export function repliedEffects(request: JsonObject, reply: JsonValue, interceptResponse: Validate | undefined): { ok: true; effects: unknown } | { ok: false; problem: string } {
  if (!isJsonObject(reply) || reply.jsonrpc !== '2.0') return { ok: false, problem: 'the reply is not a JSON-RPC 2.0 object' };
  if (reply.id !== request.id) return { ok: false, problem: 'the reply id does not correlate with the request id' };
  if (reply.error !== undefined) {
    const code = isJsonObject(reply.error) ? reply.error.code : undefined;
    return { ok: false, problem: `the receiver answered JSON-RPC error ${JSON.stringify(code ?? null)}` };
  }
  if (!isJsonObject(reply.result) || reply.result.protocolVersion !== 'draft') return { ok: false, problem: 'the reply has no draft result' };
  if (interceptResponse !== undefined) {
    const check = interceptResponse(reply);
    if (!check.valid) return { ok: false, problem: `the reply fails the intercept-response schema: ${check.errors.slice(0, 2).join('; ')}` };
  }
  return { ok: true, effects: reply.result.effects ?? [] };
}

export async function runCase(row: HostCase, exchange: Exchange, interceptResponse: Validate | undefined, steps: HostSteps = REFERENCE_HOST_STEPS): Promise<CaseOutput> {
  const wire: Array<{ request: JsonObject; response: JsonValue }> = [];
  const result = await runCompaction(
    {
      name: row.name,
      instructions: textParts('base'),
      before: row.before,
      after: row.after,
      call: async (hook, snapshot) => {
        const request = compactionRequest(row.name, snapshot);
        const entry: { request: JsonObject; response: JsonValue } = { request, response: null };
        wire.push(entry);
        const answered = await exchange(hook.supplier, request);
        entry.response = answered.reply ?? null;
        if (!answered.ok) throw new Error(answered.error);
        const effects = repliedEffects(request, answered.reply, interceptResponse);
        if (!effects.ok) throw new Error(effects.problem);
        return effects.effects;
      },
    },
    steps.runtime,
  );
  const exchanges: WireExchange[] = result.exchanges.map((exchanged, index) => ({ ...exchanged, ...wire[index]! }));
  return caseOutput(row.name, result, steps.reported(exchanges));
}

function caseOutput(name: string, result: CompactionResult, reported: WireExchange[]): CaseOutput {
  return {
    name,
    result: {
      instructions: result.instructions,
      summary: result.summary,
      generated: result.generated,
      applied: result.applied,
      failures: result.failures as unknown as JsonValue[],
      messages: result.messages,
      seen: reported.map((exchange) => exchange.seen),
    },
    trace: reported.map((exchange) => ({ subscription: exchange.supplier, request: exchange.request, response: exchange.response })),
    downstream: result.applied && result.summary !== null ? [inlineText(result.summary)] : [],
  };
}

export async function runHost(plan: HostPlan, interceptResponse: Validate | undefined, steps: HostSteps = REFERENCE_HOST_STEPS): Promise<CaseOutput[]> {
  const exchange = planExchange(plan);
  const outputs: CaseOutput[] = [];
  for (const row of plan.cases) outputs.push(await runCase(row, exchange, interceptResponse, steps));
  return outputs;
}
