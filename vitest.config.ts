import { defineConfig } from 'vitest/config';

import { familyGlobalSetup, familySuiteFiles, FAMILIES, type Family } from './harness/families/family.ts';
import { MATRIX_REPORTER, matrixReports } from './harness/reporters/matrix-reports-plugin.ts';
import { shardFromArgv } from './harness/setup/shard-argv.ts';
import ShardSequencer from './harness/setup/shard-sequencer.ts';

// A sharded run (`--shard=i/n`) includes the matrix projects' part files instead of their single file,
// so the groups spread over the machines (harness/setup/shard-parts.ts, shard-sequencer.ts).
const sharded = shardFromArgv(process.argv) !== undefined;

// The matrix projects' rows are concurrent tests that each only await their group's client run
// (harness/setup/grouped-suite.ts): every row must be able to wait at once, or a group's verdicts
// would queue behind rows still waiting for a slower group. The runs themselves are limited by the
// config's `parallelism`, not by this.
const ROWS_WAITING_AT_ONCE = 1_000_000;

/** A family's project. Every family has the matrix reporter: even the auth family, with no matrix
 * report of its own, has baseline entries (a stale wildcard one, or an update run) that it judges. */
function familyProject(family: Family) {
  return {
    plugins: [matrixReports()],
    test: {
      name: family.name,
      ...(family.matrix ? { maxConcurrency: ROWS_WAITING_AT_ONCE } : {}),
      include: familySuiteFiles(family, sharded),
      globalSetup: [familyGlobalSetup(family)],
      testTimeout: family.timeouts.test,
      hookTimeout: family.timeouts.hook,
    },
  };
}

// One vitest project per suite, so `npx vitest --project <name>` runs exactly one of them; the
// families' projects come from the family list (harness/families/family.ts).
export default defineConfig({
  test: {
    // vitest's own reporters stay as they are; ours adds the matrix summary and reports/<project>.json.
    // `--reporter=...` on the command line replaces this list; matrixReports() adds ours back.
    reporters: ['default', MATRIX_REPORTER],
    sequence: { sequencer: ShardSequencer },
    experimental: { fsModuleCache: true },
    projects: [
      {
        test: {
          name: 'oracle',
          include: ['suites/oracle/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
      ...FAMILIES.map(familyProject),
      {
        test: {
          name: 'fuzz',
          include: ['suites/fuzz/**/*.test.ts'],
          // Differential fuzzing through real adapter processes: a bounded CI budget (about a minute),
          // more with AHP_FUZZ_RUNS; shrinking a failure adds client runs on top.
          testTimeout: 600_000,
        },
      },
      {
        test: {
          name: 'harness',
          include: ['suites/harness/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
