// The lifecycle family's hooks (family-hooks.ts): its fixture file, its configured rows (the matrix
// and the receiver probes), and its step-script verifier, which sender isolation judges with.

import { deriveContentSources } from '../../lifecycle-adapters/content-sources.ts';
import { receiverProbeRows } from '../../lifecycle-adapters/receiver-probe-rows.ts';
import type { LifecycleScenarioFile } from '../../lifecycle-adapters/scenario-types.ts';
import { LIFECYCLE_SCENARIOS_FILE, scenarioFixtureTarget } from '../../generate/fixture-target.ts';
import { lifecycleRowRequirements, withRequirements } from '../../requirements/row-requirements.ts';
import { matrixRows, needsLifecycleCommands, planMatrix } from '../../runs/plan.ts';
import type { FamilyHooks } from '../family-hooks.ts';
import { LIFECYCLE_COVERAGE } from './coverage.ts';
import { buildLifecycleScenarios, checkLifecycleScenarioBuild, serializeLifecycleScenarioFile } from './generate.ts';
import { loadLifecycleScenarioFile } from './load-lifecycle-scenarios.ts';
import { RECEIVER_PROBES } from './receiver-probes.ts';
import { lifecycleVerifier } from './verify/verify-lifecycle-run.ts';

/** `34 rows: 24 step scripts (3 http only, 2 stdio only), 10 chains; 14 content sources; 41 coverage items`. */
function summarizeLifecycle(file: LifecycleScenarioFile): string {
  const chains = file.scenarios.filter((row) => row.chain !== undefined).length;
  const only = (transport: string) => file.scenarios.filter((row) => row.transports?.length === 1 && row.transports[0] === transport).length;
  const sources = deriveContentSources(file.scenarios).length;
  return (
    `${file.scenarios.length} rows: ${file.scenarios.length - chains} step scripts (${only('http')} http only, ${only('stdio')} stdio only), ` +
    `${chains} chains; ${sources} content sources; ${LIFECYCLE_COVERAGE.length} coverage items`
  );
}

const FIXTURE = scenarioFixtureTarget({
  name: 'lifecycle',
  file: LIFECYCLE_SCENARIOS_FILE,
  build: (validators) => withRequirements(buildLifecycleScenarios(validators), lifecycleRowRequirements),
  serialize: serializeLifecycleScenarioFile,
  check: checkLifecycleScenarioBuild,
  summarize: summarizeLifecycle,
});

export const hooks: FamilyHooks = {
  fixtureTargets: [FIXTURE],
  async configuredRows(config, adapters) {
    if (!config.scenarios.lifecycle) return [];
    const ids = (await loadLifecycleScenarioFile(config.scenarios.lifecycle)).scenarios.map((s) => s.id);
    return [
      ...matrixRows('lifecycle', planMatrix(config, adapters, needsLifecycleCommands), ids),
      ...receiverProbeRows(config, adapters.values(), 'lifecycle', RECEIVER_PROBES),
    ];
  },
  stepScriptVerifier: (validators) => lifecycleVerifier(validators),
};
