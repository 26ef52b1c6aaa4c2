// Requests inside a host envelope (host-envelope.ts): the `host` fuzz profile's request side. Same
// protocol shapes as the wide generator (arbitraries.ts), narrowed: only the envelope's boundaries,
// capability sets that are subsets of its offers, continuations within its limit, incoming state such
// a host could have produced, and tool calls shaped like the canonical fixtures' (the fixture host's
// tool `task` on one of the manifest's tool paths, else on `native`; an input object with a positive-integer `task` and a few plain members).

import fc from 'fast-check';

import {
  BOUNDARY_MODIFY_TARGET,
  canContinue,
  contentId,
  eventTime,
  finishRequestOf,
  incomingState,
  messages,
  nonEmptySubset,
  positiveTask,
  requestEnvelope,
  scenarioId,
  type Boundary,
  type FlowOperation,
  type StateOptions,
} from '../generate/arbitraries.ts';
import type { JsonObject, JsonValue } from '../protocol/json.ts';
import type { DeliverAt, InterceptCapabilities, InterceptRequest, ModifyAdvertisement, PermissionState } from '../protocol/messages.ts';
import { FIXTURE_HOST_SOURCE, FIXTURE_HOST_TOOL, FIXTURE_HOST_TOOL_PATH } from '../oracle/fixture-host.ts';
import type { BoundaryOffer, HostEnvelope } from './host-envelope.ts';

/** Continuations drawn when the envelope gives no limit (as the wide generator). */
const UNBOUNDED_CONTINUATIONS = 6;
const UNBOUNDED_REMAINING = 4;

const plainLeaf: fc.Arbitrary<JsonValue> = fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: 1000 }), fc.boolean());

/** A tool input like the canonical fixtures': `task` (positive integer) first, then 0–3 plain members. */
export const canonicalToolInput: fc.Arbitrary<JsonObject> = fc
  .tuple(
    positiveTask,
    fc.dictionary(
      fc.constantFrom('keep', 'options', 'path', 'mode', 'note'),
      fc.oneof(plainLeaf, fc.dictionary(fc.constantFrom('limit', 'recursive', 'depth', 'pattern'), plainLeaf, { maxKeys: 3 })),
      { maxKeys: 3 },
    ),
  )
  .map(([task, extras]) => ({ task, ...extras }) as JsonObject);

/** A hooks/intercept request inside `envelope`, at any boundary it offers. */
export function envelopeRequest(envelope: HostEnvelope): fc.Arbitrary<InterceptRequest> {
  const choices: Array<fc.Arbitrary<InterceptRequest>> = [];
  const tool = envelope.boundaries['tool.before'];
  const finish = envelope.boundaries['turn.finish.before'];
  if (tool) choices.push(toolBeforeInside(envelope, tool));
  if (finish) choices.push(finishInside(envelope, finish));
  return fc.oneof(...choices);
}

function toolBeforeInside(envelope: HostEnvelope, offer: BoundaryOffer): fc.Arbitrary<InterceptRequest> {
  return fc
    .record({
      id: scenarioId,
      time: eventTime,
      callId: contentId,
      path: fc.constantFrom(...(envelope.toolPaths ?? [FIXTURE_HOST_TOOL_PATH])),
      input: canonicalToolInput,
      capabilities: capabilitiesInside('tool.before', offer),
      state: incomingState('tool.before', stateInside('tool.before', offer)),
    })
    .map(({ id, time, callId, path, input, capabilities, state }) =>
      requestEnvelope(
        id,
        // The tool is always the fixture host's `task`: its task rule is keyed to that name.
        { id, source: FIXTURE_HOST_SOURCE, type: 'tool.before', time, call: { id: callId }, tool: { ...FIXTURE_HOST_TOOL, input }, path },
        capabilities,
        state,
      ),
    );
}

function finishInside(envelope: HostEnvelope, offer: BoundaryOffer): fc.Arbitrary<InterceptRequest> {
  const maxCount = envelope.maxContinuations ?? UNBOUNDED_CONTINUATIONS;
  return fc
    .record({
      id: scenarioId,
      time: eventTime,
      turnId: contentId,
      outcome: fc.constantFrom('completed', 'failed', 'cancelled', 'max_iterations'),
      continuationCount: fc.nat(maxCount),
      items: messages,
    })
    .chain((event) =>
      capabilitiesInside('turn.finish.before', offer, { count: event.continuationCount, max: envelope.maxContinuations }).chain((capabilities) =>
        incomingState('turn.finish.before', stateInside('turn.finish.before', offer), canContinue(capabilities)).map((state) =>
          finishRequestOf({ ...event, source: FIXTURE_HOST_SOURCE }, capabilities, state),
        ),
      ),
    );
}

/** A narrowing of `offer`: any subset of its effects, each option block a non-empty subset of the offer's. */
function capabilitiesInside(
  boundary: Boundary,
  offer: BoundaryOffer,
  continuations?: { count: number; max: number | undefined },
): fc.Arbitrary<InterceptCapabilities> {
  const flowOffer = offer.flow;
  const remainingCap = Math.max(
    0,
    Math.min(
      flowOffer?.remainingContinuations ?? UNBOUNDED_REMAINING,
      continuations?.max === undefined ? UNBOUNDED_REMAINING : continuations.max - continuations.count,
    ),
  );
  return fc
    .record({
      effects: fc.shuffledSubarray([...offer.effects]),
      modify: modifyInside(offer.modify),
      operations: flowOffer ? nonEmptySubset(flowOffer.operations) : fc.constant<FlowOperation[]>([]),
      remaining: fc.integer({ min: 0, max: remainingCap }),
      allowance: fc.constantFrom<'required' | 'with-max' | 'omitted'>('required', 'with-max', 'omitted'),
      deliverAt: offer.inject ? nonEmptySubset(offer.inject.deliverAt) : fc.constant<DeliverAt[]>([]),
    })
    .map(({ effects, modify, operations, remaining, allowance, deliverAt }) => {
      const capabilities: InterceptCapabilities = { effects };
      if (effects.includes('modify') && modify) capabilities.modify = { [BOUNDARY_MODIFY_TARGET[boundary]]: modify };
      if (effects.includes('flow')) {
        const flow: NonNullable<InterceptCapabilities['flow']> = { operations };
        if (continuations && (operations.includes('continue') || allowance !== 'omitted')) {
          flow.remainingContinuations = remaining;
          flow.continuationCount = continuations.count;
          if (allowance === 'with-max') flow.maxContinuations = continuations.count + remaining;
        }
        capabilities.flow = flow;
      }
      if (effects.includes('inject')) capabilities.inject = { context: { append: true, deliverAt } };
      return capabilities;
    });
}

function modifyInside(offered: ModifyAdvertisement | undefined): fc.Arbitrary<ModifyAdvertisement | undefined> {
  if (!offered) return fc.constant(undefined);
  const combos: ModifyAdvertisement[] = [
    { replace: true, merge: true },
    { replace: true, merge: false },
    { replace: false, merge: true },
  ].filter((combo) => (!combo.replace || offered.replace) && (!combo.merge || offered.merge));
  return fc.constantFrom(...combos);
}

/** Incoming state a host offering only `offer` could have produced at `boundary`. */
function stateInside(boundary: Boundary, offer: BoundaryOffer): StateOptions {
  const offered = new Set<string>(offer.effects);
  const permissions: PermissionState[] = ['none', ...(['allow', 'ask', 'deny'] as const).filter((p) => offered.has(p))];
  const stop = offer.flow?.operations.includes('stop') === true;
  return {
    permissions,
    candidate: boundary === 'tool.before' && offered.has('return') ? 'any' : 'null',
    // `continue` is added by incomingState itself only when the request can continue.
    flows: stop ? ['none', 'stop', 'continue'] : ['none', 'continue'],
    instructions: offer.flow?.operations.includes('continue') === true,
    injectionDeliverAt: offer.inject?.deliverAt ?? [],
  };
}
