import { defineConfig } from 'vitest/config';

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

// One vitest project per suite, so `npx vitest --project <name>` runs exactly one of them.
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
      {
        plugins: [matrixReports()],
        test: {
          name: 'core',
          maxConcurrency: ROWS_WAITING_AT_ONCE,
          include: [sharded ? 'suites/core/shards/part-*.test.ts' : 'suites/core/core.test.ts'],
          globalSetup: ['harness/families/core/global-setup.ts'],
          // Rows wait for their group's client run; the run itself is bounded by the config's watchdogs.
          testTimeout: 300_000,
          hookTimeout: 120_000,
        },
      },
      {
        plugins: [matrixReports()],
        test: {
          name: 'lifecycle',
          maxConcurrency: ROWS_WAITING_AT_ONCE,
          include: [sharded ? 'suites/lifecycle/shards/part-*.test.ts' : 'suites/lifecycle/lifecycle.test.ts'],
          globalSetup: ['harness/families/lifecycle/global-setup.ts'],
          // Rows wait for their group's run (a fresh server plus the client), bounded by the watchdogs.
          testTimeout: 300_000,
          hookTimeout: 120_000,
        },
      },
      {
        plugins: [matrixReports()],
        test: {
          name: 'catalogue',
          maxConcurrency: ROWS_WAITING_AT_ONCE,
          include: ['suites/catalogue/**/*.test.ts'],
          globalSetup: ['harness/families/catalogue/global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 120_000,
        },
      },
      {
        plugins: [matrixReports()],
        test: {
          name: 'isolation',
          maxConcurrency: ROWS_WAITING_AT_ONCE,
          include: ['suites/isolation/**/*.test.ts'],
          globalSetup: ['harness/families/isolation/global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 120_000,
        },
      },
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
        // No matrix report of its own, but a stale wildcard baseline entry (or an update run) is judged
        // by the matrix reporter, so it must be there whatever `--reporter` says.
        plugins: [matrixReports()],
        test: {
          name: 'auth',
          include: ['suites/auth/**/*.test.ts'],
          globalSetup: ['harness/families/auth/global-setup.ts'],
          // Raw-wire probes run one after another per server (receipts are diffed); each is bounded
          // by its own request timeout, the servers by the config's startup watchdog.
          testTimeout: 60_000,
          hookTimeout: 120_000,
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
