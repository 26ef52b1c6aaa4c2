// The catalogue family's hooks (family-hooks.ts): its fixture file and its configured rows (the
// matrix and the receiver probes).

import { receiverProbeRows } from '../../lifecycle-adapters/receiver-probe-rows.ts';
import { CATALOGUE_SCENARIOS_FILE, scenarioFixtureTarget } from '../../generate/fixture-target.ts';
import { catalogueRowRequirements, withRequirements } from '../../requirements/row-requirements.ts';
import { matrixRows, needsLifecycleCommands, planMatrix } from '../../runs/plan.ts';
import type { FamilyHooks } from '../family-hooks.ts';
import { CATALOGUE_RECEIVER_PROBES } from './catalogue-receiver-probes.ts';
import { CATALOGUE_COVERAGE } from './coverage.ts';
import { buildCatalogueScenarios, checkCatalogueScenarioBuild, serializeCatalogueScenarioFile } from './generate.ts';
import { loadCatalogueScenarioFile } from './load-catalogue-scenarios.ts';
import type { CatalogueScenarioFile } from './scenario-types.ts';

/** `47 rows: execution 21, lineage 13, registration 13; 34 accepted, 3 lineage and 2 schema rejections; 13 registrations (4 accepted); 60 coverage items`. */
function summarizeCatalogue(file: CatalogueScenarioFile): string {
  const count = (category: string) => file.scenarios.filter((row) => row.category === category).length;
  const deliveries = file.scenarios.flatMap((row) => row.expected.deliveries);
  const registrations = file.scenarios.flatMap((row) => row.expected.registrations);
  const rejected = (kind: string) => deliveries.filter((d) => d.errorKind === kind).length;
  return (
    `${file.scenarios.length} rows: execution ${count('execution')}, lineage ${count('lineage')}, registration ${count('registration')}; ` +
    `${deliveries.filter((d) => d.accepted).length} accepted, ${rejected('lineage')} lineage and ${rejected('schema')} schema rejections; ` +
    `${registrations.length} registrations (${registrations.filter((r) => r.accepted).length} accepted); ${CATALOGUE_COVERAGE.length} coverage items`
  );
}

const FIXTURE = scenarioFixtureTarget({
  name: 'catalogue',
  file: CATALOGUE_SCENARIOS_FILE,
  build: (validators) => withRequirements(buildCatalogueScenarios(validators), catalogueRowRequirements),
  serialize: serializeCatalogueScenarioFile,
  check: checkCatalogueScenarioBuild,
  summarize: summarizeCatalogue,
});

export const hooks: FamilyHooks = {
  fixtureTargets: [FIXTURE],
  async configuredRows(config, adapters) {
    if (!config.scenarios.catalogue) return [];
    const ids = (await loadCatalogueScenarioFile(config.scenarios.catalogue)).scenarios.map((s) => s.id);
    return [
      ...matrixRows('catalogue', planMatrix(config, adapters, needsLifecycleCommands), ids),
      ...receiverProbeRows(config, adapters.values(), 'catalogue', CATALOGUE_RECEIVER_PROBES),
    ];
  },
};
