// A scenario file of a step-script family (lifecycle, catalogue) with one or more problems. The
// message names the file, the JSON path and what was expected for the first problem, then lists
// more; `problems` holds them all. It is a ScenarioFileError, so code that handles scenario files of
// any family catches it too.

import type { FormatProblem } from './format-schema.ts';
import { ScenarioFileError } from './load-scenarios.ts';

/** How many further problems the message lists after the first. */
const LISTED_PROBLEMS = 10;

export class ScenarioProblemsError extends ScenarioFileError {
  override readonly name: string = 'ScenarioProblemsError';
  readonly problems: readonly FormatProblem[];

  constructor(file: string, problems: readonly FormatProblem[]) {
    const [first, ...rest] = problems;
    if (first === undefined) throw new Error('ScenarioProblemsError needs at least one problem');
    super(file, first.path, first.problem);
    if (rest.length > 0) {
      const listed = rest.slice(0, LISTED_PROBLEMS).map((p) => `\n  ${p.path || '(file)'}: ${p.problem}`);
      const more = rest.length > LISTED_PROBLEMS ? `\n  … and ${rest.length - LISTED_PROBLEMS} more` : '';
      this.message += `\n(${rest.length} more problem${rest.length === 1 ? '' : 's'}:${listed.join('')}${more})`;
    }
    this.problems = problems;
  }
}
