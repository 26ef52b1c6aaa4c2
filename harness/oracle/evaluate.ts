import { cloneJson, isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../protocol/json.ts';
import {
  PROTOCOL_VERSION,
  type Effect,
  type InterceptCapabilities,
  type InterceptRequest,
  type PermissionState,
} from '../protocol/messages.ts';
import type { ProtocolValidators } from '../protocol/validator-types.ts';
import { taskInputProblem } from './fixture-host.ts';
import type {
  ApplicationResult,
  Decision,
  EvaluateOptions,
  Rejection,
  RejectionLayer,
  Verdict,
} from './types.ts';

/**
 * The evaluator oracle: what a conforming client must conclude from one intercept request and the
 * response it received, under the shared fixture host (fixture-host.ts: managed policy allows, no
 * native prompt, the task rule on staged tool inputs).
 *
 * Pure and synchronous. The only collaborator is an already compiled response validator, so the
 * whole call is a schema check plus a few passes over the effects array. Inputs are never mutated;
 * a rejection therefore leaves every piece of incoming state exactly as it was.
 */
export function evaluate(
  request: InterceptRequest,
  response: unknown,
  validators: Pick<ProtocolValidators, 'interceptResponse'>,
  options: EvaluateOptions = {},
): Verdict {
  const envelope = checkEnvelope(response, validators);
  if (envelope.rejection) return envelope.rejection;
  const effects = envelope.effects;

  if (!isJsonObject(response) || response.id !== request.id) {
    const got = isJsonObject(response) ? JSON.stringify(response.id ?? null) : 'none';
    return reject('correlation', `response id ${got} does not match request id ${JSON.stringify(request.id)}`);
  }

  const capabilities = request.params.capabilities;
  const capabilityProblem = checkCapabilities(effects, capabilities);
  if (capabilityProblem) return reject('capability', capabilityProblem);

  return apply(request, effects, options.hostTaskRule !== false);
}

/**
 * The SDK-level view of a response that only the fixture host's task rule refuses: everything the
 * SDK accepted, with execution refused. `undefined` when the response is not of that kind.
 */
export function hostRejectedResult(
  request: InterceptRequest,
  response: unknown,
  validators: Pick<ProtocolValidators, 'interceptResponse'>,
): ApplicationResult | undefined {
  const strict = evaluate(request, response, validators);
  if (strict.accepted || strict.hostRule !== true) return undefined;
  const lenient = evaluate(request, response, validators, { hostTaskRule: false });
  if (!lenient.accepted) return undefined;
  return { ...lenient.result, executed: false };
}

// ---------------------------------------------------------------------------------------------

function reject(layer: RejectionLayer, reason: string, hostRule = false): Rejection {
  return hostRule ? { accepted: false, layer, reason, hostRule } : { accepted: false, layer, reason };
}

function checkEnvelope(
  response: unknown,
  validators: Pick<ProtocolValidators, 'interceptResponse'>,
): { rejection: Rejection; effects?: undefined } | { rejection?: undefined; effects: Effect[] } {
  const check = validators.interceptResponse(response);
  if (!check.valid) {
    return { rejection: reject('schema', `response fails intercept-response schema: ${check.errors.slice(0, 3).join('; ')}`) };
  }
  // The schema set is user-configurable; these few facts are what everything below relies on, so
  // they are re-checked rather than trusted to whatever directory `schemas` names.
  const result = isJsonObject(response) ? response.result : undefined;
  if (!isJsonObject(result) || !Array.isArray(result.effects)) {
    return { rejection: reject('schema', 'response has no result.effects array') };
  }
  if (result.protocolVersion !== PROTOCOL_VERSION) {
    return { rejection: reject('schema', `result.protocolVersion ${JSON.stringify(result.protocolVersion)} is not "${PROTOCOL_VERSION}"`) };
  }
  for (let index = 0; index < result.effects.length; index++) {
    const effect = result.effects[index];
    if (!isJsonObject(effect) || !KNOWN_EFFECTS.has(String(effect.type))) {
      return { rejection: reject('schema', `effects[${index}] has unknown type ${JSON.stringify(isJsonObject(effect) ? effect.type : effect)}`) };
    }
  }
  return { effects: result.effects as unknown as Effect[] };
}

const KNOWN_EFFECTS = new Set(['deny', 'allow', 'ask', 'modify', 'message', 'return', 'flow', 'inject']);

/** Every effect must be within what the request advertised; the first violation names itself. */
function checkCapabilities(effects: Effect[], capabilities: InterceptCapabilities): string | undefined {
  // Plain indexed loops and messages built only on failure: this runs for every evaluation.
  const advertised = capabilities.effects;
  for (let index = 0; index < effects.length; index++) {
    const effect = effects[index]!;
    if (!advertised.includes(effect.type)) return `${at(index, effect)}: effect type is not in capabilities.effects`;
    switch (effect.type) {
      case 'modify': {
        const target = capabilities.modify?.[effect.target];
        if (!target || target[effect.operation] !== true) {
          return `${at(index, effect)}: ${effect.operation} of target "${effect.target}" is not advertised (capabilities.modify.${effect.target}.${effect.operation} is not true)`;
        }
        break;
      }
      case 'flow': {
        const operations = capabilities.flow?.operations ?? [];
        if (!operations.includes(effect.operation)) {
          return `${at(index, effect)}: flow operation "${effect.operation}" is not in capabilities.flow.operations`;
        }
        if (effect.operation === 'continue' && !hasAllowance(capabilities)) {
          return `${at(index, effect)}: continuation allowance is exhausted (capabilities.flow.remainingContinuations is ${JSON.stringify(capabilities.flow?.remainingContinuations ?? null)})`;
        }
        break;
      }
      case 'inject': {
        const context = capabilities.inject?.context;
        if (!context || context.append !== true) return `${at(index, effect)}: inject.context.append is not advertised`;
        if (!Array.isArray(context.deliverAt) || !context.deliverAt.includes(effect.deliverAt)) {
          return `${at(index, effect)}: deliverAt "${effect.deliverAt}" is not in capabilities.inject.context.deliverAt`;
        }
        break;
      }
      default:
        break;
    }
  }
  return undefined;
}

function at(index: number, effect: Effect): string {
  return `effects[${index}] (${effect.type})`;
}

function hasAllowance(capabilities: InterceptCapabilities): boolean {
  const remaining = capabilities.flow?.remainingContinuations;
  return typeof remaining === 'number' && Number.isInteger(remaining) && remaining >= 1;
}

const PERMISSION_RANK: Record<PermissionState, number> = { none: 0, allow: 1, ask: 2, deny: 3 };
const RANKED_PERMISSIONS: readonly PermissionState[] = ['none', 'allow', 'ask', 'deny'];

function apply(request: InterceptRequest, effects: Effect[], hostTaskRule: boolean): Verdict {
  const { event, capabilities, state } = request.params;
  const toolBoundary = event.type === 'tool.before';
  const incomingInput: JsonObject | undefined = toolBoundary && event.tool ? event.tool.input : undefined;

  // One pass in response order collects everything; what depends on the final input (return
  // binding, invalidation) is only decided after it, so staging still precedes binding (rule 4).
  let input = incomingInput;
  let lastReturn: { value: JsonValue } | null = null;
  let rank = 0;
  let stop = state?.flow === 'stop';
  let resume = state?.flow === 'continue';
  const instructions = state?.instructions ? state.instructions.slice() : [];
  const messages: string[] = [];
  // An empty carried list carries nothing: the result is as if it were absent (no `injections` key).
  let injections: JsonValue[] | undefined = state?.injections && state.injections.length > 0 ? state.injections.slice() : undefined;
  for (let index = 0; index < effects.length; index++) {
    const effect = effects[index]!;
    switch (effect.type) {
      case 'modify': {
        if (effect.target !== 'input') break;
        if (input === undefined) return reject('application', `effects[${index}]: no tool input to modify at ${event.type}`);
        const value = effect.value;
        if (!isJsonObject(value)) return reject('application', `effects[${index}]: input ${effect.operation} value is not an object`);
        input = effect.operation === 'replace' ? value : { ...input, ...value };
        // Applied whatever the tool is called (fixture-host.ts says why, and which outcomes of a
        // tool other than `task` are therefore undefined by the protocol).
        if (hostTaskRule) {
          const problem = taskInputProblem(input);
          if (problem) return reject('application', `effects[${index}]: ${problem}`, true);
        }
        break;
      }
      case 'return':
        lastReturn = { value: effect.value };
        break;
      case 'deny':
      case 'ask':
      case 'allow':
        if (PERMISSION_RANK[effect.type] > rank) rank = PERMISSION_RANK[effect.type];
        break;
      case 'flow':
        if (effect.operation === 'stop') stop = true;
        else {
          resume = true;
          if (effect.instruction !== undefined) instructions.push(effect.instruction);
        }
        break;
      case 'inject':
        (injections ??= []).push(effect as unknown as JsonValue);
        break;
      case 'message':
        messages.push(effect.text);
        break;
    }
  }

  // Rule 5: a changed effective input invalidates the incoming candidate and incoming allow; a new
  // return binds to the final input; then deny > ask > allow over what is left.
  let permission: PermissionState = state?.permission ?? 'none';
  let candidate: { value: JsonValue } | null = state?.candidate ? { value: state.candidate.value } : null;
  if (incomingInput !== undefined && input !== incomingInput && !jsonEqual(input, incomingInput)) {
    candidate = null;
    if (permission === 'allow') permission = 'none';
  }
  if (lastReturn) candidate = lastReturn;
  if (rank > PERMISSION_RANK[permission]) permission = RANKED_PERMISSIONS[rank]!;
  const decision: Decision = permission === 'deny' ? 'deny' : permission === 'ask' ? 'ask' : 'allow';

  // Rule 7: stop wins over continue wherever either comes from; instructions are retained.
  const flow = stop ? 'stop' : resume ? 'continue' : undefined;
  if (flow === 'continue' && !hasAllowance(capabilities)) {
    return reject('capability', 'carried continuation has no remaining allowance');
  }

  // Rule 9: derive the result only now, after the whole response was accepted.
  // A candidate stands in for the original tool call, so only a tool boundary can select one.
  const candidateApplies = toolBoundary && decision === 'allow' && flow !== 'stop' && candidate !== null;
  const executed = toolBoundary && decision === 'allow' && flow !== 'stop' && candidate === null;

  // Only values that came from the request or the response are copied (strings are immutable),
  // so a result never aliases what the caller passed in.
  const result: ApplicationResult = { decision, executed, messages };
  if (toolBoundary && input !== undefined) result.input = cloneJson(input);
  if (candidateApplies && candidate) result.result = cloneJson(candidate.value);
  if (flow) result.flow = flow;
  // Continuations happen only at a finish boundary (rule 7: "continuation cases use
  // turn.finish.before, not tool.before"), so the continuation keys exist only there; at a tool
  // boundary a stop is just `flow: "stop"`.
  if (!toolBoundary) {
    if (flow) {
      result.continuationInstructions = instructions;
      const remaining = capabilities.flow?.remainingContinuations;
      if (typeof remaining === 'number') result.continuationRemaining = flow === 'continue' ? remaining - 1 : remaining;
    } else if (instructions.length > 0) {
      result.continuationInstructions = instructions;
    }
  }
  if (injections) result.injections = cloneJson(injections);
  return { accepted: true, result };
}
