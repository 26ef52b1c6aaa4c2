// One way to read a family's scenario file: the text (async or sync), parsed as JSON, refused with the
// family's error unless its lint finds nothing. Each family's loader names its functions and its
// error class; what reading and refusing mean is the same for all of them.

import type { FormatProblem } from './format-schema.ts';
import { parseScenarioJson, readScenarioText, readScenarioTextSync } from './load-scenarios.ts';

export interface ScenarioFileLoader<File> {
  load(file: string): Promise<File>;
  loadSync(file: string): File;
  /** Parses and checks scenario file text; `file` is only used in error messages. */
  parse(text: string, file: string): File;
  /** Throws the family's error unless `value` is a clean scenario file of the family. */
  check(value: unknown, file: string): asserts value is File;
}

export function scenarioFileLoader<File>(lint: (value: unknown) => FormatProblem[], refuse: (file: string, problems: FormatProblem[]) => Error): ScenarioFileLoader<File> {
  function check(value: unknown, file: string): asserts value is File {
    const problems = lint(value);
    if (problems.length > 0) throw refuse(file, problems);
  }
  function parse(text: string, file: string): File {
    const value = parseScenarioJson(text, file);
    check(value, file);
    return value;
  }
  return {
    load: async (file) => parse(await readScenarioText(file), file),
    loadSync: (file) => parse(readScenarioTextSync(file), file),
    parse,
    check,
  };
}
