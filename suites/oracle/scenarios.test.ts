import path from 'node:path';
import { describe, expect, test } from 'vitest';

import { loadConfig } from '../../harness/config/load-config.ts';
import { simulateChain } from '../../harness/families/lifecycle/simulate-chain.ts';
import { simulateStepScript } from '../../harness/lifecycle-adapters/simulate-step-script.ts';
import { loadLifecycleScenarioFile } from '../../harness/families/lifecycle/load-lifecycle-scenarios.ts';
import { isChainScenario, type LifecycleScenario } from '../../harness/lifecycle-adapters/scenario-types.ts';
import { auditScenario } from '../../harness/oracle/audit-scenario.ts';
import { jsonDiff } from '../../harness/protocol/json-diff.ts';
import { jsonEqual } from '../../harness/protocol/json.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';
import { loadScenarioFile } from '../../harness/scenarios/load-scenarios.ts';
import { loadCompactionCaseFile } from '../../harness/families/compaction/load-compaction-cases.ts';
import { simulateCompaction } from '../../harness/families/compaction/simulate.ts';

// The oracle project's audit: every row of every configured scenario file (ours by default, or the
// protocol's own files through AHP_CONFIG) must agree with our semantics under the seed's rules —
// core-format rows with the evaluator oracle, lifecycle rows with the step-script and chain
// simulators (the expected results an honest client and receiver produce). One test per row, named
// by its id, so `-t <id>` and the IDE pick single rows. (Catalogue files are audited by the catalogue
// project's lineage tracker and registration evaluator tests.) Compaction cases are re-simulated by
// the compaction runtime model.

const FAMILY_FORMATS: Record<string, 'lifecycle' | 'catalogue' | 'compaction'> = { lifecycle: 'lifecycle', catalogue: 'catalogue', compaction: 'compaction' };

const config = await loadConfig();
const validators = loadValidators(config.schemas);
const entries = Object.entries(config.scenarios);
const label = (suite: string, file: string): string => `${suite}: ${path.relative(config.dir, file) || file}`;

const coreSuites = await Promise.all(
  entries.filter(([suite]) => FAMILY_FORMATS[suite] === undefined).map(async ([suite, file]) => ({ suite, file, scenarios: (await loadScenarioFile(file)).scenarios })),
);

describe.each(coreSuites.map((s) => [label(s.suite, s.file), s] as const))('%s', (_label, { scenarios }) => {
  test('has at least one scenario', () => {
    expect(scenarios.length).toBeGreaterThan(0);
  });
  test.each(scenarios.map((scenario) => [scenario.id, scenario] as const))('%s', (_id, scenario) => {
    const audit = auditScenario(scenario, validators);
    if (audit.problems.length > 0) {
      expect.fail(`scenario ${scenario.id} (schemas: ${config.schemas}):\n${audit.problems.join('\n')}`);
    }
    expect(audit.verdict).toBeDefined();
  });
});

const lifecycleFile = config.scenarios.lifecycle;
const lifecycleRows: LifecycleScenario[] = lifecycleFile ? (await loadLifecycleScenarioFile(lifecycleFile)).scenarios : [];

describe.runIf(lifecycleFile !== undefined)(lifecycleFile ? label('lifecycle', lifecycleFile) : 'lifecycle', () => {
  test('has at least one scenario', () => {
    expect(lifecycleRows.length).toBeGreaterThan(0);
  });
  test.each(lifecycleRows.map((row) => [row.id, row] as const))('%s', (_id, row) => {
    const simulated = isChainScenario(row) ? simulateChain(row, validators).expected : simulateStepScript(row, validators).expected;
    if (!jsonEqual(simulated, row.expected)) {
      expect.fail(`scenario ${row.id}: expected differs from what an honest client and receiver produce:\n  ${jsonDiff(simulated, row.expected).join('\n  ')}`);
    }
    expect(jsonEqual(simulated, row.expected)).toBe(true);
  });
});

const compactionFile = config.scenarios.compaction;
const compactionCases = compactionFile ? loadCompactionCaseFile(compactionFile).cases : [];

describe.runIf(compactionFile !== undefined)(compactionFile ? label('compaction', compactionFile) : 'compaction', () => {
  test('has at least one case', () => {
    expect(compactionCases.length).toBeGreaterThan(0);
  });
  test.each(compactionCases.map((row) => [row.id, row] as const))('%s', (_id, row) => {
    const simulated = simulateCompaction(row);
    if (!jsonEqual(simulated, row.expected)) expect.fail(`case ${row.id}: expected differs from what the compaction runtime model computes:\n  ${jsonDiff(simulated, row.expected).join('\n  ')}`);
    expect(jsonEqual(simulated, row.expected)).toBe(true);
  });
});
