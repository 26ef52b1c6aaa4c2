// The one-row scenario of every sender-isolation case (SENDER-ISOLATION-RULES §3), derived — as the
// protocol's runner derives it from its fixture — from our own lifecycle fixture's intercept-body row:
// the event's items are removed (the independent origin is not the receiver's content store), the
// upload step sends the isolation body B under the alias `sender-isolation`, and the expected result is
// recomputed for the derived row by the step-script simulator.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { PROJECT_ROOT } from '../../protocol/load-validators.ts';
import { sha256Hex } from '../../protocol/sha256-hex.ts';
import type { ProtocolValidators } from '../../protocol/validator-types.ts';
import { lifecycleRunnabilityProblems } from '../../lifecycle-adapters/lifecycle-runnability.ts';
import { simulateStepScript } from '../../lifecycle-adapters/simulate-step-script.ts';
import { describeRunnabilityProblem } from '../../scenarios/runnability.ts';
import type { StepScenario } from '../../lifecycle-adapters/scenario-types.ts';

/** The fixture row it is derived from (fixed, not configurable: the case is about credentials, not semantics). */
export const SOURCE_ROW = 'content.intercept-body-after-upload';
export const ISOLATION_ALIAS = 'sender-isolation';
/** The id of the one derived row: each case's only test. */
export const ISOLATION_ROW_ID = 'sender-isolation';

/** B: octets 0x00…0xFF in order, then 0x00 0xFF, then ASCII `sender-isolation` (274 bytes). */
export function isolationBody(): Buffer {
  return Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from([0x00, 0xff]), Buffer.from('sender-isolation', 'ascii')]);
}

export function isolationHash(): string {
  return sha256Hex(isolationBody());
}

export function isolationScenario(validators: Pick<ProtocolValidators, 'interceptResponse'>): StepScenario {
  const file = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'fixtures', 'lifecycle-scenarios.json'), 'utf8')) as { scenarios: StepScenario[] };
  const source = file.scenarios.find((row) => row.id === SOURCE_ROW);
  if (!source) throw new Error(`fixtures/lifecycle-scenarios.json has no row "${SOURCE_ROW}" (the sender-isolation case is derived from it)`);
  const row = structuredClone(source);
  const request = row.requests.a as { params: { event: { items?: unknown }; subscriptionId?: unknown } };
  delete request.params.event.items;
  delete request.params.subscriptionId;
  const body = isolationBody();
  const steps = row.steps.map((step) =>
    step.op === 'upload' ? { op: 'upload' as const, subscription: 'body', ref: ISOLATION_ALIAS, bodyBase64: body.toString('base64'), size: body.length, sha256: isolationHash() } : step,
  );
  const derived = { ...row, id: ISOLATION_ROW_ID, steps } as StepScenario;
  delete (derived as { tags?: unknown }).tags;
  derived.description = `sender isolation: ${SOURCE_ROW} with its items removed and the upload going to an independent origin`;
  const expected = simulateStepScript(derived, validators).expected;
  const scenario: StepScenario = { ...derived, expected: { ...expected, uploadStatuses: [201] } };
  // The derived row is run by a real client like any lifecycle row, so it keeps the same step rules.
  const unrunnable = lifecycleRunnabilityProblems({ version: 1, scenarios: [scenario] });
  if (unrunnable.length > 0) {
    const lines = unrunnable.map((problem) => describeRunnabilityProblem(`the ${ISOLATION_ROW_ID} row derived from fixtures/lifecycle-scenarios.json › ${SOURCE_ROW}`, problem));
    throw new Error(`harness bug: ${lines.join('; ')}`);
  }
  return scenario;
}
