// Properties of the evaluator oracle over generated scenarios (seed rules 1–9). A failing property
// prints its shrunk counterexample as a scenario row (see harness/generate/counterexample.ts).
// Reproducible by default; AHP_FUZZ_SEED / AHP_FUZZ_RUNS override seed and run count.

import path from 'node:path';

import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';

import { projectRoot } from '../../harness/config/load-config.ts';
import {
  allowEffect,
  askEffect,
  continueEffect,
  denyEffect,
  effectsFor,
  equalInputModify,
  finishScenario,
  fuzzParameters,
  insertAt,
  invalidEffect,
  reorderKeysDeep,
  responseTo,
  returnEffect,
  stopEffect,
  toolBeforeRequest,
  toolBeforeScenario,
  validScenario,
  type GeneratedScenario,
  type ModifyOperation,
} from '../../harness/generate/arbitraries.ts';
import { parseScenarioRows, withScenarioRow } from '../../harness/generate/counterexample.ts';
import { evaluate } from '../../harness/oracle/evaluate.ts';
import type { ApplicationResult, Verdict } from '../../harness/oracle/types.ts';
import { jsonEqual, type JsonValue } from '../../harness/protocol/json.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';
import type { Effect, InterceptRequest } from '../../harness/protocol/messages.ts';

const validators = loadValidators(path.join(projectRoot(), 'schemas'));
const params = { ...fuzzParameters(), includeErrorInReport: true };

/** Evaluates one case and runs its assertions; a failure carries the case as a scenario row. */
function judge(request: InterceptRequest, response: unknown, check: (verdict: Verdict) => void): Verdict {
  const verdict = evaluate(request, response, validators);
  withScenarioRow(request, response, verdict, () => check(verdict));
  return verdict;
}

function accepted(verdict: Verdict): ApplicationResult {
  if (!verdict.accepted) throw new Error(`expected acceptance, got a ${verdict.layer} rejection: ${verdict.reason}`);
  return verdict.result;
}

function withEffects(scenario: GeneratedScenario, effects: Effect[]): GeneratedScenario {
  return { request: scenario.request, response: responseTo(scenario.request, effects) };
}

/** Insert each item at its own position (positions taken modulo the growing length). */
function insertAll(effects: readonly Effect[], items: ReadonlyArray<[Effect, number]>): Effect[] {
  return items.reduce<Effect[]>((list, [item, at]) => insertAt(list, item, at), [...effects]);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

const continueInstructions = (effects: readonly Effect[]): string[] =>
  effects.flatMap((e) => (e.type === 'flow' && e.operation === 'continue' && e.instruction !== undefined ? [e.instruction] : []));

const positioned = (effect: fc.Arbitrary<Effect>) => fc.tuple(effect, fc.nat());

/** A valid scenario, sometimes with one invalid effect inserted (to cover rejections too). */
const maybeInvalidScenario = validScenario().chain((scenario) =>
  fc
    .oneof(fc.constant(undefined), fc.tuple(invalidEffect(scenario.request), fc.nat()))
    .map((invalid) =>
      invalid === undefined
        ? scenario
        : withEffects(scenario, insertAt(scenario.response.result.effects, invalid[0].effect as unknown as Effect, invalid[1])),
    ),
);

describe('generated scenarios', () => {
  test.prop([validScenario()], params)('are schema-valid, correlated and accepted', ({ request, response }) => {
    judge(request, response, (verdict) => {
      expect(request.id).toBe(request.params.event.id);
      expect(validators.interceptRequest(request).errors).toEqual([]);
      expect(validators.interceptResponse(response).errors).toEqual([]);
      for (const effect of response.result.effects) expect(validators.effect(effect).errors).toEqual([]);
      accepted(verdict);
    });
  });

  test.prop([validScenario().chain((s) => invalidEffect(s.request).map((invalid) => ({ ...s, invalid })))], params)(
    'invalid effects fail the effect schema exactly when their layer is schema',
    ({ invalid }) => {
      expect(validators.effect(invalid.effect).valid, `${invalid.kind}: ${JSON.stringify(invalid.effect)}`).toBe(invalid.layer !== 'schema');
    },
  );
});

describe('permission composition (rules 2 and 5)', () => {
  test.prop([toolBeforeScenario({ capabilities: { require: ['deny'] } }), positioned(denyEffect)], params)(
    'deny dominates regardless of its position',
    (scenario, denyAt) => {
      const { request, response } = withEffects(scenario, insertAll(scenario.response.result.effects, [denyAt]));
      judge(request, response, (verdict) => {
        const result = accepted(verdict);
        expect(result.decision).toBe('deny');
        expect(result.executed).toBe(false);
        expect(result).not.toHaveProperty('result');
      });
    },
  );

  test.prop(
    [
      toolBeforeScenario({
        capabilities: { require: ['ask', 'allow', 'return'], exclude: ['deny'] },
        state: { permissions: ['none', 'allow', 'ask'] },
      }),
      positioned(askEffect),
      fc.array(positioned(fc.oneof(allowEffect, returnEffect)), { maxLength: 3 }),
    ],
    params,
  )('ask beats allow and return', (scenario, askAt, others) => {
    const { request, response } = withEffects(scenario, insertAll(scenario.response.result.effects, [askAt, ...others]));
    judge(request, response, (verdict) => {
      const result = accepted(verdict);
      expect(result.decision).toBe('ask');
      expect(result.executed).toBe(false);
      expect(result).not.toHaveProperty('result');
    });
  });

  const permissionShuffle = toolBeforeScenario({ capabilities: { require: ['deny', 'ask', 'allow'] } }).chain((scenario) =>
    fc.array(positioned(fc.oneof(denyEffect, askEffect, allowEffect)), { minLength: 1, maxLength: 4 }).chain((extra) => {
      const effects = insertAll(scenario.response.result.effects, extra);
      const slots = effects.flatMap((e, i) => (e.type === 'deny' || e.type === 'ask' || e.type === 'allow' ? [i] : []));
      return fc.shuffledSubarray(slots, { minLength: slots.length, maxLength: slots.length }).map((order) => {
        const permuted = [...effects];
        slots.forEach((slot, k) => (permuted[slot] = effects[order[k]!]!));
        return { base: withEffects(scenario, effects), permuted: withEffects(scenario, permuted) };
      });
    }),
  );

  test.prop([permissionShuffle], params)('permuting deny/ask/allow effects changes neither decision nor result', ({ base, permuted }) => {
    const before = accepted(evaluate(base.request, base.response, validators));
    judge(permuted.request, permuted.response, (verdict) => {
      const after = accepted(verdict);
      expect(after.decision).toBe(before.decision);
      expect(jsonEqual(after, before), `${JSON.stringify(after)} vs ${JSON.stringify(before)}`).toBe(true);
    });
  });
});

describe('atomicity and ordering (rules 3, 4, 6)', () => {
  test.prop([maybeInvalidScenario, fc.integer()], params)('object key order never matters', ({ request, response }, seed) => {
    const reordered = {
      request: reorderKeysDeep(request as unknown as JsonValue, seed) as unknown as InterceptRequest,
      response: reorderKeysDeep(response as unknown as JsonValue, seed ^ 0x5bd1e995),
    };
    const before = evaluate(request, response, validators);
    judge(reordered.request, reordered.response, (verdict) => {
      expect(verdict.accepted).toBe(before.accepted);
      if (!verdict.accepted && !before.accepted) expect(verdict.layer).toBe(before.layer);
      if (verdict.accepted && before.accepted) {
        expect(jsonEqual(verdict.result, before.result), `${JSON.stringify(verdict.result)} vs ${JSON.stringify(before.result)}`).toBe(true);
      }
    });
  });

  test.prop(
    [
      validScenario().chain((scenario) =>
        fc.record({ scenario: fc.constant(scenario), invalid: invalidEffect(scenario.request), at: fc.option(fc.nat(), { nil: undefined }) }),
      ),
    ],
    params,
  )('any invalid effect turns an accepted response into a rejection and leaves the request untouched', ({ scenario, invalid, at }) => {
    const base = scenario.response.result.effects;
    const baseVerdict = evaluate(scenario.request, scenario.response, validators);
    const effects = at === undefined ? [...base, invalid.effect as unknown as Effect] : insertAt(base, invalid.effect as unknown as Effect, at);
    const { request, response } = withEffects(scenario, effects);
    const snapshot = JSON.stringify({ request, response });
    deepFreeze(request);
    deepFreeze(response);
    judge(request, response, (verdict) => {
      expect(baseVerdict.accepted).toBe(true);
      expect(verdict.accepted, `${invalid.kind} effect ${JSON.stringify(invalid.effect)} was accepted`).toBe(false);
      if (!verdict.accepted) expect(verdict.layer).toBe(invalid.layer);
      expect(verdict).not.toHaveProperty('result');
      expect(JSON.stringify({ request, response })).toBe(snapshot);
      // No hidden state either: the valid response still evaluates exactly as before.
      expect(evaluate(scenario.request, scenario.response, validators)).toEqual(baseVerdict);
    });
  });

  test.prop([maybeInvalidScenario], params)('messages appear in response order, and only after acceptance', ({ request, response }) => {
    judge(request, response, (verdict) => {
      if (!verdict.accepted) {
        expect(verdict).not.toHaveProperty('result');
        return;
      }
      const texts = response.result.effects.flatMap((e) => (e.type === 'message' ? [e.text] : []));
      expect(verdict.result.messages).toEqual(texts);
    });
  });
});

describe('flow (rule 7)', () => {
  const bothFlows = { capabilities: { require: ['flow'], flowOperations: ['stop', 'continue'], minRemainingContinuations: 1 } } as const;

  test.prop([finishScenario(bothFlows), positioned(stopEffect), positioned(continueEffect), fc.boolean()], params)(
    'stop wins over continue in either order and consumes no allowance',
    (scenario, stopAt, continueAt, stopFirst) => {
      const order: Array<[Effect, number]> = stopFirst ? [stopAt, continueAt] : [continueAt, stopAt];
      const { request, response } = withEffects(scenario, insertAll(scenario.response.result.effects, order));
      judge(request, response, (verdict) => {
        const result = accepted(verdict);
        expect(result.flow).toBe('stop');
        expect(result.executed).toBe(false);
        expect(result.continuationRemaining).toBe(request.params.capabilities.flow?.remainingContinuations);
        expect(result.continuationInstructions).toEqual([
          ...(request.params.state?.instructions ?? []),
          ...continueInstructions(response.result.effects),
        ]);
      });
    },
  );

  test.prop(
    [
      finishScenario({ ...bothFlows, state: { flows: ['none', 'continue'] }, effects: { types: ['modify', 'message'] } }),
      fc.array(positioned(continueEffect), { minLength: 1, maxLength: 5 }),
    ],
    params,
  )('any number ≥ 1 of accepted continues consumes exactly one unit', (scenario, continues) => {
    const { request, response } = withEffects(scenario, insertAll(scenario.response.result.effects, continues));
    judge(request, response, (verdict) => {
      const result = accepted(verdict);
      const remaining = request.params.capabilities.flow?.remainingContinuations ?? Number.NaN;
      expect(result.flow).toBe('continue');
      expect(result.executed).toBe(false);
      expect(result.continuationRemaining).toBe(remaining - 1);
      expect(result.continuationInstructions).toEqual([
        ...(request.params.state?.instructions ?? []),
        ...continueInstructions(response.result.effects),
      ]);
    });
  });
});

describe('which optional keys each boundary may carry', () => {
  // Continuations happen only at turn.finish.before (rule 7), and only a tool boundary has an input or
  // a candidate to select; an adapter that adds a key where it does not belong fails the row.
  test.prop([validScenario()], params)('tool.before never carries continuation keys; turn.finish.before never input or result', ({ request, response }) => {
    judge(request, response, (verdict) => {
      const result = accepted(verdict);
      if (request.params.event.type === 'tool.before') {
        expect(result).not.toHaveProperty('continuationInstructions');
        expect(result).not.toHaveProperty('continuationRemaining');
        expect(result).toHaveProperty('input');
      } else {
        expect(result).not.toHaveProperty('input');
        expect(result).not.toHaveProperty('result');
        const continuationKeys = 'continuationInstructions' in result || 'continuationRemaining' in result;
        if (continuationKeys && !('flow' in result)) expect(result.continuationInstructions?.length ?? 0).toBeGreaterThan(0);
      }
      expect('flow' in result).toBe(result.flow === 'stop' || result.flow === 'continue');
      if ('continuationRemaining' in result) expect(result).toHaveProperty('flow');
    });
  });
});

describe('candidates and execution (rules 5 and 9)', () => {
  const equalModifyScenario = toolBeforeRequest({
    capabilities: { require: ['modify'] },
    state: { presence: 'present', candidate: 'value', permissions: ['none', 'allow'], flows: ['none'] },
  }).chain((request) => {
    const input = request.params.event.tool!.input;
    const advertised = request.params.capabilities.modify!.input!;
    const operations = (['replace', 'merge'] as const).filter((op) => advertised[op]) as ModifyOperation[];
    return fc
      .tuple(
        fc.array(positioned(equalInputModify(input, operations)), { minLength: 1, maxLength: 3 }),
        effectsFor(request, { types: ['message', 'inject', 'allow'], maxLength: 3 }),
      )
      .map(([modifies, others]): GeneratedScenario => ({ request, response: responseTo(request, insertAll(others, modifies)) }));
  });

  test.prop([equalModifyScenario], params)('a modify that yields a deeply equal input preserves the incoming candidate', ({ request, response }) => {
    judge(request, response, (verdict) => {
      const result = accepted(verdict);
      expect(jsonEqual(result.input, request.params.event.tool!.input)).toBe(true);
      expect(result.decision).toBe('allow');
      expect(result.executed).toBe(false);
      expect(result).toHaveProperty('result');
      expect(jsonEqual(result.result, request.params.state!.candidate!.value)).toBe(true);
    });
  });

  test.prop([validScenario()], params)(
    'executed is true exactly when allowed, not stopped and no candidate applies (never at turn.finish.before)',
    ({ request, response }) => {
      judge(request, response, (verdict) => {
        const result = accepted(verdict);
        const toolBoundary = request.params.event.type === 'tool.before';
        const inputKept = !toolBoundary || jsonEqual(result.input, request.params.event.tool!.input);
        const candidate =
          response.result.effects.some((e) => e.type === 'return') || (inputKept && (request.params.state?.candidate ?? null) !== null);
        const proceeds = result.decision === 'allow' && result.flow !== 'stop';
        expect(result.executed).toBe(toolBoundary && proceeds && !candidate);
        expect('result' in result).toBe(proceeds && candidate);
        if (!toolBoundary) expect(result.executed).toBe(false);
      });
    },
  );
});

describe('counterexample printing', () => {
  test('a failing property reports its shrunk case as a pasteable scenario row', () => {
    const details = fc.check(
      fc.property(toolBeforeScenario(), ({ request, response }) => {
        judge(request, response, (verdict) => expect(verdict.accepted, 'deliberately false').toBe(false));
      }),
      { ...params, numRuns: 20, includeErrorInReport: true },
    );
    expect(details.failed).toBe(true);
    const message = fc.defaultReportMessage(details) ?? '';
    const rows = parseScenarioRows(message);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    const [shrunk] = details.counterexample as unknown as [GeneratedScenario];
    expect(row.id).toBe(shrunk.request.id);
    expect(row.request.id).toBe(row.request.params.event.id);
    expect(jsonEqual(row.request, shrunk.request)).toBe(true);
    expect(validators.interceptRequest(row.request).errors).toEqual([]);
    expect(row).not.toHaveProperty('expectError');
    const verdict = accepted(evaluate(row.request, row.response, validators));
    expect(jsonEqual(verdict, row.expected)).toBe(true);
  });

  test('a rejected case is printed with expectError and its layer tag', () => {
    const details = fc.check(
      fc.property(
        toolBeforeScenario().chain((s) => invalidEffect(s.request, ['unknown-type']).map((invalid) => ({ ...s, invalid }))),
        ({ request, response, invalid }) => {
          const bad = responseTo(request, [...response.result.effects, invalid.effect as unknown as Effect]);
          judge(request, bad, () => expect.fail('deliberately false'));
        },
      ),
      { ...params, numRuns: 5, includeErrorInReport: true },
    );
    const [row] = parseScenarioRows(fc.defaultReportMessage(details) ?? '');
    expect(row).toMatchObject({ expectError: true, tags: ['schema-invalid'] });
    expect(row).not.toHaveProperty('expected');
    expect(evaluate(row!.request, row!.response, validators)).toMatchObject({ accepted: false, layer: 'schema' });
  });
});
