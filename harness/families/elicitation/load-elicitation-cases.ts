// Reads an elicitation case file and refuses it unless lintElicitationCaseFile finds nothing; the
// error names the file, the JSON path and what was expected (never a stack trace).

import { parseScenarioJson, readScenarioText, readScenarioTextSync } from '../../scenarios/load-scenarios.ts';
import { ScenarioProblemsError } from '../../scenarios/scenario-problems-error.ts';
import type { ElicitationCaseFile } from './case-types.ts';
import { lintElicitationCaseFile } from './lint-elicitation-case-file.ts';

export class ElicitationCaseFileError extends ScenarioProblemsError {
  override readonly name = 'ElicitationCaseFileError';
}

export async function loadElicitationCaseFile(file: string): Promise<ElicitationCaseFile> {
  return parseElicitationCaseFile(await readScenarioText(file), file);
}

export function loadElicitationCaseFileSync(file: string): ElicitationCaseFile {
  return parseElicitationCaseFile(readScenarioTextSync(file), file);
}

/** Parses and checks case file text; `file` is only used in error messages. */
export function parseElicitationCaseFile(text: string, file: string): ElicitationCaseFile {
  const value = parseScenarioJson(text, file);
  checkElicitationCaseFile(value, file);
  return value;
}

export function checkElicitationCaseFile(value: unknown, file: string): asserts value is ElicitationCaseFile {
  const problems = lintElicitationCaseFile(value);
  if (problems.length > 0) throw new ElicitationCaseFileError(file, problems);
}
