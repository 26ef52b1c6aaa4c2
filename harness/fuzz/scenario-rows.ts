// Turns fuzz cases into rows of the central scenario format, with the oracle's verdict as the
// expectation: `expected` is the WHOLE accepted result (so every key the oracle derives is compared,
// and guarded keys it omits must be absent), or `expectError: true` with the rejecting layer's tag
// (plus `hostExpected` for a response only the fixture host's task rule refuses). Rows are
// lint-clean for the closed scenario format, so a counterexample can be promoted into fixtures.

import { evaluate, hostRejectedResult } from '../oracle/evaluate.ts';
import type { Verdict } from '../oracle/types.ts';
import type { JsonObject } from '../protocol/json.ts';
import type { ProtocolValidators } from '../protocol/validator-types.ts';
import type { Scenario } from '../scenarios/types.ts';
import { materializeCase, type FuzzCase } from './case-arbitrary.ts';

export type OracleValidators = Pick<ProtocolValidators, 'interceptResponse'>;

export const FUZZ_TAG = 'fuzz';

/** The scenario row of `fuzz` under id `id`, with the oracle's expectation. */
export function fuzzScenario(fuzz: FuzzCase, id: string, validators: OracleValidators, description?: string): Scenario {
  const { request, response } = materializeCase(fuzz, id);
  const verdict = evaluate(request, response, validators);
  return scenarioRow(id, request, response, verdict, validators, description);
}

function scenarioRow(
  id: string,
  request: Scenario['request'],
  response: JsonObject,
  verdict: Verdict,
  validators: OracleValidators,
  description: string | undefined,
): Scenario {
  // Key order as in our generated fixtures: id, description, request, response, expectation, tags.
  const row: Scenario = description === undefined ? { id, request, response } : { id, description, request, response };
  if (verdict.accepted) {
    row.expected = verdict.result as unknown as JsonObject;
    row.tags = [FUZZ_TAG];
  } else {
    row.expectError = true;
    const host = hostRejectedResult(request, response, validators);
    if (host !== undefined) row.hostExpected = host as unknown as JsonObject;
    row.tags = [FUZZ_TAG, `${verdict.layer}-invalid`];
  }
  return row;
}

/** Scenario ids of one batch: unique within it, valid for the closed format (`^[a-z0-9][a-z0-9.-]*$`). */
export function batchScenarioIds(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix}-${index}`);
}
