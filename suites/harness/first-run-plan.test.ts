// Fast on a first run (harness/setup/run-plan.ts, group-scheduler.ts): a fresh config whose stdio
// client restarts its server after every negative row (fixtures/speed-restarting-sdk, like the
// TypeScript SDK's client) gets its group split on the very first run, from the rows, the transport
// and the negative share alone; every row of both parts keeps its full evidence; and what that run
// measured is found again by a run of another config file over the same adapters. Asserted on the
// plan and the scheduler's decisions (AHP_VERBOSE=1 lines), never on the wall clock.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { completeChildRun, type CompletedRun } from './support/completed-child-run.ts';
import { fixtureAdapter, PROJECT_ROOT, referenceAdapter, removeChildRun, type ChildConfig } from './support/child-vitest-run.ts';

const TIMEOUT_MS = 150_000;
const GROUP = 'reference→restarting stdio/none';

/** The first `positives` rows that are accepted and the first `negatives` that are rejected, in file order. */
function rowsOfKinds(positives: number, negatives: number): string[] {
  const rows = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'fixtures', 'scenarios.json'), 'utf8')) as { scenarios: Array<{ id: string; expectError?: boolean }> }).scenarios;
  const accepted = rows.filter((row) => row.expectError !== true).slice(0, positives);
  const rejected = rows.filter((row) => row.expectError === true).slice(0, negatives);
  return rows.filter((row) => accepted.includes(row) || rejected.includes(row)).map((row) => row.id);
}

const config = (scenarioIds: string[]): ChildConfig => ({
  adapters: [referenceAdapter(), fixtureAdapter('speed-restarting-sdk', 'restarting')],
  pairings: [{ server: 'reference', client: 'restarting' }],
  transports: ['stdio'],
  watchdogs: { startupMs: 20_000, runMs: 90_000 },
  parallelism: 2,
  scenarioIds,
});

/** The scheduler's verbose lines of the child's output. */
const decisions = (run: CompletedRun): string[] =>
  run.output
    .split('\n')
    .filter((line) => line.startsWith('[ahp core] '))
    // when a decision was made (since the scheduler started) is not asserted
    .map((line) => line.replace(/ at \d+(\.\d)? s:/, ' at <t>:'));

describe('a first run of a fresh config with a client that restarts its server after every negative row', () => {
  let first: CompletedRun;
  let second: CompletedRun;

  beforeAll(async () => {
    first = await completeChildRun({ name: 'first-run', project: 'core', config: config(rowsOfKinds(8, 16)), timeoutMs: TIMEOUT_MS, options: { env: { AHP_VERBOSE: '1' } } });
    // Another config file (its own folder) over the same adapters, with the first run's timings cache.
    second = await completeChildRun({
      name: 'second-run',
      project: 'core',
      config: config(rowsOfKinds(4, 2)),
      timeoutMs: TIMEOUT_MS,
      options: { env: { AHP_VERBOSE: '1', AHP_TIMINGS_FILE: path.join(first.dirs.dir, 'run-timings.json') } },
    });
  }, 2 * TIMEOUT_MS + 20_000);
  afterAll(() => {
    for (const run of [first, second]) if (run) removeChildRun(run.dirs);
  });

  test('is split into two client runs by its plan, before anything was measured', () => {
    expect(first.exitCode, first.output.slice(-4000)).toBe(0);
    expect(decisions(first)).toEqual([`[ahp core] ${GROUP}: split into 2 at <t>: plan (24 rows, 16 negative, first-run estimate 13 s)`]);
  });

  test('both parts really ran their rows against fresh servers (one per negative row, plus each client run’s first), and every process was reaped', () => {
    const servers = [...first.pids.values()].filter((role) => role.startsWith('restarting-server-'));
    expect(servers).toHaveLength(16 + 2);
    expect(first.survivors).toEqual([]);
    expect(first.leftover).toEqual([]);
  });

  test('every row keeps its verdict with full evidence, and the report carries the group’s run time and its two client runs', () => {
    const report = JSON.parse(readFileSync(path.join(first.dirs.reportsDir, 'core.json'), 'utf8')) as {
      groups: Array<{ server: string; client: string; status: string; evidence?: string; durationMs?: number; clientRuns?: number; results: Array<{ status: string }> }>;
    };
    const group = report.groups.find((candidate) => candidate.client === 'restarting');
    expect(group).toMatchObject({ status: 'passed', evidence: 'full', clientRuns: 2, durationMs: expect.any(Number) });
    expect(group!.results.filter((row) => row.status === 'passed')).toHaveLength(24);
    expect(readFileSync(path.join(first.dirs.reportsDir, 'core-matrix.md'), 'utf8')).toMatch(/^Slowest groups \(client run time, .*reference → restarting stdio\/none .*2 client runs\)/m);
  });

  test('a run of another config file over the same adapters plans from what the first one measured', () => {
    expect(second.exitCode, second.output.slice(-4000)).toBe(0);
    // Whether the measured cost is worth a split depends on how fast the machine was: not asserted.
    expect(decisions(second)).toEqual([expect.stringMatching(new RegExp(`^\\[ahp core\\] ${GROUP}: (one run|split into 2 at <t>: plan) \\(6 rows, 2 negative, measured pairing \\d+(\\.\\d)? s\\)$`))]);
  });
});
