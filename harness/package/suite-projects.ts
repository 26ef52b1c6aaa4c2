// The vitest projects of the matrix suites, defined once for the three places that run them: this
// repo's vitest.config.ts (from source), the installed package's CLI and the `ahpConformance()`
// helper in an SDK's own vitest config (both from the compiled dist/). Paths are absolute, so the
// projects work whatever folder the run's root is.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { TestProjectInlineConfiguration } from 'vitest/config';

import { familyGlobalSetup, familySuiteFiles, FAMILIES, type Family } from '../families/family.ts';
import { matrixReports } from '../reporters/matrix-reports-plugin.ts';

/**
 * The suites an SDK is tested by, in the order the CLI lists them: the families of
 * harness/families/family.ts, spelt out for the CLI's types (suites/harness/dependency-direction.test.ts
 * checks the two lists are one).
 */
export const SUITES = ['core', 'lifecycle', 'catalogue', 'isolation', 'elicitation', 'compaction', 'auth'] as const;
export type Suite = (typeof SUITES)[number];

const HERE = fileURLToPath(new URL('.', import.meta.url));
/** The project root: the checkout from source, `dist/` once compiled (both have the same layout). */
export const SUITE_ROOT = path.resolve(HERE, '..', '..');
/** `.ts` from source, `.js` once compiled: the files below are named like this module. */
const EXT = path.extname(fileURLToPath(import.meta.url));

// The matrix projects' rows are concurrent tests that each only await their group's client run
// (harness/setup/grouped-suite.ts): every row must be able to wait at once, or a group's verdicts
// would queue behind rows still waiting for a slower group. The runs themselves are limited by the
// config's `parallelism`, not by this.
const ROWS_WAITING_AT_ONCE = 1_000_000;

export interface SuiteProjectOptions {
  /** Which suites (default all of SUITES). */
  suites?: readonly Suite[];
  /** Prefix of the project names, e.g. `ahp:` gives `ahp:core` (default none). */
  prefix?: string;
  /** Whether this run is sharded (`--shard=i/n`): the matrix suites then run their part files. */
  sharded: boolean;
  /** Global setups run before the suite's own, e.g. the package's config snapshot. */
  setupFirst?: readonly string[];
}

/** One vitest project per suite, so `--project <name>` runs exactly one of them. */
export function suiteProjects(options: SuiteProjectOptions): TestProjectInlineConfiguration[] {
  return (options.suites ?? SUITES).map((suite) => {
    const family = familyOf(suite);
    return {
      // Every family has the matrix reporter: even auth, with no matrix report of its own, has
      // baseline entries (a stale wildcard one, or an update run) that only the reporter judges.
      plugins: [matrixReports()],
      test: {
        name: `${options.prefix ?? ''}${suite}`,
        root: SUITE_ROOT,
        include: familySuiteFiles(family, options.sharded, EXT),
        // An installed package lives under node_modules, which vitest's default exclude would skip.
        exclude: [],
        ...(family.matrix ? { maxConcurrency: ROWS_WAITING_AT_ONCE } : {}),
        globalSetup: [...(options.setupFirst ?? []), path.join(SUITE_ROOT, familyGlobalSetup(family, EXT))],
        // Rows wait for their group's run; the run itself is bounded by the config's watchdogs.
        testTimeout: family.timeouts.test,
        hookTimeout: family.timeouts.hook,
      },
    };
  });
}

function familyOf(suite: Suite): Family {
  const family = FAMILIES.find((candidate) => candidate.name === suite);
  if (!family) throw new Error(`harness bug: suite '${suite}' is not in the family list (harness/families/family.ts)`);
  return family;
}

/** Whether a suite name is one of ours (for flags and config checks). */
export function isSuite(name: string): name is Suite {
  return (SUITES as readonly string[]).includes(name);
}
