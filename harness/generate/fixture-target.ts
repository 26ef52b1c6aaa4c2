// What one generated fixture file is to `npm run fixtures`: how to build it, check it and summarize
// it. Each family that generates a fixture file declares its target in its hooks (harness/families/
// <family>/hooks.ts); fixture-targets.ts collects them in the family list's order.

import path from 'node:path';

import { projectRoot } from '../config/load-config.ts';
import { formatSemanticProblem, lintScenarioFileSemantics } from '../protocol/semantic-lint/scenario-file-lint.ts';
import type { ProtocolValidators } from '../protocol/validator-types.ts';

export type GeneratorValidators = Pick<ProtocolValidators, 'interceptRequest' | 'interceptResponse' | 'observeNotification' | 'registration'>;

/** One freshly generated file: its text, the problems the generator's own checks found, a one-line summary. */
export interface GeneratedText {
  text: string;
  problems: string[];
  summary: string;
}

export interface FixtureTarget {
  /** Short name for messages (`core`, `lifecycle`). */
  name: string;
  /** Absolute path of the committed file. */
  file: string;
  generate(validators: GeneratorValidators): GeneratedText;
}

export const CORE_SCENARIOS_FILE = path.join(projectRoot(), 'fixtures', 'scenarios.json');
export const LIFECYCLE_SCENARIOS_FILE = path.join(projectRoot(), 'fixtures', 'lifecycle-scenarios.json');
export const CATALOGUE_SCENARIOS_FILE = path.join(projectRoot(), 'fixtures', 'catalogue-scenarios.json');

/**
 * The semantic lint of the text about to be written (parsed back, so it sees exactly the file), one
 * line per broken MUST naming file, row, JSON path and rule: a generator that produces a row breaking
 * the spec fails `npm run fixtures` and `--check` instead of failing an SDK later.
 */
export function semanticProblems(text: string, file: string): string[] {
  return lintScenarioFileSemantics(JSON.parse(text), path.relative(projectRoot(), file)).map(formatSemanticProblem);
}

/** How a family builds, writes, checks and summarizes its generated scenario file. */
export interface ScenarioFixture<File> {
  name: string;
  file: string;
  build(validators: GeneratorValidators): File;
  serialize(file: File): string;
  /** The generator's own checks of what it built, one line each. */
  check(file: File, validators: GeneratorValidators): string[];
  summarize(file: File): string;
}

/** The fixture target of a generated scenario file: its own checks, then the semantic lint of the exact text. */
export function scenarioFixtureTarget<File>(fixture: ScenarioFixture<File>): FixtureTarget {
  return {
    name: fixture.name,
    file: fixture.file,
    generate(validators) {
      const built = fixture.build(validators);
      const text = fixture.serialize(built);
      return { text, problems: [...fixture.check(built, validators), ...semanticProblems(text, fixture.file)], summary: fixture.summarize(built) };
    },
  };
}
