// Whole-response staging at one boundary (composition.md, atomic effect acceptance): every effect of
// a compound response is checked against the boundary before anything is staged, and one invalid
// effect rejects the whole response — a valid modify or message beside it is not salvaged.

import { isJsonObject } from '../../../harness/protocol/json.ts';
import { BOUNDARY_EFFECTS, BOUNDARY_TARGET, type Boundary } from './boundary.ts';
import { textPartsProblem, type TextPart } from './text-parts.ts';

/** What one accepted response changes; absent fields change nothing. */
export interface StagedChanges {
  /** New instructions (before) — the last replacement of the response. */
  instructions?: TextPart[];
  /** New summary (after) — the last replacement of the response. */
  summary?: TextPart[];
  /** A supplied summary (before, `return`) — the last one of the response. */
  returned?: TextPart[];
  /** A reason when the response refused the compaction (before, `deny`). */
  denied?: string;
  /** User-facing message texts, in response order. */
  messages: string[];
}

export type Staging = { ok: true; changes: StagedChanges } | { ok: false; problem: string };

const EFFECT_KEYS: Record<string, readonly string[]> = {
  modify: ['type', 'target', 'operation', 'value'],
  message: ['type', 'text'],
  return: ['type', 'value'],
  deny: ['type', 'reason', 'code'],
};

/** Why one effect cannot be accepted at `boundary`, or undefined when it can. */
export function effectProblem(effect: unknown, boundary: Boundary): string | undefined {
  if (!isJsonObject(effect)) return 'is not an object';
  const type = effect.type;
  if (typeof type !== 'string') return 'has no string type';
  if (!BOUNDARY_EFFECTS[boundary].includes(type)) return `is a ${JSON.stringify(type)} effect, which is not offered at the ${boundary} boundary`;
  const extra = Object.keys(effect).find((key) => !EFFECT_KEYS[type]!.includes(key));
  if (extra !== undefined) return `(${type}) carries the unknown member "${extra}"`;
  switch (type) {
    case 'modify': {
      if (effect.target !== BOUNDARY_TARGET[boundary]) return `modifies ${JSON.stringify(effect.target)}, but only ${BOUNDARY_TARGET[boundary]} may be modified at the ${boundary} boundary`;
      if (effect.operation !== 'replace') return `uses operation ${JSON.stringify(effect.operation)}, but only replace is offered`;
      const problem = textPartsProblem(effect.value);
      return problem === undefined ? undefined : `(modify) value ${problem}`;
    }
    case 'return': {
      const problem = textPartsProblem(effect.value);
      return problem === undefined ? undefined : `(return) value ${problem}`;
    }
    case 'message':
      return typeof effect.text === 'string' ? undefined : '(message) has no string text';
    case 'deny':
      if (effect.code !== undefined && typeof effect.code !== 'string') return '(deny) code is not a string';
      return typeof effect.reason === 'string' && effect.reason !== '' ? undefined : '(deny) has no reason';
  }
  return `is an unhandled ${type} effect`;
}

/** Stages a whole effect list, or rejects it naming the first effect that cannot be accepted. */
export function stageResponse(effects: unknown, boundary: Boundary): Staging {
  if (!Array.isArray(effects)) return { ok: false, problem: 'effects is not a list' };
  for (const [index, effect] of effects.entries()) {
    const problem = effectProblem(effect, boundary);
    if (problem !== undefined) return { ok: false, problem: `effects[${index}] ${problem}` };
  }
  return { ok: true, changes: collect(effects as Array<Record<string, unknown>>) };
}

/** The changes of effects already known to be valid (also used to stage a single effect). */
export function collect(effects: ReadonlyArray<Record<string, unknown>>): StagedChanges {
  const changes: StagedChanges = { messages: [] };
  for (const effect of effects) {
    if (effect.type === 'modify') changes[effect.target as 'instructions' | 'summary'] = effect.value as TextPart[];
    else if (effect.type === 'return') changes.returned = effect.value as TextPart[];
    else if (effect.type === 'deny') changes.denied ??= effect.reason as string;
    else if (effect.type === 'message') changes.messages.push(effect.text as string);
  }
  return changes;
}
