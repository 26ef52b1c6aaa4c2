// `npm run fixtures` — regenerate fixtures/scenarios.json; `npm run fixtures -- --check` — verify the
// committed file is exactly what the generator produces, without writing.
//
// The output is always the project's own <root>/fixtures/scenarios.json (never a configured scenario
// file, which may be someone else's). The schema directory comes from the config.

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { loadConfig, projectRoot } from '../config/load-config.ts';
import { loadValidators } from '../protocol/load-validators.ts';
import { serializeScenarioFile } from '../scenarios/load-scenarios.ts';
import { NEGATIVE_TAGS, type ScenarioFile } from '../scenarios/types.ts';
import { checkGeneratedFile } from './check-generated.ts';
import { buildCoreScenarios } from './core-scenarios.ts';

const CORE_SCENARIOS_FILE = path.join(projectRoot(), 'fixtures', 'scenarios.json');

/** `12 rows: 5 positive, 7 negative (schema-invalid 3, correlation-invalid 1, ...)`. */
function summarize(file: ScenarioFile): string {
  const counts = new Map<string, number>(NEGATIVE_TAGS.map((tag) => [tag, 0]));
  let positives = 0;
  for (const row of file.scenarios) {
    if (row.expectError === true) {
      for (const tag of row.tags ?? []) if (counts.has(tag)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    } else positives++;
  }
  const negatives = file.scenarios.length - positives;
  const perTag = [...counts].map(([tag, n]) => `${tag} ${n}`).join(', ');
  return `${file.scenarios.length} rows: ${positives} positive, ${negatives} negative (${perTag})`;
}

/** The first 1-based line where two texts differ, with both versions of it. */
function firstDifferentLine(actual: string, wanted: string): { line: number; actual: string; wanted: string } | undefined {
  if (actual === wanted) return undefined;
  const a = actual.split('\n');
  const b = wanted.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return { line: i + 1, actual: a[i] ?? '(end of file)', wanted: b[i] ?? '(end of file)' };
  }
  return { line: a.length, actual: '(line endings differ)', wanted: '' };
}

async function main(argv: string[]): Promise<number> {
  const unknown = argv.filter((arg) => arg !== '--check');
  if (unknown.length > 0) {
    console.error(`core-scenarios: unknown argument(s) ${unknown.join(' ')}; usage: core-scenarios-cli.ts [--check]`);
    return 2;
  }
  const check = argv.includes('--check');
  const config = await loadConfig();
  const validators = loadValidators(config.schemas);
  const file = buildCoreScenarios(validators);

  const problems = checkGeneratedFile(file, validators);
  if (problems.length > 0) {
    console.error(`core-scenarios: the generated file fails ${problems.length} check(s) (schemas: ${config.schemas}):`);
    for (const problem of problems) console.error(`  - ${problem}`);
    return 1;
  }

  const text = serializeScenarioFile(file);
  const relative = path.relative(process.cwd(), CORE_SCENARIOS_FILE) || CORE_SCENARIOS_FILE;
  if (check) {
    let onDisk: string;
    try {
      onDisk = await readFile(CORE_SCENARIOS_FILE, 'utf8');
    } catch (error) {
      console.error(`core-scenarios --check: cannot read ${relative} (${error instanceof Error ? error.message : String(error)}); run npm run fixtures`);
      return 1;
    }
    const difference = firstDifferentLine(onDisk, text);
    if (difference) {
      console.error(`core-scenarios --check: ${relative} is stale; first difference at line ${difference.line}:`);
      console.error(`  on disk:   ${difference.actual}`);
      console.error(`  generated: ${difference.wanted}`);
      console.error('Run `npm run fixtures` to regenerate it.');
      return 1;
    }
    console.log(`core-scenarios --check: ${relative} is up to date; ${summarize(file)}`);
    return 0;
  }

  await writeFile(CORE_SCENARIOS_FILE, text, 'utf8');
  console.log(`core-scenarios: wrote ${relative}; ${summarize(file)}`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`core-scenarios: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
