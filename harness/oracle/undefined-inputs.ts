// What the protocol leaves undefined: the inputs whose outcome neither the seed's nine rules nor the
// protocol's canonical rows settle. The oracle still computes a verdict for them (it must, to be a
// total function), but that verdict is our extrapolation, so nothing may charge an SDK for disagreeing
// with it: our generators refuse to write such rows as assertions, and the fuzz triage reports a
// disagreement confined to these aspects as `undefined by the protocol`, not as a fault.
//
// The model is deliberately narrow. Each aspect names the request member it comes from, why its
// outcome is undefined (and by which source), and the parts of the outcome it can move. A
// disagreement counts as confined only when every part it differs in is one of those parts; a client
// that also gets a defined part wrong is still at fault.

import type { InterceptRequest } from '../protocol/messages.ts';
import { taskRuleScope, FIXTURE_HOST_TOOL } from './fixture-host.ts';
import type { RESULT_KEYS } from './types.ts';

/** A part of the oracle's outcome: acceptance itself (`verdict`), or one key of the accepted result. */
export type OutcomePart = 'verdict' | (typeof RESULT_KEYS)[number];

export type UndefinedAspectId = 'carried-flow' | 'carried-instructions' | 'carried-injections' | 'task-rule-other-tool';

export interface UndefinedAspect {
  id: UndefinedAspectId;
  /** Where in the request it sits, e.g. `params.state.flow`. */
  path: string;
  /** Why its outcome is undefined, in one sentence. */
  reason: string;
  /** The seed rule or document the reason rests on. */
  source: string;
  /** The parts of the outcome the oracle's extrapolation decides for it. */
  affects: readonly OutcomePart[];
}

/** What the oracle concluded about the response, as far as the model needs it. */
export interface OracleFacts {
  /** The response is refused by the fixture host's task rule alone (the SDK-level view accepts it). */
  taskRuleDecides: boolean;
}

// Rule 1 carries exactly two members of incoming state into a row: permission and candidate. The
// schema also lets a host carry `flow`, `instructions` and `injections` from interceptors that ran
// before, i.e. from several subscriptions dispatched serially, which the seed lists under "Not
// represented"; no canonical row carries any of the three.
const CARRIED_STATE_SOURCE =
  'seed rule 1 (incoming state: permission and candidate only); "Not represented: multiple subscriptions dispatched serially"; no canonical row carries it';

const FLOW_PARTS: readonly OutcomePart[] = ['verdict', 'flow', 'executed', 'result', 'continuationInstructions', 'continuationRemaining'];

/**
 * The undefined aspects of one request (and, through `facts`, of its response); empty when the whole
 * outcome is defined. Pure and cheap: it reads a few members of the request.
 */
export function undefinedAspects(request: InterceptRequest, facts?: OracleFacts): UndefinedAspect[] {
  const aspects: UndefinedAspect[] = [];
  const { event, state } = request.params;
  const at = event.type;
  if (state?.flow === 'stop' || state?.flow === 'continue') {
    aspects.push({
      id: 'carried-flow',
      path: 'params.state.flow',
      reason:
        at === 'turn.finish.before'
          ? `an incoming state.flow "${state.flow}" at ${at}: how a carried flow resolves, and how a carried continue counts against the continuation allowance, is defined nowhere`
          : `an incoming state.flow "${state.flow}" at ${at}: how a carried flow combines with this response's effects and the execution decision is defined nowhere`,
      source: CARRIED_STATE_SOURCE,
      affects: FLOW_PARTS,
    });
  }
  if ((state?.instructions?.length ?? 0) > 0) {
    aspects.push({
      id: 'carried-instructions',
      path: 'params.state.instructions',
      reason: `carried continuation instructions at ${at}: whether they join this response's instructions, and in which order, is defined nowhere`,
      source: CARRIED_STATE_SOURCE,
      affects: ['continuationInstructions'],
    });
  }
  if ((state?.injections?.length ?? 0) > 0) {
    aspects.push({
      id: 'carried-injections',
      path: 'params.state.injections',
      reason: `carried injections at ${at}: whether they are reported with this response's accepted injects, and in which order, is defined nowhere`,
      source: CARRIED_STATE_SOURCE,
      affects: ['injections'],
    });
  }
  if (facts?.taskRuleDecides === true && taskRuleScope(event) === 'other-tool') {
    aspects.push({
      id: 'task-rule-other-tool',
      path: 'params.event.tool.name',
      reason: `the fixture host's positive-integer task rule decides this response, but the tool is ${JSON.stringify(event.tool?.name)}, not the fixture host's ${JSON.stringify(FIXTURE_HOST_TOOL.name)}: whether a host applies the rule to another tool is defined nowhere`,
      source: 'seed rule 4 ("local fixture behavior"); the protocol\'s scenarios key the rule to the tool `task`',
      affects: ['verdict', 'executed'],
    });
  }
  return aspects;
}

/**
 * Whether a disagreement in `parts` is confined to `aspects`: at least one part differs, and every
 * differing part is one the undefined aspects decide.
 */
export function confinedToUndefined(parts: readonly OutcomePart[], aspects: readonly UndefinedAspect[]): boolean {
  if (parts.length === 0 || aspects.length === 0) return false;
  const open = new Set(aspects.flatMap((aspect) => aspect.affects));
  return parts.every((part) => open.has(part));
}

/** One line per aspect, for messages and descriptions: `path: reason (source)`. */
export function describeUndefined(aspects: readonly UndefinedAspect[]): string {
  return aspects.map((aspect) => `${aspect.path}: ${aspect.reason} (${aspect.source})`).join('; ');
}
