// Reads a lifecycle scenario file (`{version:1, scenarios:[...]}` of step scripts and observation
// chains) — ours or the protocol's — and refuses it unless lintLifecycleScenarioFile finds nothing.
// Requests and responses are not judged against the AHP schemas here (harness/protocol does that).

import { parseScenarioJson, readScenarioText, readScenarioTextSync, ScenarioFileError } from '../scenarios/load-scenarios.ts';
import { lintLifecycleScenarioFile, type LifecycleProblem } from './lint-lifecycle-scenario-file.ts';
import type { LifecycleScenarioFile } from './scenario-types.ts';

/** How many further problems the message lists after the first. */
const LISTED_PROBLEMS = 10;

/**
 * A lifecycle scenario file problem. The message names the file, the JSON path and what was
 * expected for the first problem, then lists more; `problems` holds them all. It is a
 * ScenarioFileError, so code that handles scenario files of any family catches it too.
 */
export class LifecycleScenarioFileError extends ScenarioFileError {
  override readonly name = 'LifecycleScenarioFileError';
  readonly problems: readonly LifecycleProblem[];

  constructor(file: string, problems: readonly LifecycleProblem[]) {
    const [first, ...rest] = problems;
    if (first === undefined) throw new Error('LifecycleScenarioFileError needs at least one problem');
    super(file, first.path, first.problem);
    if (rest.length > 0) {
      const listed = rest.slice(0, LISTED_PROBLEMS).map((p) => `\n  ${p.path || '(file)'}: ${p.problem}`);
      const more = rest.length > LISTED_PROBLEMS ? `\n  … and ${rest.length - LISTED_PROBLEMS} more` : '';
      this.message += `\n(${rest.length} more problem${rest.length === 1 ? '' : 's'}:${listed.join('')}${more})`;
    }
    this.problems = problems;
  }
}

export async function loadLifecycleScenarioFile(file: string): Promise<LifecycleScenarioFile> {
  return parseLifecycleScenarioFile(await readScenarioText(file), file);
}

export function loadLifecycleScenarioFileSync(file: string): LifecycleScenarioFile {
  return parseLifecycleScenarioFile(readScenarioTextSync(file), file);
}

/** Parses and checks lifecycle scenario file text; `file` is only used in error messages. */
export function parseLifecycleScenarioFile(text: string, file: string): LifecycleScenarioFile {
  const value = parseScenarioJson(text, file);
  checkLifecycleScenarioFile(value, file);
  return value;
}

/** Throws LifecycleScenarioFileError unless `value` is a clean lifecycle scenario file. */
export function checkLifecycleScenarioFile(value: unknown, file: string): asserts value is LifecycleScenarioFile {
  const problems = lintLifecycleScenarioFile(value);
  if (problems.length > 0) throw new LifecycleScenarioFileError(file, problems);
}
