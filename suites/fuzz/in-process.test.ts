// In-process pre-check: the fuzz arbitraries against the reference client's apply step and row logic
// with no processes, at high speed. The reference client applies responses with the oracle's
// `evaluate` (adapters/reference/client.ts), so any disagreement here is a bug in the generated
// scenarios, the row logic or the verifier — found in seconds, before any process starts.
// AHP_FUZZ_SEED / AHP_FUZZ_RUNS (batches) / AHP_FUZZ_BATCH (cases per batch) override the budget.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';

import { loadConfig } from '../../harness/config/load-config.ts';
import { caseEffectCount, fuzzCase } from '../../harness/fuzz/case-arbitrary.ts';
import { counterexampleDir } from '../../harness/fuzz/counterexample-file.ts';
import { differentialFuzz } from '../../harness/fuzz/differential.ts';
import { fuzzBudget } from '../../harness/fuzz/parameters.ts';
import { fuzzScenario } from '../../harness/fuzz/scenario-rows.ts';
import { inProcessTarget } from '../../harness/fuzz/targets.ts';
import { evaluate } from '../../harness/oracle/evaluate.ts';
import { isJsonObject } from '../../harness/protocol/json.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';

const config = await loadConfig();
const validators = loadValidators(config.schemas);

describe('in-process differential fuzzing (reference client apply step, no processes)', () => {
  test('every generated case: the reference client row logic agrees with the oracle', async () => {
    const budget = fuzzBudget({ runs: 40, batchSize: 100 });
    const report = await differentialFuzz({
      targets: [inProcessTarget({ apply: evaluate, validators })],
      validators,
      ...budget,
      counterexampleDir: counterexampleDir(),
      idPrefix: 'ip',
    });
    console.log(`in-process: ${report.message}`);
    expect(report.ok, report.message).toBe(true);
    expect(report.cases).toBe(budget.numRuns * budget.batchSize);
  });

  test('the case arbitrary reaches every verdict, boundary, effect type and envelope mutation', () => {
    const { seed } = fuzzBudget({ runs: 1, batchSize: 1 });
    const seen = new Set<string>();
    for (const [index, fuzz] of fc.sample(fuzzCase(), { seed, numRuns: 3000 }).entries()) {
      const row = fuzzScenario(fuzz, `cov-${index}`, validators);
      expect(validators.interceptRequest(row.request).valid, `generated request ${index} fails the request schema`).toBe(true);
      seen.add(`boundary:${row.request.params.event.type}`);
      seen.add(`state:${row.request.params.state === undefined ? 'omitted' : 'present'}`);
      const count = caseEffectCount(fuzz);
      expect(count).toBeLessThanOrEqual(8);
      if (count === 0 || count === 8) seen.add(`effects:${count}`);
      for (const effect of fuzz.effects) if (isJsonObject(effect)) seen.add(`type:${String(effect.type)}`);
      for (const mutation of fuzz.envelope) seen.add(`envelope:${mutation.kind}`);
      const verdict = evaluate(row.request, row.response, validators);
      seen.add(verdict.accepted ? 'verdict:accepted' : `verdict:${verdict.layer}`);
      if (row.hostExpected !== undefined) seen.add('verdict:host-alternative');
      if (verdict.accepted && verdict.result.flow !== undefined) seen.add(`flow:${verdict.result.flow}`);
    }
    const wanted = [
      'boundary:tool.before', 'boundary:turn.finish.before', 'state:omitted', 'state:present', 'effects:0', 'effects:8',
      ...['deny', 'allow', 'ask', 'modify', 'message', 'return', 'flow', 'inject'].map((type) => `type:${type}`),
      ...['response-id', 'jsonrpc', 'protocol-version', 'envelope-extra', 'result-extra', 'effects-shape'].map((kind) => `envelope:${kind}`),
      'verdict:accepted', 'verdict:schema', 'verdict:correlation', 'verdict:capability', 'verdict:application', 'verdict:host-alternative',
      'flow:stop', 'flow:continue',
    ];
    expect(wanted.filter((key) => !seen.has(key)), 'never generated').toEqual([]);
  });
});
