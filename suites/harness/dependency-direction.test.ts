// Data flows one way (DESIGN.md): the harness never imports from an adapter or from the suites. An
// adapter is a party under test; harness code that depended on one would judge it by its own code.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { expect, test } from 'vitest';

import { projectRoot } from '../../harness/config/load-config.ts';

const HARNESS = path.join(projectRoot(), 'harness');
const FORBIDDEN = [path.join(projectRoot(), 'adapters'), path.join(projectRoot(), 'suites')];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|mjs|js)$/.test(entry.name) ? [full] : [];
  });
}

/** Relative specifiers of static imports, dynamic imports and re-exports. */
function relativeImports(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g)) found.push(match[1]!);
  return found;
}

test('no harness module imports from adapters/ or suites/', () => {
  const files = sourceFiles(HARNESS);
  expect(files.length).toBeGreaterThan(20);
  const offending = files.flatMap((file) =>
    relativeImports(readFileSync(file, 'utf8'))
      .map((specifier) => path.resolve(path.dirname(file), specifier))
      .filter((target) => FORBIDDEN.some((dir) => target.startsWith(`${dir}${path.sep}`)))
      .map((target) => `${path.relative(projectRoot(), file)} → ${path.relative(projectRoot(), target)}`),
  );
  expect(offending).toEqual([]);
});

test('the import scan sees a forbidden import when there is one', () => {
  const text = "import { x } from '../../adapters/reference/lib/judge.ts';\nconst y = await import('../../suites/a.ts');";
  expect(relativeImports(text)).toEqual(['../../adapters/reference/lib/judge.ts', '../../suites/a.ts']);
});
