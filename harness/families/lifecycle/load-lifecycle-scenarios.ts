// Reads a lifecycle scenario file (`{version:1, scenarios:[...]}` of step scripts and observation
// chains) — ours or the protocol's — and refuses it unless lintLifecycleScenarioFile finds nothing.
// Requests and responses are not judged against the AHP schemas here (harness/protocol does that).
// Rows a client cannot run under the rules do not refuse the file: unrunnableLifecycleRows names them.

import { scenarioFileLoader } from '../../scenarios/scenario-file-loader.ts';
import { ScenarioProblemsError } from '../../scenarios/scenario-problems-error.ts';
import { unrunnableRowReasons } from '../../scenarios/runnability.ts';
import { lifecycleRunnabilityProblems } from '../../lifecycle-adapters/lifecycle-runnability.ts';
import { lintLifecycleScenarioFile } from './lint-lifecycle-scenario-file.ts';
import type { LifecycleScenarioFile } from '../../lifecycle-adapters/scenario-types.ts';

/** A lifecycle scenario file problem (see ScenarioProblemsError for the message). */
export class LifecycleScenarioFileError extends ScenarioProblemsError {
  override readonly name = 'LifecycleScenarioFileError';
}

const LOADER = scenarioFileLoader<LifecycleScenarioFile>(lintLifecycleScenarioFile, (file, problems) => new LifecycleScenarioFileError(file, problems));

export const loadLifecycleScenarioFile = LOADER.load;
export const loadLifecycleScenarioFileSync = LOADER.loadSync;
/** Parses and checks lifecycle scenario file text; `file` is only used in error messages. */
export const parseLifecycleScenarioFile = LOADER.parse;
/** Throws LifecycleScenarioFileError unless `value` is a clean lifecycle scenario file. */
export const checkLifecycleScenarioFile: (value: unknown, file: string) => asserts value is LifecycleScenarioFile = LOADER.check;

/**
 * Row id → why the row is not run, for a file that loaded: the rows no client following the rules
 * can run (lifecycle-runnability.ts), each reason naming the file, the JSON path and the rule. A file with such rows
 * still loads (the protocol's own files must run; an unrunnable row of one is skipped with its reason,
 * never sent to a client that would stop there and lose every other row of the run).
 */
export function unrunnableLifecycleRows(file: LifecycleScenarioFile, fileName: string): Map<string, string> {
  return unrunnableRowReasons(fileName, lifecycleRunnabilityProblems(file));
}
