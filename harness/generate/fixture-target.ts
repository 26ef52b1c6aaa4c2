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
