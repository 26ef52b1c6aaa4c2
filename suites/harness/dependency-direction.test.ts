// Data flows one way (DESIGN.md "Layout", "Families"), and these rules say which way:
// - the harness never imports from an adapter or from the suites: an adapter is a party under test,
//   and harness code that depended on one would judge it by its own code;
// - a family (harness/families/<family>/) imports the shared machinery and never another family;
// - the shared machinery (the rest of harness/) imports no family except through the family list
//   (harness/families/family.ts), which is pure data: it imports nothing of the project but the
//   types of its hooks, and each family's hooks.ts lazily (a dynamic import run on first use);
// - a suite's test files (suites/<family>/) import only their family's suite.ts.
// The rules hold outright: no import is allowed to break them.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { expect, test } from 'vitest';

import { projectRoot } from '../../harness/config/load-config.ts';
import { FAMILIES } from '../../harness/families/family.ts';
import { SUITES } from '../../harness/package/suite-projects.ts';

const ROOT = projectRoot();
const FAMILY_NAMES = FAMILIES.map((family) => family.name);
const FAMILY_LIST = 'harness/families/family.ts';
const FAMILY_HOOKS = 'harness/families/family-hooks.ts';
const hooksOf = (name: string) => `harness/families/${name}/hooks.ts`;

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

/** The family whose folder holds `file` (a project-relative posix path), if any. */
function familyOf(file: string): string | undefined {
  const match = /^harness\/families\/([^/]+)\//.exec(file);
  return match ? match[1] : undefined;
}

/** Which rule an import of `to` from `from` (project-relative posix paths) breaks, if any. */
function brokenRule(from: string, to: string): string | undefined {
  if (from.startsWith('harness/')) {
    if (to.startsWith('adapters/') || to.startsWith('suites/')) return 'the harness imports nothing from adapters/ or suites/';
    if (from === FAMILY_LIST) {
      if (to === FAMILY_HOOKS || FAMILY_NAMES.some((name) => to === hooksOf(name))) return undefined;
      return "the family list is pure data (vitest loads it with its config) and imports nothing of the project but its hooks' types and each family's hooks.ts";
    }
    const fromFamily = familyOf(from);
    const toFamily = familyOf(to);
    if (toFamily === undefined || toFamily === fromFamily) return undefined;
    if (fromFamily === undefined) return `shared machinery reaches the ${toFamily} family only through ${FAMILY_LIST}`;
    return `the ${fromFamily} family imports the shared machinery, never the ${toFamily} family`;
  }
  const suite = /^suites\/([^/]+)\//.exec(from)?.[1];
  if (suite !== undefined && FAMILY_NAMES.includes(suite) && to !== `harness/families/${suite}/suite.ts`) {
    return `suites/${suite}/ imports only harness/families/${suite}/suite.ts`;
  }
  return undefined;
}

/** Every relative import in `dirs` (project-relative) as [from, to], project-relative posix paths. */
function importsUnder(...dirs: string[]): Array<[string, string]> {
  const posix = (file: string) => path.relative(ROOT, file).split(path.sep).join('/');
  return dirs.flatMap((dir) =>
    sourceFiles(path.join(ROOT, dir)).flatMap((file) =>
      relativeImports(readFileSync(file, 'utf8')).map((specifier): [string, string] => [posix(file), posix(path.resolve(path.dirname(file), specifier))]),
    ),
  );
}

function brokenImports(): string[] {
  const broken: string[] = [];
  for (const [from, to] of importsUnder('harness', ...FAMILY_NAMES.map((name) => `suites/${name}`))) {
    const rule = brokenRule(from, to);
    if (rule !== undefined) broken.push(`${from} → ${to}: ${rule}`);
  }
  return broken;
}

test('no import breaks a dependency rule', () => {
  expect(sourceFiles(path.join(ROOT, 'harness')).length).toBeGreaterThan(20);
  expect(brokenImports()).toEqual([]);
});

test("the family list loads no family's code with itself: its hooks' types, and each family's hooks.ts lazily", () => {
  const text = readFileSync(path.join(ROOT, FAMILY_LIST), 'utf8');
  const staticImports = [...text.matchAll(/^import\s+(type\s+)?[^;]*?from\s*['"]([^'"]+)['"]/gm)].map((match) => ({ typeOnly: match[1] !== undefined, specifier: match[2] }));
  expect(staticImports).toEqual([{ typeOnly: true, specifier: './family-hooks.ts' }]);
  const lazy = [...text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)].map((match) => match[1]);
  expect(lazy).toEqual(FAMILY_NAMES.map((name) => `./${name}/hooks.ts`));
  const missing = FAMILY_NAMES.map(hooksOf).filter((file) => !existsSync(path.join(ROOT, file)));
  expect(missing).toEqual([]);
});

test('the rules catch each kind of wrong import, and let the right ones through', () => {
  expect(brokenRule('harness/runs/plan.ts', 'adapters/reference/lib/dispatch.ts')).toMatch(/nothing from adapters/);
  expect(brokenRule('harness/families/core/suite.ts', 'suites/harness/support/expect-group.ts')).toMatch(/nothing from adapters/);
  expect(brokenRule('harness/families/catalogue/suite.ts', 'harness/families/lifecycle/runner.ts')).toMatch(/catalogue family imports the shared machinery, never the lifecycle family/);
  expect(brokenRule('harness/setup/server-broker.ts', 'harness/families/core/runner.ts')).toMatch(/only through harness\/families\/family\.ts/);
  expect(brokenRule(FAMILY_LIST, 'harness/runs/plan.ts')).toMatch(/pure data/);
  expect(brokenRule(FAMILY_LIST, 'harness/families/core/runner.ts')).toMatch(/pure data/);
  expect(brokenRule('harness/families/isolation/suite.ts', 'harness/families/lifecycle/hooks.ts')).toMatch(/isolation family imports the shared machinery, never the lifecycle family/);
  expect(brokenRule('suites/core/core.test.ts', 'harness/runs/plan.ts')).toMatch(/suites\/core\/ imports only harness\/families\/core\/suite\.ts/);
  expect(brokenRule('suites/lifecycle/shards/part-01.test.ts', 'harness/families/core/suite.ts')).toMatch(/suites\/lifecycle\//);

  expect(brokenRule('harness/families/lifecycle/runner.ts', 'harness/families/lifecycle/verify/labels.ts')).toBeUndefined();
  expect(brokenRule('harness/families/lifecycle/runner.ts', 'harness/runs/plan.ts')).toBeUndefined();
  expect(brokenRule('harness/setup/grouped-suite.ts', FAMILY_LIST)).toBeUndefined();
  expect(brokenRule(FAMILY_LIST, 'harness/families/core/hooks.ts')).toBeUndefined();
  expect(brokenRule(FAMILY_LIST, FAMILY_HOOKS)).toBeUndefined();
  expect(brokenRule('harness/families/isolation/suite.ts', FAMILY_HOOKS)).toBeUndefined();
  expect(brokenRule('suites/auth/probes.test.ts', 'harness/families/auth/suite.ts')).toBeUndefined();
  // The harness project's own self-tests reach into any module they test.
  expect(brokenRule('suites/harness/plan.test.ts', 'harness/families/core/runner.ts')).toBeUndefined();
});

test('the import scan sees a forbidden import when there is one', () => {
  const text = "import { x } from '../../adapters/reference/lib/judge.ts';\nconst y = await import('../../suites/a.ts');\nexport { z } from '../families/core/suite.ts';";
  expect(relativeImports(text)).toEqual(['../../adapters/reference/lib/judge.ts', '../../suites/a.ts', '../families/core/suite.ts']);
});

test('every family is one folder with its suite and global setup, one suite folder, one list entry', () => {
  const folders = readdirSync(path.join(ROOT, 'harness', 'families'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  expect(folders.sort()).toEqual([...FAMILY_NAMES].sort());
  const missing = FAMILY_NAMES.flatMap((name) =>
    [`harness/families/${name}/suite.ts`, `harness/families/${name}/global-setup.ts`, `suites/${name}`].filter((file) => !existsSync(path.join(ROOT, file))),
  );
  expect(missing).toEqual([]);
});

test('`npm run baseline` updates the baseline of every family', () => {
  const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const projects = [...scripts.baseline!.matchAll(/--project (\S+)/g)].map((match) => match[1]);
  expect(projects).toEqual(FAMILY_NAMES);
});

test("the package's suites are the family list's families", () => {
  expect([...SUITES]).toEqual(FAMILY_NAMES);
});
