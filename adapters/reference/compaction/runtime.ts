// The reference host's text compaction runtime: the `context.compact.before` hooks run serially in
// declared order over the current instructions, then the summary is generated (or a supplied one is
// taken, skipping generation), then the `context.compact.after` hooks run serially over the current
// summary. Each hook's response is staged whole at its boundary (stage-response.ts); a rejected or
// failed response commits nothing and counts as one failure under that hook's policy. Fail-open keeps
// the earlier accepted state and goes on; fail-closed before compaction means no generation, no after
// boundary and no summary, and after compaction it stops the remaining after hooks and withholds
// application, keeping the generated summary (atomic acceptance never undoes work already done).
//
// The steps that decide these semantics are one `RuntimeSteps` value, so the lying fakes of the
// harness's self-tests can swap exactly one of them; the reference always runs REFERENCE_STEPS.

import type { Boundary } from './boundary.ts';
import { collect, effectProblem, stageResponse, type StagedChanges } from './stage-response.ts';
import { inlineText, textParts, type TextPart } from './text-parts.ts';

export type FailurePolicy = 'fail-open' | 'fail-closed';

export interface HookSpec {
  /** The subscription (scope) that answers this hook. */
  supplier: string;
  failurePolicy: FailurePolicy;
}

/** What a hook is shown: a detached copy of the current state at its boundary. */
export interface HookSnapshot {
  boundary: Boundary;
  instructions: TextPart[];
  /** The current summary (after boundary only). */
  summary: TextPart[] | null;
  generated: boolean;
}

/** One hook callback: resolves with the response's effect list, or rejects (an operational failure). */
export type HookCallback = (hook: HookSpec, snapshot: HookSnapshot) => Promise<unknown>;

export interface CompactionFailure {
  supplier: string;
  boundary: Boundary;
  failurePolicy: FailurePolicy;
  reason: string;
}

/** One hook call as the runtime saw it: the target text it showed, and whether its response was accepted. */
export interface HookExchange {
  supplier: string;
  boundary: Boundary;
  seen: string;
  accepted: boolean;
}

export interface CompactionResult {
  instructions: TextPart[];
  summary: TextPart[] | null;
  generated: boolean;
  applied: boolean;
  failures: CompactionFailure[];
  messages: string[];
  /** The target text each hook was shown, in call order (prepared snapshots, accepted or not). */
  seen: string[];
  exchanges: HookExchange[];
}

export interface CompactionRun {
  /** Names the summary part the default generator writes (`<name>:summary`). */
  name: string;
  instructions: TextPart[];
  before: readonly HookSpec[];
  after: readonly HookSpec[];
  call: HookCallback;
  /** Produces a summary from the effective instructions; default: "summary:" + their text. */
  generate?: (instructions: TextPart[]) => TextPart[];
}

/** The mutable state one run settles. */
export interface RunState {
  instructions: TextPart[];
  summary: TextPart[] | null;
  /** A summary supplied before compaction (`return`), bound to the effective instructions. */
  supplied: TextPart[] | null;
  generated: boolean;
  messages: string[];
}

export type Settlement = { state: RunState; failure?: string };

export interface RuntimeSteps {
  /** The order hooks of one boundary run in. */
  order(hooks: readonly HookSpec[]): HookSpec[];
  /** Applies one response's effects to the state, or names why the response is rejected. */
  settle(state: RunState, effects: unknown, boundary: Boundary): Settlement;
  /** Whether the chain goes on after a failed hook. */
  continuesAfterFailure(policy: FailurePolicy, boundary: Boundary): boolean;
  /** The state once an after hook failed closed. */
  afterFailedClosed(state: RunState): RunState;
}

export const REFERENCE_STEPS: RuntimeSteps = {
  order: (hooks) => [...hooks],
  settle: (state, effects, boundary) => {
    const staged = stageResponse(effects, boundary);
    return staged.ok ? { state: commit(state, staged.changes) } : { state, failure: staged.problem };
  },
  continuesAfterFailure: (policy) => policy === 'fail-open',
  afterFailedClosed: (state) => state,
};

/** The state with one accepted response's changes: input edits first, then a supplied summary binds. */
export function commit(state: RunState, changes: StagedChanges): RunState {
  const next: RunState = { ...state, messages: [...state.messages, ...changes.messages] };
  if (changes.instructions !== undefined) {
    next.instructions = changes.instructions;
    // A changed input invalidates a summary supplied for the earlier one.
    next.supplied = null;
  }
  if (changes.returned !== undefined) next.supplied = changes.returned;
  if (changes.summary !== undefined) next.summary = changes.summary;
  return next;
}

/** Stages each effect on its own and commits the valid ones: exactly what atomic acceptance forbids. */
export function settleEffectByEffect(state: RunState, effects: unknown, boundary: Boundary): Settlement {
  const staged = stageResponse(effects, boundary);
  if (staged.ok) return { state: commit(state, staged.changes) };
  const valid = Array.isArray(effects) ? effects.filter((effect) => effectProblem(effect, boundary) === undefined) : [];
  return { state: commit(state, collect(valid as Array<Record<string, unknown>>)), failure: staged.problem };
}

export function defaultGenerator(name: string): (instructions: TextPart[]) => TextPart[] {
  return (instructions) => textParts(`summary:${inlineText(instructions)}`, `${name}:summary`);
}

export async function runCompaction(run: CompactionRun, steps: RuntimeSteps = REFERENCE_STEPS): Promise<CompactionResult> {
  let state: RunState = { instructions: clone(run.instructions), summary: null, supplied: null, generated: false, messages: [] };
  const failures: CompactionFailure[] = [];
  const exchanges: HookExchange[] = [];

  /** Runs one boundary's hooks; false when the chain was stopped (fail-closed or deny). */
  const runBoundary = async (boundary: Boundary, hooks: readonly HookSpec[]): Promise<boolean> => {
    for (const hook of steps.order(hooks)) {
      const snapshot: HookSnapshot = {
        boundary,
        instructions: clone(state.instructions),
        summary: state.summary === null ? null : clone(state.summary),
        generated: state.generated,
      };
      const exchange: HookExchange = { supplier: hook.supplier, boundary, seen: inlineText(boundary === 'before' ? snapshot.instructions : snapshot.summary), accepted: false };
      exchanges.push(exchange);
      let failure: string | undefined;
      let denied: string | undefined;
      try {
        const effects = await run.call(hook, snapshot);
        const settled = steps.settle(state, effects, boundary);
        state = settled.state;
        failure = settled.failure;
        if (failure === undefined) denied = deniedBy(effects);
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
      if (failure === undefined) {
        exchange.accepted = true;
        if (denied !== undefined) return false;
        continue;
      }
      failures.push({ supplier: hook.supplier, boundary, failurePolicy: hook.failurePolicy, reason: failure });
      if (!steps.continuesAfterFailure(hook.failurePolicy, boundary)) {
        if (boundary === 'after' && hook.failurePolicy === 'fail-closed') state = steps.afterFailedClosed(state);
        return false;
      }
    }
    return true;
  };

  const result = (applied: boolean): CompactionResult => ({
    instructions: state.instructions,
    summary: state.summary,
    generated: state.generated,
    applied,
    failures,
    messages: state.messages,
    seen: exchanges.map((exchange) => exchange.seen),
    exchanges,
  });

  if (!(await runBoundary('before', run.before))) {
    state = { ...state, summary: null };
    return result(false);
  }
  if (state.supplied !== null) {
    state = { ...state, summary: state.supplied };
  } else {
    const generate = run.generate ?? defaultGenerator(run.name);
    state = { ...state, summary: generate(clone(state.instructions)), generated: true };
  }
  const applied = await runBoundary('after', run.after);
  return result(applied && failures.every((failure) => failure.failurePolicy !== 'fail-closed'));
}

function deniedBy(effects: unknown): string | undefined {
  if (!Array.isArray(effects)) return undefined;
  const deny = effects.find((effect) => typeof effect === 'object' && effect !== null && (effect as { type?: unknown }).type === 'deny') as { reason?: string } | undefined;
  return deny?.reason;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}
