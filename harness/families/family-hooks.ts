// What the shared machinery asks of a family beyond the pure data of its FAMILIES entry: the code
// side of the family list. Each family answers in its own `harness/families/<family>/hooks.ts`,
// which its FAMILIES entry loads lazily (its `hooks` function imports it on first use), so vitest's
// config load, which reads family.ts, loads no family's code.

import type { LoadedAdapter } from '../adapters/types.ts';
import type { BaselineRow } from '../baseline/baseline.ts';
import type { ResolvedConfig } from '../config/load-config.ts';
import type { FixtureTarget } from '../generate/fixture-target.ts';
import type { ScriptVerifier } from '../lifecycle-adapters/runner.ts';
import type { StepScenario } from '../lifecycle-adapters/scenario-types.ts';
import type { ProtocolValidators } from '../protocol/validator-types.ts';
import type { ClientRunOutcome } from '../runs/types.ts';
import type { RunVerification } from '../runs/verdicts.ts';
import type { Scenario } from '../scenarios/types.ts';
import { FAMILIES } from './family.ts';

/**
 * A family's hooks. The group plan, the group run for a selection of rows and the verifier that
 * turns a run into row verdicts are the family's `SuiteFamily` (setup/grouped-suite.ts), which its
 * suite.ts hands to `defineGroupedSuite`; the hooks here are what the shared machinery needs without
 * defining a suite.
 */
export interface FamilyHooks {
  /** The fixture files `npm run fixtures` generates for the family (none when it reads another's). */
  fixtureTargets?: readonly FixtureTarget[];
  /**
   * Every test row the configuration defines in the family's project, as the reports label it: what a
   * baseline entry may name (baseline/configured-rows.ts). The family plans its groups here exactly
   * as its suite does.
   */
  configuredRows(config: ResolvedConfig, adapters: Map<string, LoadedAdapter>): Promise<BaselineRow[]>;
  /**
   * The verifier of one client run of central-format scenarios (core's rows), for the shared
   * machinery that runs such rows outside the family's suite (the differential fuzzer).
   */
  verifyClientRun?(outcome: ClientRunOutcome, scenarios: Scenario[], clientLanguage: string): RunVerification;
  /**
   * The verifier of a lifecycle step-script run (lifecycle's rows), for another family whose run is a
   * step script through the lifecycle adapters (sender isolation judges its exchange with it).
   */
  stepScriptVerifier?(validators: ProtocolValidators): ScriptVerifier<StepScenario>;
}

/** What a family's hooks.ts exports. */
export interface FamilyHooksModule {
  hooks: FamilyHooks;
}

/** The hooks of the family named `name` (a FAMILIES entry); an unknown name is a harness bug. */
export async function familyHooks(name: string): Promise<FamilyHooks> {
  const family = FAMILIES.find((entry) => entry.name === name);
  if (family === undefined) throw new Error(`harness bug: no family "${name}" in harness/families/family.ts (known: ${FAMILIES.map((entry) => entry.name).join(', ')})`);
  return (await family.hooks()).hooks;
}

/** A hook that the family named `name` must provide, or a harness bug naming the family and the hook. */
export async function requiredHook<Key extends keyof FamilyHooks>(name: string, key: Key): Promise<NonNullable<FamilyHooks[Key]>> {
  const hook = (await familyHooks(name))[key];
  if (hook === undefined) throw new Error(`harness bug: harness/families/${name}/hooks.ts provides no \`${key}\` hook`);
  return hook as NonNullable<FamilyHooks[Key]>;
}
