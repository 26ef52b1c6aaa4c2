// `npm run fixtures` — regenerate every generated fixture file (fixtures/scenarios.json,
// fixtures/lifecycle-scenarios.json and fixtures/catalogue-scenarios.json); `npm run fixtures --
// --check` — verify each committed file is exactly what its generator produces, without writing.
//
// The outputs are always the project's own files under <root>/fixtures (never a configured scenario
// file, which may be someone else's). The schema directory comes from the config.

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { loadConfig } from '../config/load-config.ts';
import { loadValidators } from '../protocol/load-validators.ts';
import { FIXTURE_TARGETS } from './fixture-targets.ts';

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
    console.error(`fixtures: unknown argument(s) ${unknown.join(' ')}; usage: fixtures-cli.ts [--check]`);
    return 2;
  }
  const check = argv.includes('--check');
  const config = await loadConfig();
  const validators = loadValidators(config.schemas);

  let failed = false;
  for (const target of FIXTURE_TARGETS) {
    const label = `${target.name}${check ? ' --check' : ''}`;
    const relative = path.relative(process.cwd(), target.file) || target.file;
    const generated = target.generate(validators);
    if (generated.problems.length > 0) {
      console.error(`${label}: the generated ${relative} fails ${generated.problems.length} check(s) (schemas: ${config.schemas}):`);
      for (const problem of generated.problems) console.error(`  - ${problem}`);
      failed = true;
      continue;
    }
    if (!check) {
      await writeFile(target.file, generated.text, 'utf8');
      console.log(`${label}: wrote ${relative}; ${generated.summary}`);
      continue;
    }
    let onDisk: string;
    try {
      onDisk = await readFile(target.file, 'utf8');
    } catch (error) {
      console.error(`${label}: cannot read ${relative} (${error instanceof Error ? error.message : String(error)}); run npm run fixtures`);
      failed = true;
      continue;
    }
    const difference = firstDifferentLine(onDisk, generated.text);
    if (difference) {
      console.error(`${label}: ${relative} is stale; first difference at line ${difference.line}:`);
      console.error(`  on disk:   ${difference.actual}`);
      console.error(`  generated: ${difference.wanted}`);
      console.error('Run `npm run fixtures` to regenerate it.');
      failed = true;
      continue;
    }
    console.log(`${label}: ${relative} is up to date; ${generated.summary}`);
  }
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`fixtures: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
