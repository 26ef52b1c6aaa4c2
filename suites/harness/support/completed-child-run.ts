// A child vitest run (./child-vitest-run.ts) together with what the process-hygiene assertions need:
// the pids the fixtures recorded, which of them survived the run, and the run dirs left in the
// child's TMPDIR — and the assertion that the run was clean.

import { expect } from 'vitest';

import { leftoverRunDirs, prepareChildRun, removeChildRun, runVitestChild, type ChildConfig, type ChildRun, type ChildRunDirs, type ChildRunOptions } from './child-vitest-run.ts';
import { killRecorded, recordedPids, survivorsAfter } from './recorded-pids.ts';

/** Bound for recorded processes to disappear once the child has exited (zombie reaping included). */
export const GONE_MS = 5000;

export interface CompletedRun extends ChildRun {
  dirs: ChildRunDirs;
  /** pid → role, as the fixtures recorded them. */
  pids: Map<number, string>;
  /** Recorded processes still alive GONE_MS after the child exited, as `pid (role)`. */
  survivors: string[];
  /** The project's run dirs left in the child's TMPDIR. */
  leftover: string[];
}

export interface CompletedRunSpec {
  name: string;
  project: string;
  config: ChildConfig;
  timeoutMs: number;
  options?: ChildRunOptions;
  /** Prefix of the project's temp run dirs (`ahp-core-` by default). */
  runDirPrefix?: string;
}

/** Runs the project once for the config and collects everything the hygiene assertions need. */
export async function completeChildRun(spec: CompletedRunSpec): Promise<CompletedRun> {
  const dirs = prepareChildRun(spec.name, spec.config);
  try {
    const run = await runVitestChild(dirs, spec.project, spec.timeoutMs, spec.options);
    const pids = recordedPids(dirs.pidDir);
    const survivors = await survivorsAfter(pids, GONE_MS);
    killRecorded([...pids.keys()]); // hygiene only: survivors are already recorded as a failure
    return { ...run, dirs, pids, survivors, leftover: leftoverRunDirs(run.tmpDir, spec.runDirPrefix) };
  } catch (error) {
    removeChildRun(dirs);
    throw error;
  }
}

/** The child ended by itself with failing tests, the fixtures recorded exactly `roles`, and nothing is left behind. */
export function expectClean(run: CompletedRun, roles: string[], timeoutMs: number): void {
  expect(run.timedOut, `the child vitest run exceeded ${timeoutMs} ms; its output:\n${run.output.slice(-4000)}`).toBe(false);
  expect(run.exitCode, `vitest exits 1 when some test failed; its output:\n${run.output.slice(-4000)}`).toBe(1);
  // The pid check proves something only when the fixtures did record their processes.
  expect(new Set(run.pids.values())).toEqual(new Set(roles));
  expect(run.survivors, `processes still alive ${GONE_MS} ms after the child vitest exited`).toEqual([]);
  expect(run.leftover, `temp dirs left in the child's TMPDIR ${run.tmpDir}`).toEqual([]);
}
