// Data flows one way (DESIGN.md "Layout", "Families"), and these rules say which way:
// - the harness never imports from an adapter or from the suites: an adapter is a party under test,
//   and harness code that depended on one would judge it by its own code;
// - a family (harness/families/<family>/) imports the shared machinery and never another family;
// - the shared machinery (the rest of harness/) imports no family except through the family list
//   (harness/families/family.ts), which is pure data and imports nothing of the project;
// - a suite's test files (suites/<family>/) import only their family's suite.ts.
// Imports that break a rule today are listed below, each group with what it would take to end it; a
// new one fails the test, and so does an entry that no longer happens (shrink the list as they go).

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { expect, test } from 'vitest';

import { projectRoot } from '../../harness/config/load-config.ts';
import { FAMILIES } from '../../harness/families/family.ts';
import { SUITES } from '../../harness/package/suite-projects.ts';

const ROOT = projectRoot();
const FAMILY_NAMES = FAMILIES.map((family) => family.name);
const FAMILY_LIST = 'harness/families/family.ts';

/** Imports that break a rule today (paths below harness/), with why each group still does. */
const KNOWN_CROSSINGS: ReadonlyArray<readonly [string, string]> = [
  // Catalogue and isolation run through the lifecycle adapters and reuse lifecycle's runner, run,
  // scenario model, findings and labels; the lifecycle-adapter run belongs in shared machinery.
  ['families/catalogue/suite.ts', 'families/lifecycle/receiver-probe-suite.ts'],
  ['families/catalogue/suite.ts', 'families/lifecycle/runner.ts'],
  ['families/catalogue/verify/discovery-checks.ts', 'families/lifecycle/verify/findings.ts'],
  ['families/catalogue/verify/evidence-checks.ts', 'families/lifecycle/verify/findings.ts'],
  ['families/catalogue/verify/report-checks.ts', 'families/lifecycle/verify/findings.ts'],
  ['families/catalogue/verify/report-checks.ts', 'families/lifecycle/verify/report-checks.ts'],
  ['families/catalogue/verify/verify-catalogue-run.ts', 'families/lifecycle/verify/findings.ts'],
  ['families/catalogue/verify/verify-catalogue-run.ts', 'families/lifecycle/verify/labels.ts'],
  ['families/catalogue/verify/verify-catalogue-run.ts', 'families/lifecycle/verify/receipt-log.ts'],
  ['families/isolation/isolation-run.ts', 'families/lifecycle/run.ts'],
  ['families/isolation/isolation-run.ts', 'families/lifecycle/runner.ts'],
  ['families/isolation/isolation-run.ts', 'families/lifecycle/scenario-types.ts'],
  ['families/isolation/isolation-scenario.ts', 'families/lifecycle/lifecycle-runnability.ts'],
  ['families/isolation/isolation-scenario.ts', 'families/lifecycle/scenario-types.ts'],
  ['families/isolation/isolation-scenario.ts', 'families/lifecycle/simulate-step-script.ts'],
  ['families/isolation/suite.ts', 'families/lifecycle/runner.ts'],
  ['families/isolation/verify-isolation.ts', 'families/lifecycle/runner.ts'],
  ['families/isolation/verify-isolation.ts', 'families/lifecycle/scenario-types.ts'],
  ['families/isolation/verify-isolation.ts', 'families/lifecycle/verify/findings.ts'],
  ['families/isolation/verify-isolation.ts', 'families/lifecycle/verify/labels.ts'],
  // The receiver-probe suite and the lifecycle run serve the catalogue family too (its probes, its
  // `suite: "catalogue"` configs).
  ['families/lifecycle/receiver-probe-suite.ts', 'families/catalogue/catalogue-receiver-probes.ts'],
  ['families/lifecycle/receiver-probe-suite.ts', 'families/catalogue/scenario-types.ts'],
  ['families/lifecycle/run.ts', 'families/catalogue/scenario-types.ts'],
  // verify-run.ts holds verdict types and report parsing every client run shares (Party, readReport,
  // receiptEnvelope, RowVerdict), beside core's own row verifier.
  ['families/auth/client-probe-verdict.ts', 'families/core/verify/verify-run.ts'],
  ['families/lifecycle/runner.ts', 'families/core/verify/verify-run.ts'],
  ['families/lifecycle/verify/findings.ts', 'families/core/verify/verify-run.ts'],
  ['fuzz/targets.ts', 'families/core/verify/verify-run.ts'],
  ['fuzz/triage.ts', 'families/core/verify/verify-run.ts'],
  ['runs/client-run.ts', 'families/core/verify/verify-run.ts'],
  // Per-family tables in shared modules: the fixture generators, the configured rows the baseline
  // checks, the receiver-probe rows and the runner-shaped JSON of the matrix report; each belongs
  // behind the Family interface.
  ['baseline/configured-rows.ts', 'families/auth/client-probe-cases.ts'],
  ['baseline/configured-rows.ts', 'families/auth/probes.ts'],
  ['baseline/configured-rows.ts', 'families/catalogue/catalogue-receiver-probes.ts'],
  ['baseline/configured-rows.ts', 'families/catalogue/load-catalogue-scenarios.ts'],
  ['generate/fixture-targets.ts', 'families/catalogue/coverage.ts'],
  ['generate/fixture-targets.ts', 'families/catalogue/generate.ts'],
  ['generate/fixture-targets.ts', 'families/catalogue/scenario-types.ts'],
  ['generate/fixture-targets.ts', 'families/core/generate.ts'],
  ['generate/fixture-targets.ts', 'families/elicitation/case-types.ts'],
  ['generate/fixture-targets.ts', 'families/elicitation/generate.ts'],
  ['generate/fixture-targets.ts', 'families/elicitation/lint-elicitation-case-file.ts'],
  ['baseline/configured-rows.ts', 'families/elicitation/case-rows.ts'],
  ['baseline/configured-rows.ts', 'families/elicitation/load-elicitation-cases.ts'],
  ['baseline/configured-rows.ts', 'families/elicitation/pairs.ts'],
  ['baseline/configured-rows.ts', 'families/isolation/isolation-cases.ts'],
  ['baseline/configured-rows.ts', 'families/isolation/isolation-scenario.ts'],
  ['baseline/configured-rows.ts', 'families/lifecycle/load-lifecycle-scenarios.ts'],
  ['baseline/configured-rows.ts', 'families/lifecycle/receiver-probes.ts'],
  ['generate/fixture-targets.ts', 'families/lifecycle/content-sources.ts'],
  ['generate/fixture-targets.ts', 'families/lifecycle/coverage.ts'],
  ['generate/fixture-targets.ts', 'families/lifecycle/generate.ts'],
  ['generate/fixture-targets.ts', 'families/lifecycle/scenario-types.ts'],
  ['reporters/matrix-reporter.ts', 'families/elicitation/report-json.ts'],
  ['reporters/matrix-reporter.ts', 'families/lifecycle/receiver-probe-suite.ts'],
  // acquireToken is trust machinery that lives with the auth probes.
  ['auth/event-auth-wire.ts', 'families/auth/probes.ts'],
];

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
    if (from === FAMILY_LIST) return 'the family list is pure data (vitest loads it with its config) and imports nothing of the project';
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

function crossings(): { broken: string[]; known: string[] } {
  const knownKeys = new Set(KNOWN_CROSSINGS.map(([from, to]) => `harness/${from} → harness/${to}`));
  const broken: string[] = [];
  const known: string[] = [];
  for (const [from, to] of importsUnder('harness', ...FAMILY_NAMES.map((name) => `suites/${name}`))) {
    const rule = brokenRule(from, to);
    if (rule === undefined) continue;
    const key = `${from} → ${to}`;
    if (knownKeys.has(key)) known.push(key);
    else broken.push(`${key}: ${rule}`);
  }
  return { broken, known };
}

test('no import breaks a dependency rule beyond the known crossings', () => {
  expect(sourceFiles(path.join(ROOT, 'harness')).length).toBeGreaterThan(20);
  expect(crossings().broken).toEqual([]);
});

test('every known crossing still happens (an ended one leaves the list)', () => {
  const seen = new Set(crossings().known);
  const stale = KNOWN_CROSSINGS.map(([from, to]) => `harness/${from} → harness/${to}`).filter((key) => !seen.has(key));
  expect(stale).toEqual([]);
});

test('the rules catch each kind of wrong import, and let the right ones through', () => {
  expect(brokenRule('harness/runs/plan.ts', 'adapters/reference/lib/dispatch.ts')).toMatch(/nothing from adapters/);
  expect(brokenRule('harness/families/core/suite.ts', 'suites/harness/support/expect-group.ts')).toMatch(/nothing from adapters/);
  expect(brokenRule('harness/families/catalogue/suite.ts', 'harness/families/lifecycle/runner.ts')).toMatch(/catalogue family imports the shared machinery, never the lifecycle family/);
  expect(brokenRule('harness/setup/server-broker.ts', 'harness/families/core/runner.ts')).toMatch(/only through harness\/families\/family\.ts/);
  expect(brokenRule(FAMILY_LIST, 'harness/runs/plan.ts')).toMatch(/pure data/);
  expect(brokenRule('suites/core/core.test.ts', 'harness/runs/plan.ts')).toMatch(/suites\/core\/ imports only harness\/families\/core\/suite\.ts/);
  expect(brokenRule('suites/lifecycle/shards/part-01.test.ts', 'harness/families/core/suite.ts')).toMatch(/suites\/lifecycle\//);

  expect(brokenRule('harness/families/lifecycle/runner.ts', 'harness/families/lifecycle/verify/labels.ts')).toBeUndefined();
  expect(brokenRule('harness/families/lifecycle/runner.ts', 'harness/runs/plan.ts')).toBeUndefined();
  expect(brokenRule('harness/setup/grouped-suite.ts', FAMILY_LIST)).toBeUndefined();
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
