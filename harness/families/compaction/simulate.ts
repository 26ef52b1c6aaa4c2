// A pure model of the compaction runtime COMPACTION-RULES §4 describes, from which the generator
// computes every expected value of a case (instructions, generation, application, failures, summary,
// downstream, `seen` and the exchanges in call order). Nothing here is typed in per case: a case is
// its hooks and receiver actions, and the expectations follow from these semantics:
// - hooks run one at a time in declared order, each seeing the state the earlier ones left;
// - accepted instruction edits are visible to later hooks and to the generator, whose output is
//   "summary:" + the instructions' text;
// - an accepted `return` supplies the summary and skips generation; the after hooks still run on it;
// - a reply invalid at its boundary is rejected whole (nothing of it is committed) and is a hook failure;
// - fail-open keeps the earlier state and goes on; fail-closed before: no generation, no after
//   boundary, no summary, not applied; fail-closed after: the remaining after hooks do not run, not
//   applied, the last accepted summary and the generation stay.
// What the rules leave out of scope (accepted messages, deny, a second return, edits after a return)
// is refused with a SimulationError rather than guessed.

import { isJsonObject, type JsonObject } from '../../protocol/json.ts';
import { scopeOf, type Boundary, type CompactionExpected, type CompactionHook, type ExpectedExchange, type ReceiverAction, type TextTarget } from './case-types.ts';
import { modifyEffect, tryInlineText } from './text-parts.ts';

export class SimulationError extends Error {
  override readonly name = 'SimulationError';
}

export interface SimulatedCase {
  id: string;
  before: readonly CompactionHook[];
  after: readonly CompactionHook[];
}

/** The instructions every case starts from. */
export const BASE_INSTRUCTIONS = 'base';
export const GENERATOR_PREFIX = 'summary:';

/** The boundary's editable text: instructions before, summary after. */
export function targetOf(boundary: Boundary): TextTarget {
  return boundary === 'before' ? 'instructions' : 'summary';
}

/** What a receiver configured with `action` answers to an event whose boundary text is `text`. */
export function receiverEffects(action: ReceiverAction, text: string): JsonObject[] {
  if (action.kind === 'effects') return action.effects;
  return [modifyEffect(action.target, text + action.suffix)];
}

type Verdict = { accepted: false } | { accepted: true; text?: string; supplied?: string };

/**
 * The sender's judgement of a reply's effect list at a boundary: accepted with what it changes, or
 * rejected whole. Before: `modify` of instructions (replace, text parts) and `return` (text parts);
 * after: `modify` of the summary. Any other effect, target, operation or value makes the compound
 * invalid there.
 */
function judgeReply(caseId: string, boundary: Boundary, effects: readonly JsonObject[]): Verdict {
  let text: string | undefined;
  let supplied: string | undefined;
  for (const effect of effects) {
    if (!isJsonObject(effect)) return { accepted: false };
    if (effect.type === 'modify') {
      if (effect.target !== targetOf(boundary) || effect.operation !== 'replace') return { accepted: false };
      const value = tryInlineText(effect.value);
      if (!value.ok) return { accepted: false };
      text = value.text;
    } else if (effect.type === 'return' && boundary === 'before') {
      const value = tryInlineText(effect.value);
      if (!value.ok) return { accepted: false };
      supplied = value.text;
    } else if (effect.type === 'message') {
      continue; // allowed at both boundaries; whether it is accepted alone is out of scope (below)
    } else if (effect.type === 'deny' && boundary === 'before') {
      throw new SimulationError(`${caseId}: an accepted deny is out of scope (COMPACTION-RULES §12)`);
    } else {
      return { accepted: false };
    }
  }
  if (effects.some((effect) => isJsonObject(effect) && effect.type === 'message')) {
    throw new SimulationError(`${caseId}: a reply with a message the sender would accept is out of scope (COMPACTION-RULES §12); every case expects messages:[]`);
  }
  return { accepted: true, ...(text !== undefined ? { text } : {}), ...(supplied !== undefined ? { supplied } : {}) };
}

export function simulateCompaction(input: SimulatedCase): CompactionExpected {
  const exchanges: ExpectedExchange[] = [];
  let instructions = BASE_INSTRUCTIONS;
  let supplied: string | undefined;
  let failures = 0;

  /** Runs one boundary's hooks; false when a fail-closed hook stopped it. */
  const runBoundary = (boundary: Boundary, hooks: readonly CompactionHook[], current: () => string, commit: (verdict: Verdict & { accepted: true }) => void): boolean => {
    for (const [index, hook] of hooks.entries()) {
      if (hook.action.kind === 'append' && hook.action.target !== targetOf(boundary)) {
        throw new SimulationError(`${input.id}: ${boundary} hook ${index} appends to ${hook.action.target}, which the ${boundary} event does not carry`);
      }
      const text = current();
      const verdict = judgeReply(input.id, boundary, receiverEffects(hook.action, text));
      exchanges.push({ subscription: scopeOf(input.id, boundary, index), boundary, text, accepted: verdict.accepted });
      if (verdict.accepted) {
        commit(verdict);
        continue;
      }
      failures++;
      if (hook.failurePolicy === 'fail-closed') return false;
    }
    return true;
  };

  const beforeOk = runBoundary('before', input.before, () => instructions, (verdict) => {
    if (verdict.supplied !== undefined) {
      if (supplied !== undefined) throw new SimulationError(`${input.id}: a second accepted return is out of scope (COMPACTION-RULES §12)`);
      supplied = verdict.supplied;
    }
    if (verdict.text !== undefined) {
      if (supplied !== undefined) throw new SimulationError(`${input.id}: an instruction edit after an accepted return is out of scope (return invalidation, COMPACTION-RULES §12)`);
      instructions = verdict.text;
    }
  });
  if (!beforeOk) {
    return { instructions, generated: false, applied: false, failures, summary: null, downstream: [], seen: exchanges.map((e) => e.text), exchanges };
  }
  const generated = supplied === undefined;
  let summary = supplied ?? GENERATOR_PREFIX + instructions;
  const afterOk = runBoundary('after', input.after, () => summary, (verdict) => {
    if (verdict.text !== undefined) summary = verdict.text;
  });
  return { instructions, generated, applied: afterOk, failures, summary, downstream: afterOk ? [summary] : [], seen: exchanges.map((e) => e.text), exchanges };
}
