// Reusable fast-check arbitraries for whole hooks/intercept scenarios: requests at tool.before and
// turn.finish.before (event, capabilities, incoming chain state), valid effect lists within what the
// request advertises, and deliberately invalid effects labelled with the layer that must refuse them.
//
// Everything an arbitrary here calls "valid" is valid against the canonical draft schemas (and ours):
// capabilities stay inside the event's bounds (tool.before: flow ops only `stop`, modify only
// `input`; turn.finish.before: effects only modify/flow/message, modify only `response`), requests
// carry request.id === event.id, and valid modify effects keep the fixture host's positive-integer
// `task` rule so a generated valid response is accepted as a whole. The oracle property suite and,
// later, adapter fuzzing both build on these; nothing here knows about either.

import fc from 'fast-check';

import { FIXTURE_HOST_TOOL } from '../oracle/fixture-host.ts';
import type { JsonObject, JsonValue } from '../protocol/json.ts';
import {
  PROTOCOL_VERSION,
  type DeliverAt,
  type Effect,
  type EffectType,
  type FlowState,
  type InjectEffect,
  type InterceptCapabilities,
  type InterceptRequest,
  type InterceptResponse,
  type InterceptState,
  type ModifyAdvertisement,
  type PermissionState,
} from '../protocol/messages.ts';
import type { RejectionLayer } from '../oracle/types.ts';

// ----- run parameters ------------------------------------------------------------------------------

export const DEFAULT_FUZZ_SEED = 0x0a4f_5eed;
export const DEFAULT_FUZZ_RUNS = 200;

/**
 * Seed and run count for property runs: fixed by default so runs are reproducible, overridable with
 * `AHP_FUZZ_SEED` (any integer) and `AHP_FUZZ_RUNS` (positive integer).
 */
export function fuzzParameters(env: NodeJS.ProcessEnv = process.env): { seed: number; numRuns: number } {
  const seedText = env.AHP_FUZZ_SEED?.trim();
  const runsText = env.AHP_FUZZ_RUNS?.trim();
  const seed = seedText ? Number(seedText) : DEFAULT_FUZZ_SEED;
  const numRuns = runsText ? Number(runsText) : DEFAULT_FUZZ_RUNS;
  if (!Number.isSafeInteger(seed)) throw new Error(`AHP_FUZZ_SEED: expected an integer, got ${JSON.stringify(seedText)}`);
  if (!Number.isSafeInteger(numRuns) || numRuns < 1) {
    throw new Error(`AHP_FUZZ_RUNS: expected a positive integer, got ${JSON.stringify(runsText)}`);
  }
  return { seed: seed | 0, numRuns };
}

// ----- shared vocabulary ---------------------------------------------------------------------------

export type Boundary = 'tool.before' | 'turn.finish.before';
export type FlowOperation = 'stop' | 'continue';
export type ModifyOperation = 'replace' | 'merge';

/** Effect types the canonical capabilities schema allows to be advertised at each boundary. */
export const BOUNDARY_EFFECTS: Record<Boundary, readonly EffectType[]> = {
  'tool.before': ['deny', 'allow', 'ask', 'modify', 'inject', 'flow', 'return', 'message'],
  'turn.finish.before': ['modify', 'flow', 'message'],
};
export const BOUNDARY_MODIFY_TARGET: Record<Boundary, 'input' | 'response'> = {
  'tool.before': 'input',
  'turn.finish.before': 'response',
};
export const BOUNDARY_FLOW_OPERATIONS: Record<Boundary, readonly FlowOperation[]> = {
  'tool.before': ['stop'],
  'turn.finish.before': ['stop', 'continue'],
};
export const PERMISSIONS: readonly PermissionState[] = ['none', 'allow', 'ask', 'deny'];
export const DELIVER_AT: readonly DeliverAt[] = ['now', 'next_turn'];

export interface GeneratedScenario {
  request: InterceptRequest;
  response: InterceptResponse;
}

// ----- JSON values ---------------------------------------------------------------------------------

/** Any JSON value (incl. null, false, 0, "", [] and {}), bounded in depth so rows stay readable. */
export const anyJson: fc.Arbitrary<JsonValue> = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>;

/** Fresh false-like values: every call yields new containers, never a shared instance. */
export const falseLike: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constant(null),
  fc.constant(false),
  fc.constant(0),
  fc.constant(''),
  fc.constant(0).map((): JsonValue => []),
  fc.constant(0).map((): JsonValue => ({})),
);

/** Property names for generated objects: short identifiers, never `task` and never `__proto__`. */
export const inputKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('path', 'mode', 'options', 'limit', 'flag', 'note', 'nested', 'items', 'timeout', 'dryRun'),
  fc.stringMatching(/^[a-z][A-Za-z0-9_]{0,7}$/),
).filter((key) => key !== 'task' && key !== '__proto__');

const inputLeaf: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 3, arbitrary: falseLike },
  { weight: 2, arbitrary: fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true })) },
  { weight: 1, arbitrary: anyJson },
);

const inputValue: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 3, arbitrary: inputLeaf },
  { weight: 2, arbitrary: fc.dictionary(inputKey, inputLeaf, { maxKeys: 3 }) as fc.Arbitrary<JsonValue> },
  {
    weight: 1,
    arbitrary: fc.dictionary(inputKey, fc.dictionary(inputKey, inputLeaf, { maxKeys: 2 }), { maxKeys: 2 }) as fc.Arbitrary<JsonValue>,
  },
);

/** A positive integer, biased small but reaching MAX_SAFE_INTEGER. */
export const positiveTask: fc.Arbitrary<number> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 100 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }) },
);

/** `task` values the fixture host refuses: zero, negatives, fractions, booleans, strings, null. */
export const invalidTask: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constantFrom<JsonValue>(0, -1, 1.5, true, false, '1', null),
  fc.integer({ max: 0 }),
);

/** Extra input members (never `task`): nested objects, nulls and false-like values. */
export const inputExtras: fc.Arbitrary<JsonObject> = fc.dictionary(inputKey, inputValue, { maxKeys: 4 }) as fc.Arbitrary<JsonObject>;

/** A tool input the fixture host accepts: an object whose `task` is a positive integer, at any key position. */
export const toolInput: fc.Arbitrary<JsonObject> = fc
  .tuple(positiveTask, inputExtras, fc.nat())
  .map(([task, extras, position]) => {
    const entries = Object.entries(extras);
    entries.splice(position % (entries.length + 1), 0, ['task', task]);
    return Object.fromEntries(entries) as JsonObject;
  });

// ----- content ---------------------------------------------------------------------------------------

export const contentId = fc.stringMatching(/^[a-z][a-z0-9-]{0,7}$/);

/** A canonical text body part. */
export const textPart: fc.Arbitrary<JsonObject> = fc.record({
  id: contentId,
  kind: fc.constant('text'),
  mediaType: fc.constant('text/plain'),
  selection: fc.constant('body'),
  text: fc.string({ maxLength: 24 }),
});

/** Canonical messages (inject values, modify response values, finish items). */
export const messages: fc.Arbitrary<JsonObject[]> = fc.array(
  fc.record({
    id: contentId,
    role: fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool'),
    parts: fc.array(textPart, { maxLength: 2 }),
  }) as fc.Arbitrary<JsonObject>,
  { maxLength: 2 },
);

// ----- events and requests ----------------------------------------------------------------------------

/** Scenario/request/event id (also usable as a scenario-file id). */
export const scenarioId: fc.Arbitrary<string> = fc.stringMatching(/^[a-z0-9]{1,8}$/).map((suffix) => `fuzz-${suffix}`);

export const eventTime = fc
  .integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2030, 0, 1) })
  .map((ms) => new Date(ms).toISOString());
const eventSource = fc.constantFrom('https://agent.example.test/hooks', 'urn:ahp:conformance:fuzz');
// The fixture host's own tool comes first (fast-check shrinks towards it): its task rule is keyed to
// that name, so a task-rule outcome on any of the others is undefined by the protocol
// (../oracle/fixture-host.ts), and the fuzz triage says so instead of charging a client.
const toolName = fc.constantFrom(FIXTURE_HOST_TOOL.name, 'shell', 'read_file', 'write_file', 'search', 'fetch');

export interface CapabilityOptions {
  /** Effect types that must be advertised (must be allowed at the boundary). */
  require?: readonly EffectType[];
  /** Effect types that must not be advertised. */
  exclude?: readonly EffectType[];
  /** Modify operations that must be advertised whenever modify is. */
  modifyOperations?: readonly ModifyOperation[];
  /** Flow operations that must be advertised whenever flow is (finish: stop and/or continue). */
  flowOperations?: readonly FlowOperation[];
  /** Lower bound of flow.remainingContinuations when continue is advertised (finish only). */
  minRemainingContinuations?: number;
}

export interface StateOptions {
  /** `absent` omits params.state, `present` always sends it; default either. */
  presence?: 'any' | 'absent' | 'present';
  /** Incoming permissions to draw from (default all four). */
  permissions?: readonly PermissionState[];
  /** Incoming candidate: `null`, `{value}`, or either (default: either at tool.before, null at finish). */
  candidate?: 'any' | 'null' | 'value';
  /** Incoming flow values to draw from when the optional `flow` member is sent (default per boundary). */
  flows?: readonly FlowState[];
  /** Whether optional members (flow, instructions, injections) may be sent (default true). */
  optionalMembers?: boolean;
  /** Whether finish state may carry `instructions` (default true; a host without continue never has any). */
  instructions?: boolean;
  /** deliverAt values incoming `injections` may use (default both; empty: never sent). */
  injectionDeliverAt?: readonly DeliverAt[];
}

export interface RequestOptions {
  capabilities?: CapabilityOptions;
  state?: StateOptions;
}

function checkRequired(boundary: Boundary, options: CapabilityOptions): void {
  for (const type of options.require ?? []) {
    if (!BOUNDARY_EFFECTS[boundary].includes(type)) throw new Error(`${boundary} cannot advertise effect type "${type}"`);
  }
  for (const op of options.flowOperations ?? []) {
    if (!BOUNDARY_FLOW_OPERATIONS[boundary].includes(op)) throw new Error(`${boundary} cannot advertise flow operation "${op}"`);
  }
}

/** Random, schema-valid subset of the boundary's effect types in random order (honouring require/exclude). */
function advertisedEffects(boundary: Boundary, options: CapabilityOptions): fc.Arbitrary<EffectType[]> {
  checkRequired(boundary, options);
  const exclude = new Set(options.exclude ?? []);
  const pool = BOUNDARY_EFFECTS[boundary].filter((type) => !exclude.has(type));
  const required = (options.require ?? []).filter((type) => !exclude.has(type));
  return fc.shuffledSubarray([...pool]).chain((subset) => {
    const all = [...subset, ...required.filter((type) => !subset.includes(type))];
    return fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length });
  });
}

function modifyAdvertisement(options: CapabilityOptions): fc.Arbitrary<ModifyAdvertisement> {
  const required = new Set(options.modifyOperations ?? []);
  return fc
    .constantFrom<[boolean, boolean]>([true, true], [true, false], [false, true])
    .map(([replace, merge]) => ({ replace: replace || required.has('replace'), merge: merge || required.has('merge') }));
}

export function nonEmptySubset<T>(items: readonly T[], required: readonly T[] = []): fc.Arbitrary<T[]> {
  return fc.shuffledSubarray([...items], { minLength: 1 }).chain((subset) => {
    const all = [...subset, ...required.filter((item) => !subset.includes(item))];
    return fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length });
  });
}

/** The optional inject advertisement with a random non-empty deliverAt subset. */
export const injectAdvertisement = nonEmptySubset(DELIVER_AT).map((deliverAt) => ({
  context: { append: true as const, deliverAt },
}));

/** tool.before capabilities: modify only `input`, flow only `stop`, members present iff advertised. */
export function toolCapabilities(options: CapabilityOptions = {}): fc.Arbitrary<InterceptCapabilities> {
  return fc
    .record({
      effects: advertisedEffects('tool.before', options),
      modify: modifyAdvertisement(options),
      inject: injectAdvertisement,
    })
    .map(({ effects, modify, inject }) => {
      const capabilities: InterceptCapabilities = { effects };
      if (effects.includes('modify')) capabilities.modify = { input: modify };
      if (effects.includes('flow')) capabilities.flow = { operations: ['stop'] };
      if (effects.includes('inject')) capabilities.inject = inject;
      return capabilities;
    });
}

/**
 * turn.finish.before capabilities for an event that already saw `continuationCount` continuations:
 * effects ⊆ modify/flow/message, modify only `response`; when continue is advertised the allowance
 * (remainingContinuations, continuationCount) is present, as the canonical request schema requires,
 * and continuationCount matches the event's. maxContinuations, when sent, is count + remaining.
 */
export function finishCapabilities(
  continuationCount: number,
  options: CapabilityOptions = {},
): fc.Arbitrary<InterceptCapabilities> {
  return fc
    .record({
      effects: advertisedEffects('turn.finish.before', options),
      modify: modifyAdvertisement(options),
      operations: nonEmptySubset(BOUNDARY_FLOW_OPERATIONS['turn.finish.before'], options.flowOperations),
      remaining: fc.integer({ min: options.minRemainingContinuations ?? 0, max: Math.max(options.minRemainingContinuations ?? 0, 4) }),
      allowance: fc.constantFrom<'required' | 'with-max' | 'omitted'>('required', 'with-max', 'omitted'),
    })
    .map(({ effects, modify, operations, remaining, allowance }) => {
      const capabilities: InterceptCapabilities = { effects };
      if (effects.includes('modify')) capabilities.modify = { response: modify };
      if (effects.includes('flow')) {
        const flow: NonNullable<InterceptCapabilities['flow']> = { operations };
        if (operations.includes('continue') || allowance !== 'omitted') {
          flow.remainingContinuations = remaining;
          flow.continuationCount = continuationCount;
          if (allowance === 'with-max') flow.maxContinuations = continuationCount + remaining;
        }
        capabilities.flow = flow;
      }
      return capabilities;
    });
}

/** A remaining allowance of at least one, i.e. a `continue` the request can accept. */
export function canContinue(capabilities: InterceptCapabilities): boolean {
  const flow = capabilities.flow;
  return (
    !!flow &&
    flow.operations.includes('continue') &&
    typeof flow.remainingContinuations === 'number' &&
    flow.remainingContinuations >= 1
  );
}

/** An inject effect (also what incoming `state.injections` carries). */
export function injectEffect(deliverAt: readonly DeliverAt[] = DELIVER_AT): fc.Arbitrary<InjectEffect> {
  return fc.record({
    type: fc.constant('inject' as const),
    target: fc.constant('context' as const),
    operation: fc.constant('append' as const),
    deliverAt: fc.constantFrom(...deliverAt),
    value: messages as fc.Arbitrary<JsonValue[]>,
  });
}

/** A continuation instruction (non-empty text). */
export const instruction = fc.string({ minLength: 1, maxLength: 16 });

/**
 * Incoming chain state. `permission` and `candidate` are always present when state is; a candidate is
 * null or `{value}` with any JSON (null included) and optional provenance. Optional members: `flow`
 * (tool.before: none/stop; finish: none/stop, plus continue only when `allowContinue`),
 * `instructions` (finish), `injections` (tool.before).
 */
export function incomingState(
  boundary: Boundary,
  options: StateOptions = {},
  allowContinue = false,
): fc.Arbitrary<InterceptState | undefined> {
  const candidateKind = options.candidate ?? (boundary === 'tool.before' ? 'any' : 'null');
  const candidateValue = fc.record(
    { value: anyJson, provenance: fc.record({ requestId: scenarioId }) },
    { requiredKeys: ['value'] },
  );
  const candidate: fc.Arbitrary<InterceptState['candidate']> =
    candidateKind === 'null'
      ? fc.constant(null)
      : candidateKind === 'value'
        ? candidateValue
        : fc.oneof(fc.constant(null), candidateValue);
  const defaultFlows: FlowState[] =
    boundary === 'tool.before' ? ['none', 'stop'] : allowContinue ? ['none', 'stop', 'continue'] : ['none', 'stop'];
  const flows = (options.flows ?? defaultFlows).filter((flow) => flow !== 'continue' || allowContinue);
  const optional = options.optionalMembers !== false;
  const injectionDeliverAt = options.injectionDeliverAt ?? DELIVER_AT;
  const state = fc
    .record({
      permission: fc.constantFrom(...(options.permissions ?? PERMISSIONS)),
      candidate,
      flow: optional && flows.length > 0 ? fc.option(fc.constantFrom(...flows), { nil: undefined }) : fc.constant(undefined),
      instructions:
        optional && boundary === 'turn.finish.before' && options.instructions !== false
          ? fc.option(fc.array(instruction, { maxLength: 2 }), { nil: undefined })
          : fc.constant(undefined),
      injections:
        optional && boundary === 'tool.before' && injectionDeliverAt.length > 0
          ? fc.option(fc.array(injectEffect(injectionDeliverAt), { maxLength: 2 }), { nil: undefined })
          : fc.constant(undefined),
    })
    .map((drawn) => {
      const value: InterceptState = { permission: drawn.permission, candidate: drawn.candidate };
      if (drawn.flow !== undefined) value.flow = drawn.flow;
      if (drawn.instructions !== undefined) value.instructions = drawn.instructions;
      if (drawn.injections !== undefined) value.injections = drawn.injections as unknown as JsonValue[];
      return value;
    });
  switch (options.presence ?? 'any') {
    case 'absent':
      return fc.constant(undefined);
    case 'present':
      return state;
    default:
      return fc.option(state, { nil: undefined, freq: 3 });
  }
}

/** The hooks/intercept request envelope around an event (request.id === event.id is the caller's). */
export function requestEnvelope(
  id: string,
  event: InterceptRequest['params']['event'],
  capabilities: InterceptCapabilities,
  state: InterceptState | undefined,
): InterceptRequest {
  const params: InterceptRequest['params'] = { protocolVersion: PROTOCOL_VERSION, event, capabilities };
  if (state !== undefined) params.state = state;
  return { jsonrpc: '2.0', id, method: 'hooks/intercept', params };
}

/** A schema-valid hooks/intercept request at tool.before (request.id === event.id). */
export function toolBeforeRequest(options: RequestOptions = {}): fc.Arbitrary<InterceptRequest> {
  return fc
    .record({
      id: scenarioId,
      source: eventSource,
      time: eventTime,
      callId: contentId,
      name: toolName,
      input: toolInput,
      capabilities: toolCapabilities(options.capabilities),
      state: incomingState('tool.before', options.state),
    })
    .map(({ id, source, time, callId, name, input, capabilities, state }) =>
      requestEnvelope(
        id,
        {
          id,
          source,
          type: 'tool.before',
          time,
          call: { id: callId },
          tool: { name, input, origin: 'native' },
          path: `/tools/${name}`,
        },
        capabilities,
        state,
      ),
    );
}

/** The drawn parts of a turn.finish.before event. */
export interface FinishEventParts {
  id: string;
  source: string;
  time: string;
  turnId: string;
  outcome: string;
  continuationCount: number;
  items: JsonObject[];
}

/** The turn.finish.before request around drawn event parts (request.id === event.id). */
export function finishRequestOf(event: FinishEventParts, capabilities: InterceptCapabilities, state: InterceptState | undefined): InterceptRequest {
  return requestEnvelope(
    event.id,
    {
      id: event.id,
      source: event.source,
      type: 'turn.finish.before',
      time: event.time,
      turn: { id: event.turnId },
      outcome: event.outcome,
      continuationCount: event.continuationCount,
      items: event.items as unknown as JsonValue,
    },
    capabilities,
    state,
  );
}

/**
 * A schema-valid hooks/intercept request at turn.finish.before with flow capabilities whose
 * remainingContinuations/continuationCount agree with the event (request.id === event.id).
 */
export function finishRequest(options: RequestOptions = {}): fc.Arbitrary<InterceptRequest> {
  return fc
    .record({
      id: scenarioId,
      source: eventSource,
      time: eventTime,
      turnId: contentId,
      outcome: fc.constantFrom('completed', 'failed', 'cancelled', 'max_iterations'),
      continuationCount: fc.nat(6),
      items: messages,
    })
    .chain((event) =>
      finishCapabilities(event.continuationCount, options.capabilities).chain((capabilities) =>
        incomingState('turn.finish.before', options.state, canContinue(capabilities)).map((state) => finishRequestOf(event, capabilities, state)),
      ),
    );
}

// ----- effects -------------------------------------------------------------------------------------

const reasonText = fc.string({ minLength: 1, maxLength: 16 });
const extensionName = fc.constantFrom('vendor.policy', 'acme.audit-log', 'x.rule_1');

export const denyEffect: fc.Arbitrary<Effect> = fc.record(
  { type: fc.constant('deny' as const), reason: reasonText, code: extensionName },
  { requiredKeys: ['type', 'reason'] },
);
export const allowEffect: fc.Arbitrary<Effect> = fc.constant(null).map((): Effect => ({ type: 'allow' }));
export const askEffect: fc.Arbitrary<Effect> = fc.constant(null).map((): Effect => ({ type: 'ask' }));
export const messageEffect: fc.Arbitrary<Effect> = fc.string({ maxLength: 16 }).map((text): Effect => ({ type: 'message', text }));
export const returnEffect: fc.Arbitrary<Effect> = anyJson.map((value): Effect => ({ type: 'return', value }));
export const stopEffect: fc.Arbitrary<Effect> = reasonText.map((reason): Effect => ({ type: 'flow', operation: 'stop', reason }));
export const continueEffect: fc.Arbitrary<Effect> = fc
  .option(instruction, { nil: undefined })
  .map((text): Effect => (text === undefined ? { type: 'flow', operation: 'continue' } : { type: 'flow', operation: 'continue', instruction: text }));

/** A modify of the tool input that keeps `task` a positive integer (merge may set or keep it). */
export function modifyInputEffect(operations: readonly ModifyOperation[]): fc.Arbitrary<Effect> {
  return fc.constantFrom(...operations).chain((operation) =>
    (operation === 'replace'
      ? toolInput
      : fc.tuple(inputExtras, fc.option(positiveTask, { nil: undefined })).map(([extras, task]) =>
          task === undefined ? extras : ({ ...extras, task } as JsonObject),
        )
    ).map((value): Effect => ({ type: 'modify', target: 'input', operation, value })),
  );
}

/** A modify of the turn's response (canonical messages). */
export function modifyResponseEffect(operations: readonly ModifyOperation[]): fc.Arbitrary<Effect> {
  return fc
    .tuple(fc.constantFrom(...operations), messages)
    .map(([operation, value]): Effect => ({ type: 'modify', target: 'response', operation, value: value as JsonValue }));
}

/**
 * A modify whose staged result is deeply equal to `input`: a replace by a key-reordered copy, or a
 * merge of a (possibly empty) subset of its own members with their own values.
 */
export function equalInputModify(input: JsonObject, operations: readonly ModifyOperation[]): fc.Arbitrary<Effect> {
  const keys = Object.keys(input);
  return fc.constantFrom(...operations).chain((operation) =>
    (operation === 'replace'
      ? fc.integer().map((seed) => reorderKeysDeep(input, seed) as JsonObject)
      : fc.shuffledSubarray(keys).map((subset) => Object.fromEntries(subset.map((key) => [key, structuredClone(input[key] as JsonValue)])) as JsonObject)
    ).map((value): Effect => ({ type: 'modify', target: 'input', operation, value })),
  );
}

function advertisedModifyOperations(capabilities: InterceptCapabilities, target: string): ModifyOperation[] {
  const advertised = capabilities.modify?.[target];
  if (!advertised) return [];
  return (['replace', 'merge'] as const).filter((operation) => advertised[operation] === true);
}

export interface EffectListOptions {
  /** Restrict to these types (intersected with what the request advertises). */
  types?: readonly EffectType[];
  minLength?: number;
  /** Default 8. */
  maxLength?: number;
}

/**
 * Arbitraries for one valid effect of each type the request advertises, using only advertised
 * targets, operations and deliverAt values; `continue` only with a remaining allowance.
 */
export function effectChoices(request: InterceptRequest, types?: readonly EffectType[]): fc.Arbitrary<Effect>[] {
  const { capabilities, event } = request.params;
  const boundary = event.type as Boundary;
  const allowed = new Set(types ?? BOUNDARY_EFFECTS[boundary]);
  const choices: fc.Arbitrary<Effect>[] = [];
  for (const type of new Set(capabilities.effects)) {
    if (!allowed.has(type as EffectType)) continue;
    switch (type) {
      case 'deny':
        choices.push(denyEffect);
        break;
      case 'allow':
        choices.push(allowEffect);
        break;
      case 'ask':
        choices.push(askEffect);
        break;
      case 'message':
        choices.push(messageEffect);
        break;
      case 'return':
        choices.push(returnEffect);
        break;
      case 'modify': {
        const target = BOUNDARY_MODIFY_TARGET[boundary];
        const operations = advertisedModifyOperations(capabilities, target);
        if (operations.length > 0) choices.push(target === 'input' ? modifyInputEffect(operations) : modifyResponseEffect(operations));
        break;
      }
      case 'flow': {
        const operations = capabilities.flow?.operations ?? [];
        if (operations.includes('stop')) choices.push(stopEffect);
        if (operations.includes('continue') && canContinue(capabilities)) choices.push(continueEffect);
        break;
      }
      case 'inject': {
        const deliverAt = capabilities.inject?.context.deliverAt ?? [];
        if (deliverAt.length > 0) choices.push(injectEffect(deliverAt));
        break;
      }
      default:
        break;
    }
  }
  return choices;
}

/** 0–8 valid effects drawn from every type the request advertises, in random order. */
export function effectsFor(request: InterceptRequest, options: EffectListOptions = {}): fc.Arbitrary<Effect[]> {
  const choices = effectChoices(request, options.types);
  if (choices.length === 0) return fc.constant(null).map((): Effect[] => []);
  return fc.array(fc.oneof(...choices), { minLength: options.minLength ?? 0, maxLength: options.maxLength ?? 8 });
}

/** The response envelope a conforming server would send for `effects`, correlated with `request`. */
export function responseTo(request: InterceptRequest, effects: Effect[]): InterceptResponse {
  return { jsonrpc: '2.0', id: request.id, result: { protocolVersion: PROTOCOL_VERSION, effects } };
}

export interface ScenarioOptions extends RequestOptions {
  effects?: EffectListOptions;
}

/** A tool.before request with a valid, accepted response. */
export function toolBeforeScenario(options: ScenarioOptions = {}): fc.Arbitrary<GeneratedScenario> {
  return toolBeforeRequest(options).chain((request) =>
    effectsFor(request, options.effects).map((effects) => ({ request, response: responseTo(request, effects) })),
  );
}

/** A turn.finish.before request with a valid, accepted response. */
export function finishScenario(options: ScenarioOptions = {}): fc.Arbitrary<GeneratedScenario> {
  return finishRequest(options).chain((request) =>
    effectsFor(request, options.effects).map((effects) => ({ request, response: responseTo(request, effects) })),
  );
}

/** Either boundary, with a valid, accepted response. */
export function validScenario(options: ScenarioOptions = {}): fc.Arbitrary<GeneratedScenario> {
  return fc.oneof(toolBeforeScenario(options), finishScenario(options));
}

// ----- invalid effects -------------------------------------------------------------------------------

export type InvalidEffectKind =
  | 'unknown-type'
  | 'missing-field'
  | 'extra-field'
  | 'bad-value'
  | 'unadvertised-type'
  | 'unadvertised-operation'
  | 'exhausted-continuation'
  | 'host-task-rule';

export interface InvalidEffect {
  kind: InvalidEffectKind;
  /** The layer that must refuse a response whose only fault is this effect. */
  layer: RejectionLayer;
  effect: JsonValue;
}

const KNOWN_TYPES = new Set<string>(BOUNDARY_EFFECTS['tool.before']);

const unknownType: fc.Arbitrary<JsonValue> = fc
  .tuple(
    fc.oneof(
      fc.constantFrom('approve', 'block', 'Deny', 'ALLOW', 'modify_input', 'vendor.audit', ''),
      fc.stringMatching(/^[a-z][a-z.]{0,10}$/),
    ).filter((type) => !KNOWN_TYPES.has(type)),
    fc.option(reasonText, { nil: undefined }),
  )
  .map(([type, reason]): JsonValue => (reason === undefined ? { type } : { type, reason }));

const missingField: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constant(null).map((): JsonValue => ({ type: 'deny' })),
  fc.constant(null).map((): JsonValue => ({ type: 'message' })),
  fc.constant(null).map((): JsonValue => ({ type: 'return' })),
  fc.constant(null).map((): JsonValue => ({ type: 'flow' })),
  fc.constant(null).map((): JsonValue => ({ type: 'flow', operation: 'stop' })),
  fc.constant(null).map((): JsonValue => ({ type: 'modify', target: 'input', operation: 'merge' })),
  fc.constant(null).map((): JsonValue => ({ type: 'modify', operation: 'replace', value: { task: 1 } })),
  fc.constant(null).map((): JsonValue => ({ type: 'inject', target: 'context', operation: 'append', value: [] })),
  reasonText.map((reason): JsonValue => ({ reason })),
);

const extraKey = fc.constantFrom('priority', 'note', 'meta', 'reasonCode', 'ttl');

/** A valid effect of any type plus one member its variant does not allow. */
const extraField: fc.Arbitrary<JsonValue> = fc
  .tuple(
    fc.oneof(
      denyEffect,
      allowEffect,
      askEffect,
      messageEffect,
      returnEffect,
      stopEffect,
      continueEffect,
      modifyInputEffect(['replace', 'merge']),
      injectEffect(),
    ),
    extraKey,
    anyJson,
  )
  .map(([effect, key, value]) => ({ ...(effect as unknown as JsonObject), [key]: value }));

const badValue: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constant(null).map((): JsonValue => ({ type: 'deny', reason: '' })),
  fc.constant(null).map((): JsonValue => ({ type: 'deny', reason: 'no', code: 'not a code' })),
  fc.constant(null).map((): JsonValue => ({ type: 'flow', operation: 'stop', reason: '' })),
  fc.constant(null).map((): JsonValue => ({ type: 'flow', operation: 'continue', instruction: '' })),
  fc.constant(null).map((): JsonValue => ({ type: 'flow', operation: 'pause' })),
  fc.integer().map((text): JsonValue => ({ type: 'message', text })),
  fc.oneof(fc.constant<JsonValue>('task=1'), fc.constant(0).map((): JsonValue => [{ task: 1 }]), fc.constant(null)).map(
    (value): JsonValue => ({ type: 'modify', target: 'input', operation: 'merge', value }),
  ),
  fc.constant(null).map((): JsonValue => ({ type: 'modify', target: 'input', operation: 'append', value: { task: 1 } })),
  fc.constant(null).map((): JsonValue => ({ type: 'inject', target: 'context', operation: 'append', deliverAt: 'later', value: [] })),
  fc.constant(null).map((): JsonValue => ({ type: 'inject', target: 'prompt', operation: 'append', deliverAt: 'now', value: [] })),
);

/** A well-formed effect of a type `request` does not advertise (undefined when it advertises all). */
function unadvertisedType(request: InterceptRequest): fc.Arbitrary<JsonValue> | undefined {
  const advertised = new Set(request.params.capabilities.effects);
  const choices: fc.Arbitrary<Effect>[] = [];
  if (!advertised.has('deny')) choices.push(denyEffect);
  if (!advertised.has('allow')) choices.push(allowEffect);
  if (!advertised.has('ask')) choices.push(askEffect);
  if (!advertised.has('message')) choices.push(messageEffect);
  if (!advertised.has('return')) choices.push(returnEffect);
  if (!advertised.has('flow')) choices.push(stopEffect, continueEffect);
  if (!advertised.has('inject')) choices.push(injectEffect());
  if (!advertised.has('modify')) choices.push(modifyInputEffect(['replace', 'merge']), modifyResponseEffect(['replace', 'merge']));
  return choices.length === 0 ? undefined : (fc.oneof(...choices) as fc.Arbitrary<JsonValue>);
}

/** Advertised effect type, but a target/operation/deliverAt the request does not advertise. */
function unadvertisedOperation(request: InterceptRequest): fc.Arbitrary<JsonValue> | undefined {
  const { capabilities, event } = request.params;
  const boundary = event.type as Boundary;
  const advertised = new Set(capabilities.effects);
  const choices: fc.Arbitrary<JsonValue>[] = [];
  if (advertised.has('modify')) {
    const target = BOUNDARY_MODIFY_TARGET[boundary];
    const ops = advertisedModifyOperations(capabilities, target);
    const missing = (['replace', 'merge'] as const).filter((op) => !ops.includes(op));
    if (missing.length > 0) {
      choices.push((target === 'input' ? modifyInputEffect(missing) : modifyResponseEffect(missing)) as fc.Arbitrary<JsonValue>);
    }
    // A target outside the boundary's bounds (the other boundary's target).
    choices.push(
      (target === 'input' ? modifyResponseEffect(['replace', 'merge']) : modifyInputEffect(['replace', 'merge'])) as fc.Arbitrary<JsonValue>,
    );
  }
  if (advertised.has('flow') && !(capabilities.flow?.operations ?? []).includes('continue')) {
    choices.push(continueEffect as fc.Arbitrary<JsonValue>);
  }
  if (advertised.has('flow') && !(capabilities.flow?.operations ?? []).includes('stop')) {
    choices.push(stopEffect as fc.Arbitrary<JsonValue>);
  }
  if (advertised.has('inject')) {
    const deliverAt = capabilities.inject?.context.deliverAt ?? [];
    const missing = DELIVER_AT.filter((at) => !deliverAt.includes(at));
    if (missing.length > 0) choices.push(injectEffect(missing) as fc.Arbitrary<JsonValue>);
  }
  return choices.length === 0 ? undefined : fc.oneof(...choices);
}

/** A continue the request advertises but cannot afford (remainingContinuations is 0). */
function exhaustedContinuation(request: InterceptRequest): fc.Arbitrary<JsonValue> | undefined {
  const { capabilities } = request.params;
  const flow = capabilities.flow;
  if (!capabilities.effects.includes('flow') || !flow?.operations.includes('continue') || canContinue(capabilities)) return undefined;
  return continueEffect as fc.Arbitrary<JsonValue>;
}

/** An advertised modify of the tool input that leaves `task` broken (fixture host rule). */
function hostTaskRule(request: InterceptRequest): fc.Arbitrary<JsonValue> | undefined {
  const { capabilities, event } = request.params;
  if (event.type !== 'tool.before' || !capabilities.effects.includes('modify')) return undefined;
  const ops = advertisedModifyOperations(capabilities, 'input');
  if (ops.length === 0) return undefined;
  return fc.tuple(fc.constantFrom(...ops), inputExtras, fc.option(invalidTask, { nil: undefined })).map(([operation, extras, task]) => {
    // merge must overwrite task with a bad value; replace may also simply omit it.
    const badTask = task === undefined && operation === 'merge' ? 0 : task;
    const value: JsonObject = badTask === undefined ? extras : { ...extras, task: badTask };
    return { type: 'modify', target: 'input', operation, value } as JsonValue;
  });
}

/**
 * One invalid effect for `request`, labelled with its kind and the layer that must refuse a
 * response whose only fault it is: schema (unknown type, missing field, extra field, bad value),
 * capability (unadvertised type or operation, exhausted continuation), application (task rule).
 * Kinds that `request` makes impossible (e.g. no unadvertised type left) are not drawn.
 */
export function invalidEffect(request: InterceptRequest, kinds?: readonly InvalidEffectKind[]): fc.Arbitrary<InvalidEffect> {
  const candidates: Array<[InvalidEffectKind, RejectionLayer, fc.Arbitrary<JsonValue> | undefined]> = [
    ['unknown-type', 'schema', unknownType],
    ['missing-field', 'schema', missingField],
    ['extra-field', 'schema', extraField],
    ['bad-value', 'schema', badValue],
    ['unadvertised-type', 'capability', unadvertisedType(request)],
    ['unadvertised-operation', 'capability', unadvertisedOperation(request)],
    ['exhausted-continuation', 'capability', exhaustedContinuation(request)],
    ['host-task-rule', 'application', hostTaskRule(request)],
  ];
  const wanted = new Set(kinds ?? candidates.map(([kind]) => kind));
  const usable = candidates.filter(
    (entry): entry is [InvalidEffectKind, RejectionLayer, fc.Arbitrary<JsonValue>] => entry[2] !== undefined && wanted.has(entry[0]),
  );
  if (usable.length === 0) throw new Error(`no invalid effect of kinds ${[...wanted].join(', ')} is possible for this request`);
  return fc.oneof(...usable.map(([kind, layer, effect]) => effect.map((value): InvalidEffect => ({ kind, layer, effect: value }))));
}

// ----- helpers for building variants -------------------------------------------------------------------

/** Insert `item` into a copy of `list` at `position` (taken modulo length + 1). */
export function insertAt<T>(list: readonly T[], item: T, position: number): T[] {
  const copy = [...list];
  copy.splice(Math.abs(position) % (copy.length + 1), 0, item);
  return copy;
}

/**
 * A deep copy of `value` whose object keys are in a different order, chosen by `seed`
 * (deterministic, so a shrunk counterexample reproduces). Arrays keep their order.
 */
export function reorderKeysDeep<T extends JsonValue>(value: T, seed: number): T {
  let state = seed | 0 || 1;
  const next = (): number => {
    // xorshift32
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  const visit = (node: JsonValue): JsonValue => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const entries = Object.entries(node);
    for (let i = entries.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [entries[i], entries[j]] = [entries[j]!, entries[i]!];
    }
    return Object.fromEntries(entries.map(([key, child]) => [key, visit(child)]));
  };
  return visit(value) as T;
}
