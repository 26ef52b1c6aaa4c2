
import { defineConfig } from 'vitest/config';

import { suiteProjects } from './harness/package/suite-projects.ts';
import { MATRIX_REPORTER } from './harness/reporters/matrix-reports-plugin.ts';
import { shardFromArgv } from './harness/setup/shard-argv.ts';
import ShardSequencer from './harness/setup/shard-sequencer.ts';

// A sharded run (`--shard=i/n`) includes the matrix projects' part files instead of their single file,
// so the groups spread over the machines (harness/setup/shard-parts.ts, shard-sequencer.ts).
const sharded = shardFromArgv(process.argv) !== undefined;

// One vitest project per suite, so `npx vitest --project <name>` runs exactly one of them.
export default defineConfig({
  test: {
    // vitest's own reporters stay as they are; ours adds the matrix summary and reports/<project>.json.
    // `--reporter=...` on the command line replaces this list; matrixReports() adds ours back.
    reporters: ['default', MATRIX_REPORTER],
    sequence: { sequencer: ShardSequencer },
    // vitest's default worker count (one fewer than the cores). Two workers on a 2-core machine were
    // measured: no shorter (npm test 960 s against 930 s with one), since the adapter processes the
    // files start already fill the second core, and twice the contention for every watchdog.
    experimental: { fsModuleCache: true },
    projects: [
      {
        test: {
          name: 'oracle',
          include: ['suites/oracle/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
      // core, lifecycle, catalogue, isolation and auth: the same projects the installed package runs.
      ...suiteProjects({ sharded }),
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
