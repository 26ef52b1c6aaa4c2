// The grouped suites' scheduler (harness/setup/grouped-suite.ts): a plain run's client runs start from
// the selection forecast while vitest still collects the tests; when vitest's actual selection then
// differs for a group, that group is run again for exactly the selected rows and its rows read the new
// result — a forecast can start work early, never decide a verdict.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { describe, expect, test } from 'vitest';

import type { MatrixGroup } from '../../harness/runs/plan.ts';
import { GroupScheduler } from '../../harness/setup/group-scheduler.ts';
import type { GroupRunResult, RowOutcome } from '../../harness/setup/grouped-suite.ts';

interface Row {
  id: string;
}

const ROWS: Row[] = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
const group = (label: string, rank: number): MatrixGroup => ({ label, rank, transport: 'http', auth: 'none' }) as unknown as MatrixGroup;
const X = group('s→c http/none', 0);
const Y = group('s→c http/bearer', 1);

function schedulerRecordingRuns(options: { hang?: boolean; runBoundMs?: number } = {}): { scheduler: GroupScheduler<Row>; runs: string[] } {
  const runs: string[] = [];
  const scheduler = new GroupScheduler<Row>({
    project: 'core',
    configFile: '/nonexistent/group-scheduler.config.json',
    rows: ROWS,
    groups: [X, Y],
    expectedOf: () => null,
    parallelism: 1,
    runBoundMs: options.runBoundMs ?? 10_000,
    async run(runGroup, rows): Promise<GroupRunResult> {
      runs.push(`${runGroup.label}: ${rows.map((row) => row.id).join(',')}`);
      if (options.hang) return new Promise<never>(() => undefined);
      const outcome: RowOutcome = { verdict: 'passed', reason: '', adapterStatus: 'passed', errors: [], actual: `run of ${rows.map((row) => row.id).join(',')}` };
      return { rows: new Map(rows.map((row) => [row.id, outcome])), keptLogs: [] };
    },
  });
  return { scheduler, runs };
}

describe('GroupScheduler', () => {
  test('the actual selection equal to the forecast starts nothing more: each group ran once', async () => {
    const { scheduler, runs } = schedulerRecordingRuns();
    scheduler.scheduleAll([{ group: X, rows: ROWS }, { group: Y, rows: [ROWS[1]!] }]);
    scheduler.scheduleAll([{ group: Y, rows: [ROWS[1]!] }, { group: X, rows: [ROWS[2]!, ROWS[0]!, ROWS[1]!] }]);
    await Promise.all([scheduler.result(X.label), scheduler.result(Y.label)]);
    expect(runs.sort()).toEqual(['s→c http/bearer: b', 's→c http/none: a,b,c']);
  });

  test('a group whose actual rows differ from the forecast runs again for exactly those, and its rows read that run', async () => {
    const { scheduler, runs } = schedulerRecordingRuns();
    scheduler.scheduleAll([{ group: X, rows: ROWS }, { group: Y, rows: ROWS }]);
    scheduler.scheduleAll([{ group: X, rows: [ROWS[2]!] }, { group: Y, rows: ROWS }]);
    const x = await scheduler.result(X.label)!;
    await scheduler.result(Y.label);
    expect(runs.filter((run) => run.startsWith(X.label))).toEqual(['s→c http/none: a,b,c', 's→c http/none: c']);
    expect(runs.filter((run) => run.startsWith(Y.label))).toEqual(['s→c http/bearer: a,b,c']);
    expect([...x.rows.keys()]).toEqual(['c']);
    expect(x.rows.get('c')?.actual).toBe('run of c');
  });

  test('a run that never ends (its watchdogs failed) fails its rows as a harness fault once the bound from its start has passed', async () => {
    const { scheduler, runs } = schedulerRecordingRuns({ hang: true, runBoundMs: 50 });
    scheduler.scheduleAll([{ group: X, rows: ROWS }]);
    await expect(scheduler.result(X.label)).rejects.toThrow('harness fault: the client run of s→c http/none (3 rows) did not end within 50 ms of its start');
    expect(runs).toEqual(['s→c http/none: a,b,c']);
  });
});

describe('GroupScheduler adapts while it runs', () => {
  // Rows of two kinds: every third one negative. Groups carry the adapters their timing keys name.
  const ROWS_100: Row[] = Array.from({ length: 100 }, (_, i) => ({ id: `r${i}` }));
  const adapter = (file: string) => ({ name: file, adapterFile: file }) as unknown as MatrixGroup['server'];
  const grid = (label: string, rank: number, transport: 'http' | 'stdio', client: string): MatrixGroup =>
    ({ label, rank, transport, auth: 'none', server: adapter(`/sdk/server-${rank}.json`), client: adapter(client) }) as unknown as MatrixGroup;

  /** A family whose runs end only when the test says so, with the duration the test gives (no clock involved). */
  function controlledFamily(groups: MatrixGroup[], timingsFile: string) {
    const started: Array<{ label: string; rows: Row[]; finish(durationMs: number): void }> = [];
    const waiters: Array<() => void> = [];
    process.env.AHP_TIMINGS_FILE = timingsFile;
    const scheduler = new GroupScheduler<Row>({
      project: 'core',
      configFile: '/fresh/config.json',
      rows: ROWS_100,
      groups,
      expectedOf: () => null,
      isNegative: (row) => Number(row.id.slice(1)) % 3 === 0,
      parallelism: 2,
      runBoundMs: 60_000,
      run(runGroup, rows): Promise<GroupRunResult> {
        return new Promise((resolve) => {
          const outcome: RowOutcome = { verdict: 'passed', reason: '', adapterStatus: 'passed', errors: [], actual: null };
          started.push({ label: runGroup.label, rows, finish: (durationMs) => resolve({ rows: new Map(rows.map((row) => [row.id, outcome])), keptLogs: [], durationMs }) });
          waiters.shift()?.();
        });
      },
    });
    delete process.env.AHP_TIMINGS_FILE;
    /** Resolves once `count` runs have started (each start wakes one waiter; bounded by vitest's test timeout). */
    const startedRuns = async (count: number): Promise<void> => {
      while (started.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    };
    return { scheduler, started, startedRuns };
  }

  const withTimings = async (check: (file: string) => Promise<void>): Promise<void> => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ahp-scheduler-'));
    try {
      await check(path.join(dir, 'run-timings.json'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  test('a first run of a fresh config splits a long stdio group with negative rows by its plan, and says so', async () => {
    await withTimings(async (file) => {
      const stdio = grid('ts stdio/none', 0, 'stdio', '/sdk/ts-client.json');
      const http = [1, 2, 3].map((n) => grid(`py http/${n}`, n, 'http', '/sdk/py-client.json'));
      const { scheduler, started, startedRuns } = controlledFamily([stdio, ...http], file);
      scheduler.scheduleAll([stdio, ...http].map((group) => ({ group, rows: ROWS_100 })));
      await startedRuns(2);
      // Longest first: both halves of the stdio group start on the two cores.
      expect(started.map((run) => [run.label, run.rows.length])).toEqual([
        ['ts stdio/none', 50],
        ['ts stdio/none', 50],
      ]);
      // The time in a decision is when it was made (since the scheduler started): not asserted.
      expect(scheduler.decisions.map((decision) => `${decision.group}: ${decision.text.replace(/ at \d+(\.\d)? s:/, ' at <t>:')}`)).toEqual([
        'ts stdio/none: split into 2 at <t>: plan (100 rows, 34 negative, first-run estimate 26 s)',
        'py http/1: one run (100 rows, 34 negative, first-run estimate 3.5 s)',
        'py http/2: one run (100 rows, 34 negative, first-run estimate 3.5 s)',
        'py http/3: one run (100 rows, 34 negative, first-run estimate 3.5 s)',
      ]);
      for (let n = 0; n < 5; n++) {
        started[n]!.finish(1_000);
        await startedRuns(Math.min(5, n + 3));
      }
      const merged = await scheduler.result(stdio.label)!;
      expect([...merged.rows.keys()]).toEqual(ROWS_100.map((row) => row.id));
      expect(merged).toMatchObject({ runs: 2 });
    });
  });

  test('when a core goes idle and a queued group turns out long (its client measured slow meanwhile), its tail becomes a run of its own', async () => {
    await withTimings(async (file) => {
      // Three HTTP groups of about equal first-run estimate: too small to split by plan. x and z share their client.
      const x = grid('x http/none', 0, 'http', '/sdk/slow-client.json');
      const y = grid('y http/none', 1, 'http', '/sdk/other-client.json');
      const z = grid('z http/none', 2, 'http', '/sdk/slow-client.json');
      const { scheduler, started, startedRuns } = controlledFamily([x, y, z], file);
      scheduler.scheduleAll([x, y, z].map((group) => ({ group, rows: ROWS_100 })));
      await startedRuns(2);
      expect(started.map((run) => run.label)).toEqual(['x http/none', 'y http/none']);
      expect(scheduler.decisions.every((decision) => decision.text.startsWith('one run'))).toBe(true);
      // x took 60 s for its 100 rows: z, same client, is now estimated at about a minute; y is nearly done.
      started[0]!.finish(60_000);
      await startedRuns(3);
      const split = scheduler.decisions.filter((decision) => decision.text.includes('core idle'));
      expect(split.map((decision) => decision.group)).toEqual(['z http/none']);
      expect(split[0]!.text).toMatch(/^split into 2 at \d+\.\d s: core idle \(tail of 50 rows as a run of its own, measured client\)$/);
      expect(started[2]).toMatchObject({ label: 'z http/none' });
      expect(started[2]!.rows.map((row) => row.id)).toEqual(ROWS_100.slice(0, 50).map((row) => row.id));
      // y ends: the idle core takes z's tail.
      started[1]!.finish(3_000);
      await startedRuns(4);
      expect(started[3]!.rows.map((row) => row.id)).toEqual(ROWS_100.slice(50).map((row) => row.id));
      started[2]!.finish(30_000);
      started[3]!.finish(30_000);
      const merged = await scheduler.result(z.label)!;
      expect([...merged.rows.keys()]).toEqual(ROWS_100.map((row) => row.id));
      expect(merged).toMatchObject({ runs: 2, durationMs: 60_000 });
    });
  });
});
