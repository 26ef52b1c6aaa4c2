// The grouped suites' scheduler (harness/setup/grouped-suite.ts): a plain run's client runs start from
// the selection forecast while vitest still collects the tests; when vitest's actual selection then
// differs for a group, that group is run again for exactly the selected rows and its rows read the new
// result — a forecast can start work early, never decide a verdict.

import { describe, expect, test } from 'vitest';

import type { MatrixGroup } from '../../harness/runs/plan.ts';
import { GroupScheduler, type GroupRunResult, type RowOutcome } from '../../harness/setup/grouped-suite.ts';

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
