// The core family's hooks (family-hooks.ts): its fixture file, its configured rows, its row verifier.

import { checkGeneratedFile } from '../../generate/check-generated.ts';
import { CORE_SCENARIOS_FILE, scenarioFixtureTarget } from '../../generate/fixture-target.ts';
import { coreRowRequirements, withRequirements } from '../../requirements/row-requirements.ts';
import { matrixRows, planMatrix } from '../../runs/plan.ts';
import { loadScenarioFile, serializeScenarioFile } from '../../scenarios/load-scenarios.ts';
import { NEGATIVE_TAGS, type ScenarioFile } from '../../scenarios/types.ts';
import type { FamilyHooks } from '../family-hooks.ts';
import { buildCoreScenarios } from './generate.ts';
import { verifyRun } from './verify/verify-run.ts';

/** `12 rows: 5 positive, 7 negative (schema-invalid 3, correlation-invalid 1, ...)`. */
function summarizeCore(file: ScenarioFile): string {
  const counts = new Map<string, number>(NEGATIVE_TAGS.map((tag) => [tag, 0]));
  let positives = 0;
  for (const row of file.scenarios) {
    if (row.expectError === true) {
      for (const tag of row.tags ?? []) if (counts.has(tag)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    } else positives++;
  }
  const negatives = file.scenarios.length - positives;
  const perTag = [...counts].map(([tag, n]) => `${tag} ${n}`).join(', ');
  return `${file.scenarios.length} rows: ${positives} positive, ${negatives} negative (${perTag})`;
}

const FIXTURE = scenarioFixtureTarget({
  name: 'core',
  file: CORE_SCENARIOS_FILE,
  build: (validators) => withRequirements(buildCoreScenarios(validators), coreRowRequirements),
  serialize: serializeScenarioFile,
  check: checkGeneratedFile,
  summarize: summarizeCore,
});

export const hooks: FamilyHooks = {
  fixtureTargets: [FIXTURE],
  async configuredRows(config, adapters) {
    if (!config.scenarios.core) return [];
    const ids = (await loadScenarioFile(config.scenarios.core)).scenarios.map((s) => s.id);
    return matrixRows('core', planMatrix(config, adapters), ids);
  },
  verifyClientRun: (outcome, scenarios, clientLanguage) => verifyRun(outcome, scenarios, clientLanguage),
};
