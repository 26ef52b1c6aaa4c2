// Reads a catalogue scenario file (`{version:1, suite?:"catalogue", scenarios:[...]}`) — ours or the
// protocol's — and refuses it unless lintCatalogueScenarioFile finds nothing. Messages and
// registrations are not judged against the AHP schemas here (the receiver and evaluator do that).
// Rows a client cannot run under the rules do not refuse the file: unrunnableCatalogueRows names them.

import { scenarioFileLoader } from '../../scenarios/scenario-file-loader.ts';
import { ScenarioProblemsError } from '../../scenarios/scenario-problems-error.ts';
import { unrunnableRowReasons } from '../../scenarios/runnability.ts';
import { catalogueRunnabilityProblems } from './catalogue-runnability.ts';
import { lintCatalogueScenarioFile } from './lint-catalogue-scenario-file.ts';
import type { CatalogueScenarioFile } from './scenario-types.ts';

/** A catalogue scenario file problem: the file, the JSON path and what was expected (see ScenarioProblemsError). */
export class CatalogueScenarioFileError extends ScenarioProblemsError {
  override readonly name = 'CatalogueScenarioFileError';
}

const LOADER = scenarioFileLoader<CatalogueScenarioFile>(lintCatalogueScenarioFile, (file, problems) => new CatalogueScenarioFileError(file, problems));

export const loadCatalogueScenarioFile = LOADER.load;
export const loadCatalogueScenarioFileSync = LOADER.loadSync;
/** Parses and checks catalogue scenario file text; `file` is only used in error messages. */
export const parseCatalogueScenarioFile = LOADER.parse;
/** Throws CatalogueScenarioFileError unless `value` is a clean catalogue scenario file. */
export const checkCatalogueScenarioFile: (value: unknown, file: string) => asserts value is CatalogueScenarioFile = LOADER.check;

/**
 * Row id → why the row is not run, for a file that loaded: the rows no client following the rules
 * can run (catalogue-runnability.ts), each reason naming the file, the JSON path and the rule. A file with such rows
 * still loads (the protocol's own files must run; an unrunnable row of one is skipped with its reason,
 * never sent to a client that would stop there and lose every other row of the run).
 */
export function unrunnableCatalogueRows(file: CatalogueScenarioFile, fileName: string): Map<string, string> {
  return unrunnableRowReasons(fileName, catalogueRunnabilityProblems(file));
}
