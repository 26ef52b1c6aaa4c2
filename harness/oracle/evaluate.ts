import { cloneJson, isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../protocol/json.ts';
import {
  PROTOCOL_VERSION,
  type Effect,
  type FlowState,
  type InterceptCapabilities,
  type InterceptRequest,
  type PermissionState,
} from '../protocol/messages.ts';
import type { ProtocolValidators } from '../protocol/validator-types.ts';
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
 * response it received, under the shared fixture host (managed policy allows, no native prompt).
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
  for (const [index, effect] of result.effects.entries()) {
    if (!isJsonObject(effect) || !KNOWN_EFFECTS.has(String(effect.type))) {
      return { rejection: reject('schema', `effects[${index}] has unknown type ${JSON.stringify(isJsonObject(effect) ? effect.type : effect)}`) };
    }
  }
  return { effects: result.effects as unknown as Effect[] };
}

const KNOWN_EFFECTS = new Set(['deny', 'allow', 'ask', 'modify', 'message', 'return', 'flow', 'inject']);

/** Every effect must be within what the request advertised; the first violation names itself. */
function checkCapabilities(effects: Effect[], capabilities: InterceptCapabilities): string | undefined {
  const advertised = new Set(capabilities.effects);
  for (const [index, effect] of effects.entries()) {
    const at = `effects[${index}] (${effect.type})`;
    if (!advertised.has(effect.type)) return `${at}: effect type is not in capabilities.effects`;
    switch (effect.type) {
      case 'modify': {
        const target = capabilities.modify?.[effect.target];
        if (!target || target[effect.operation] !== true) {
          return `${at}: ${effect.operation} of target "${effect.target}" is not advertised (capabilities.modify.${effect.target}.${effect.operation} is not true)`;
        }
        break;
      }
      case 'flow': {
        const operations = capabilities.flow?.operations ?? [];
        if (!operations.includes(effect.operation)) {
          return `${at}: flow operation "${effect.operation}" is not in capabilities.flow.operations`;
        }
        if (effect.operation === 'continue' && !hasAllowance(capabilities)) {
          return `${at}: continuation allowance is exhausted (capabilities.flow.remainingContinuations is ${JSON.stringify(capabilities.flow?.remainingContinuations ?? null)})`;
        }
        break;
      }
      case 'inject': {
        const context = capabilities.inject?.context;
        if (!context || context.append !== true) return `${at}: inject.context.append is not advertised`;
        if (!Array.isArray(context.deliverAt) || !context.deliverAt.includes(effect.deliverAt)) {
          return `${at}: deliverAt "${effect.deliverAt}" is not in capabilities.inject.context.deliverAt`;
        }
        break;
      }
      default:
        break;
    }
  }
  return undefined;
}

function hasAllowance(capabilities: InterceptCapabilities): boolean {
  const remaining = capabilities.flow?.remainingContinuations;
  return typeof remaining === 'number' && Number.isInteger(remaining) && remaining >= 1;
}

const PERMISSION_RANK: Record<PermissionState, number> = { none: 0, allow: 1, ask: 2, deny: 3 };

/** The fixture host's tool contract: an object whose `task` is a positive integer (never a boolean). */
export function taskInputProblem(input: JsonValue): string | undefined {
  if (!isJsonObject(input)) return 'staged input is not an object';
  const task = input.task;
  if (typeof task !== 'number' || !Number.isInteger(task) || task < 1) {
    return `staged input.task ${JSON.stringify(task ?? null)} is not a positive integer`;
  }
  return undefined;
}

function apply(request: InterceptRequest, effects: Effect[], hostTaskRule: boolean): Verdict {
  const { event, capabilities, state } = request.params;
  const toolBoundary = event.type === 'tool.before';
  const incomingInput: JsonObject | undefined = toolBoundary && event.tool ? event.tool.input : undefined;

  // Rule 4: stage every input modification, in order, before any return is bound.
  let input = incomingInput;
  for (const [index, effect] of effects.entries()) {
    if (effect.type !== 'modify' || effect.target !== 'input') continue;
    if (input === undefined) {
      return reject('application', `effects[${index}]: no tool input to modify at ${event.type}`);
    }
    const value = effect.value;
    if (!isJsonObject(value)) return reject('application', `effects[${index}]: input ${effect.operation} value is not an object`);
    input = effect.operation === 'replace' ? value : { ...input, ...value };
    if (hostTaskRule) {
      const problem = taskInputProblem(input);
      if (problem) return reject('application', `effects[${index}]: ${problem}`, true);
    }
  }

  // Rule 5: a changed effective input invalidates the incoming candidate and incoming allow.
  let permission: PermissionState = state?.permission ?? 'none';
  let candidate: { value: JsonValue } | null = state?.candidate ? { value: state.candidate.value } : null;
  if (incomingInput !== undefined && !jsonEqual(input, incomingInput)) {
    candidate = null;
    if (permission === 'allow') permission = 'none';
  }
  for (const effect of effects) {
    if (effect.type === 'return') candidate = { value: effect.value };
  }
  for (const effect of effects) {
    if (effect.type === 'deny' || effect.type === 'ask' || effect.type === 'allow') {
      if (PERMISSION_RANK[effect.type] > PERMISSION_RANK[permission]) permission = effect.type;
    }
  }
  const decision: Decision = permission === 'deny' ? 'deny' : permission === 'ask' ? 'ask' : 'allow';

  // Rule 7: stop wins over continue wherever either comes from; instructions are retained.
  const incomingFlow: FlowState = state?.flow ?? 'none';
  let stop = incomingFlow === 'stop';
  let resume = incomingFlow === 'continue';
  const instructions = [...(state?.instructions ?? [])];
  for (const effect of effects) {
    if (effect.type !== 'flow') continue;
    if (effect.operation === 'stop') stop = true;
    else {
      resume = true;
      if (effect.instruction !== undefined) instructions.push(effect.instruction);
    }
  }
  const flow = stop ? 'stop' : resume ? 'continue' : undefined;
  if (flow === 'continue' && !hasAllowance(capabilities)) {
    return reject('capability', 'carried continuation has no remaining allowance');
  }

  // Rule 8: accepted injections accumulate after any carried from earlier interceptors.
  const injectEffects = effects.filter((effect) => effect.type === 'inject');
  const injections =
    state?.injections !== undefined || injectEffects.length > 0
      ? [...(state?.injections ?? []), ...injectEffects.map((effect) => effect as unknown as JsonValue)]
      : undefined;

  // Rule 6: explicit message texts only.
  const messages = effects.flatMap((effect) => (effect.type === 'message' ? [effect.text] : []));

  // Rule 9: derive the result only now, after the whole response was accepted.
  // A candidate stands in for the original tool call, so only a tool boundary can select one.
  const candidateApplies = toolBoundary && decision === 'allow' && flow !== 'stop' && candidate !== null;
  const executed = toolBoundary && decision === 'allow' && flow !== 'stop' && candidate === null;

  const result: ApplicationResult = { decision, executed, messages };
  if (toolBoundary && input !== undefined) result.input = input;
  if (candidateApplies && candidate) result.result = candidate.value;
  if (flow) {
    result.flow = flow;
    result.continuationInstructions = instructions;
    const remaining = capabilities.flow?.remainingContinuations;
    if (typeof remaining === 'number') result.continuationRemaining = flow === 'continue' ? remaining - 1 : remaining;
  } else if (instructions.length > 0) {
    result.continuationInstructions = instructions;
  }
  if (injections) result.injections = injections;
  return { accepted: true, result: cloneJson(result) };
}
