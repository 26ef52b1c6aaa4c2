// Differential fuzzing of every configured pairing × transport (auth none), each in its profile
// (profile-plan.ts): what the `fuzz` vitest project and `npm run fuzz` both run. One differentialFuzz
// per group of targets sharing a profile; targets whose envelope could not be discovered are reported
// as problems, never silently skipped.

import type { ResolvedConfig } from '../config/load-config.ts';
import type { ProtocolValidators } from '../protocol/validator-types.ts';
import { differentialFuzz, type DifferentialFuzzReport } from './differential.ts';
import { describeProfile } from './host-envelope.ts';
import { profileOverride, type FuzzBudget } from './parameters.ts';
import { discoveredEnvelopes, planFuzzGroups } from './profile-plan.ts';
import { configuredTargets } from './targets.ts';
import { CLASS_TITLES } from './triage.ts';

export interface ConfiguredFuzzOptions {
  /** Temp parent of every run (removed by the caller). */
  workDir: string;
  counterexampleDir: string;
  env?: NodeJS.ProcessEnv;
  progress?: (line: string) => void;
}

export interface ConfiguredFuzzResult {
  ok: boolean;
  reports: DifferentialFuzzReport[];
  problems: string[];
  /** Every group's message (profile first), then the problems. */
  message: string;
}

/** Labels of the configured fuzz targets, without starting anything (for test names). */
export function configuredTargetLabels(config: ResolvedConfig): string[] {
  return configuredTargets(config, { workDir: '' }).map((target) => target.label);
}

export async function fuzzConfiguredAdapters(
  config: ResolvedConfig,
  validators: ProtocolValidators,
  budget: FuzzBudget,
  options: ConfiguredFuzzOptions,
): Promise<ConfiguredFuzzResult> {
  const env = options.env ?? process.env;
  const targets = configuredTargets(config, { workDir: options.workDir });
  const plan = await planFuzzGroups(targets, {
    override: profileOverride(env),
    envelopeOf: discoveredEnvelopes({ schemasDir: config.schemas, workDir: options.workDir, watchdogs: config.watchdogs, evidenceDir: options.counterexampleDir }),
  });
  const reports: DifferentialFuzzReport[] = [];
  for (const group of plan.groups) {
    options.progress?.(`profile ${describeProfile(group.profile)}: ${group.targets.map((t) => t.label).join(', ')}`);
    reports.push(
      await differentialFuzz({
        targets: group.targets,
        validators,
        ...budget,
        profile: group.profile,
        counterexampleDir: options.counterexampleDir,
        parallelism: config.parallelism,
        progress: options.progress,
      }),
    );
  }
  // Discovery is the adapter failing before any row ran: the first class, said first.
  const problems = plan.problems.map((problem) => `${CLASS_TITLES.refused} (host-envelope discovery, before any batch) — ${problem}`);
  return {
    ok: problems.length === 0 && reports.every((report) => report.ok),
    reports,
    problems,
    message: [...reports.map((report) => report.message), ...problems].join('\n\n'),
  };
}
