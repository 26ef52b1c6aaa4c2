// Oracle throughput: evaluations per second over the configured scenario file's rows and over a
// pre-generated batch of arbitrary scenarios (generation is not timed), each against a same-process
// baseline of one JSON deep copy of the request per case, and against the 100,000 eval/s goal.

import fs from 'node:fs';
import path from 'node:path';

import fc from 'fast-check';

import { projectRoot } from '../harness/config/load-config.ts';
import { insertAt, invalidEffect, validScenario, type GeneratedScenario } from '../harness/generate/arbitraries.ts';
import { evaluate } from '../harness/oracle/evaluate.ts';
import type { InterceptRequest } from '../harness/protocol/messages.ts';
import { loadValidators } from '../harness/protocol/load-validators.ts';
import type { ProtocolValidators } from '../harness/protocol/validator-types.ts';
import { loadScenarioFileSync } from '../harness/scenarios/load-scenarios.ts';
import { canonicalSchemaDir } from '../harness/protocol/canonical-schemas.ts';
import { formatMeasurement, formatRatio, measure, type Bench, type BenchOutput, type Measurement } from './lib/measure.ts';

export const ORACLE_GOAL_EVALS_PER_SECOND = 100_000;
const GENERATED_CASES = 2_000;
const GENERATION_SEED = 20_240_601;

interface Case {
  request: InterceptRequest;
  response: unknown;
}

function goalLine(m: Measurement): string {
  const factor = m.opsPerSecond / ORACLE_GOAL_EVALS_PER_SECOND;
  const verdict = factor >= 1 ? 'meets' : 'BELOW';
  return `  goal ${ORACLE_GOAL_EVALS_PER_SECOND.toLocaleString('en-US')} eval/s: ${verdict} (${factor.toFixed(2)}× the goal)`;
}

function throughput(out: BenchOutput, label: string, cases: readonly Case[], validators: ProtocolValidators): void {
  const n = cases.length;
  const baseline = measure(`${label}: baseline JSON deep copy of the request`, (i) => {
    const c = cases[i % n]!;
    return JSON.parse(JSON.stringify(c.request));
  });
  const oracle = measure(`${label}: evaluate()`, (i) => {
    const c = cases[i % n]!;
    return evaluate(c.request, c.response, validators);
  });
  const schemaOnly = measure(`${label}: of which the response schema check`, (i) => {
    const c = cases[i % n]!;
    return validators.interceptResponse(c.response);
  });
  out.line(formatMeasurement(baseline));
  out.line(formatMeasurement(oracle));
  out.line(formatMeasurement(schemaOnly));
  out.line(formatRatio(`${label} oracle vs baseline`, oracle, baseline));
  out.line(goalLine(oracle));
}

function scenarioFileCases(out: BenchOutput): Case[] | undefined {
  const file = process.env.AHP_BENCH_SCENARIOS ?? path.join(projectRoot(), 'fixtures', 'scenarios.json');
  if (!fs.existsSync(file)) {
    out.line(`  ${file} does not exist yet; scenario-file throughput skipped`);
    return undefined;
  }
  try {
    const rows = loadScenarioFileSync(file).scenarios;
    out.line(`  ${rows.length} rows from ${path.relative(process.cwd(), file) || file}`);
    return rows.map((row) => ({ request: row.request, response: row.response }));
  } catch (error) {
    out.line(`  cannot load ${file}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}; skipped`);
    return undefined;
  }
}

/** Valid scenarios, a quarter of them with one invalid effect inserted, generated before timing. */
function generatedCases(): Case[] {
  const arbitrary = validScenario().chain((scenario) =>
    fc
      .oneof(
        { weight: 3, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.tuple(invalidEffect(scenario.request), fc.nat()) },
      )
      .map((invalid): GeneratedScenario | Case =>
        invalid === undefined
          ? scenario
          : {
              request: scenario.request,
              response: { ...scenario.response, result: { ...scenario.response.result, effects: insertAt<unknown>(scenario.response.result.effects, invalid[0].effect, invalid[1]) } },
            },
      ),
  );
  return fc.sample(arbitrary, { numRuns: GENERATED_CASES, seed: GENERATION_SEED });
}

export const oracleBench: Bench = {
  name: 'oracle',
  run(out) {
    const ours = loadValidators(path.join(projectRoot(), 'schemas'));
    out.section('Oracle throughput: scenario file rows');
    const rows = scenarioFileCases(out);
    if (rows && rows.length > 0) throughput(out, 'rows', rows, ours);

    out.section(`Oracle throughput: ${GENERATED_CASES} pre-generated arbitrary scenarios (seed ${GENERATION_SEED})`);
    const generated = generatedCases();
    const rejected = generated.filter((c) => !evaluate(c.request, c.response, ours).accepted).length;
    out.line(`  ${generated.length - rejected} accepted, ${rejected} rejected`);
    throughput(out, 'generated', generated, ours);

    const canonical = canonicalSchemaDir();
    if (canonical) {
      out.section('Oracle throughput: pre-generated scenarios, canonical schemas');
      throughput(out, 'generated/canonical', generated, loadValidators(canonical));
    }
  },
};
