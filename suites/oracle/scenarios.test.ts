import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../harness/config/load-config.ts';
import { auditScenario } from '../../harness/oracle/audit-scenario.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';
import { loadScenarioFile } from '../../harness/scenarios/load-scenarios.ts';

// The oracle project's audit: every row of every configured scenario file (ours by default, or the
// protocol's own files through AHP_CONFIG) must agree with the oracle under the seed's comparison
// rules. One test per row, named by its id, so `-t <id>` and the IDE pick single rows.

const config = await loadConfig();
const validators = loadValidators(config.schemas);
const suites = await Promise.all(
  Object.entries(config.scenarios).map(async ([suite, file]) => ({ suite, file, scenarios: (await loadScenarioFile(file)).scenarios })),
);

describe.each(suites.map((s) => [`${s.suite}: ${path.relative(config.dir, s.file) || s.file}`, s] as const))('%s', (_label, { scenarios }) => {
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
