import os from 'node:os';

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
    // Most test files spend their time waiting for adapter processes, which run outside the worker;
    // vitest's default (one worker fewer than the cores) would run them one after another on a
    // 2-core machine and leave a core idle while a file waits. At least two files run at once.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
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
          // Many hooks start adapter processes; vitest's 10 s default is shorter than the bounds those
          // starts have of their own, so a loaded machine would fail the hook before the real bound.
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
