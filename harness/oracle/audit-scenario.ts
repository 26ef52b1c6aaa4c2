import { isJsonObject } from '../protocol/json.ts';
import type { ProtocolValidators } from '../protocol/validator-types.ts';
import type { Scenario } from '../scenarios/types.ts';
import { compareExact, compareExpected, formatDifferences } from './compare-result.ts';
import { evaluate, hostRejectedResult } from './evaluate.ts';
import type { Verdict } from './types.ts';

export interface ScenarioAudit {
  id: string;
  verdict: Verdict | undefined;
  /** Empty when the row's expectation agrees with the oracle and the row is well-formed. */
  problems: string[];
}

/**
 * Re-derives one scenario's outcome with the oracle and states every way the row's own expectation
 * disagrees with it. Structural problems of the request come first: the oracle's verdict on a
 * request that is not schema-valid or not correlated would be meaningless.
 */
export function auditScenario(
  scenario: Scenario,
  validators: Pick<ProtocolValidators, 'interceptRequest' | 'interceptResponse'>,
): ScenarioAudit {
  const problems = requestProblems(scenario, validators);
  if (problems.length > 0) return { id: scenario.id, verdict: undefined, problems };

  const verdict = evaluate(scenario.request, scenario.response, validators);
  if (scenario.expected !== undefined) {
    if (!verdict.accepted) {
      problems.push(`expected an accepted response, but the oracle rejects it at the ${verdict.layer} layer: ${verdict.reason}`);
    } else {
      const differences = compareExpected(scenario.expected, verdict.result);
      if (differences.length > 0) {
        problems.push(`expected result disagrees with the oracle:\n${formatDifferences(differences)}`);
      }
    }
  } else if (scenario.expectError === true) {
    if (verdict.accepted) {
      problems.push(`expectError, but the oracle accepts the response with ${JSON.stringify(verdict.result)}`);
    } else if (scenario.hostExpected !== undefined) {
      if (verdict.layer !== 'application' || verdict.hostRule !== true) {
        problems.push(
          `hostExpected requires a rejection by the host task rule at the application layer, but the oracle rejects at the ${verdict.layer} layer: ${verdict.reason}`,
        );
      } else {
        const sdkResult = hostRejectedResult(scenario.request, scenario.response, validators);
        if (!sdkResult) {
          problems.push('hostExpected, but the SDK-level view of the response is not accepted');
        } else {
          const differences = compareExact(scenario.hostExpected, sdkResult);
          if (differences.length > 0) {
            problems.push(`hostExpected disagrees with the SDK-level result:\n${formatDifferences(differences)}`);
          }
        }
      }
    }
  } else {
    problems.push('row has neither expected nor expectError: true');
  }
  return { id: scenario.id, verdict, problems };
}

function requestProblems(
  scenario: Scenario,
  validators: Pick<ProtocolValidators, 'interceptRequest'>,
): string[] {
  const problems: string[] = [];
  const request: unknown = scenario.request;
  const check = validators.interceptRequest(request);
  if (!check.valid) problems.push(`request is not schema-valid: ${check.errors.slice(0, 5).join('; ')}`);
  if (!isJsonObject(request)) return problems;
  if (request.id !== scenario.id) problems.push(`request.id ${JSON.stringify(request.id)} is not the scenario id`);
  const params = request.params;
  const event = isJsonObject(params) ? params.event : undefined;
  if (!isJsonObject(event) || event.id !== scenario.id) {
    problems.push(`request.params.event.id ${JSON.stringify(isJsonObject(event) ? event.id : undefined)} is not the scenario id`);
  }
  if (scenario.expected !== undefined && scenario.expectError !== undefined) {
    problems.push('row has both expected and expectError');
  }
  if (scenario.hostExpected !== undefined && scenario.expectError !== true) {
    problems.push('hostExpected is only meaningful with expectError: true');
  }
  return problems;
}
