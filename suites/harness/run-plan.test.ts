// The run planner (harness/setup/run-plan.ts): a group is one client run unless it is a long pole
// that would leave other cores idle; then it splits into the fewest parts that each fit a fair share,
// and runs start longest first. Costs come from measured timings.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { describe, expect, test } from 'vitest';

import type { MatrixGroup } from '../../harness/runs/plan.ts';
import { estimate, makespan, planRuns, rowCosts, runCost, splitOnIdle } from '../../harness/setup/run-plan.ts';
import { loadTimings, recordTiming, saveTimings, timingKeys, type RunTimings } from '../../harness/setup/run-timings.ts';

const rows = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describe('planRuns', () => {
  test('groups whose cost is mostly process start are never split, even when they are few', () => {
    const timings: RunTimings = new Map();
    const runs = planRuns([{ label: 'a', rows: rows(6), splittable: true }, { label: 'b', rows: rows(6), splittable: true }], 4, timings);
    expect(runs.map((run) => [run.label, run.rows.length])).toEqual([['a', 6], ['b', 6]]);
  });

  test('a long pole splits into the fewest parts that fit a fair share; short groups stay whole; longest first', () => {
    const timings: RunTimings = new Map();
    recordTiming(timings, 'slow', 100, 100_000); // 1 s per row (a server restarted after every row)
    recordTiming(timings, 'slow', 2, 3_000); // what one more client process costs to start
    for (const label of ['f1', 'f2', 'f3']) recordTiming(timings, label, 100, 2_000);
    const runs = planRuns(
      [
        { label: 'slow', rows: rows(100), splittable: true },
        ...['f1', 'f2', 'f3'].map((label) => ({ label, rows: rows(100), splittable: true })),
      ],
      2,
      timings,
    );
    const slow = runs.filter((run) => run.label === 'slow');
    expect(slow.length).toBe(2);
    expect(slow.map((run) => run.rows.length)).toEqual([50, 50]);
    expect(slow.flatMap((run) => run.rows)).toEqual(rows(100));
    expect(runs.filter((run) => run.label !== 'slow').every((run) => run.rows.length === 100)).toBe(true);
    expect(runs.map((run) => run.cost)).toEqual([...runs.map((run) => run.cost)].sort((a, b) => b - a));
  });

  test('a run that would finish alone at the end is split when that shortens the schedule, not when starts eat the gain', () => {
    const three = (startMs: number, hundredRowsMs: number) => {
      const timings: RunTimings = new Map();
      for (const label of ['a', 'b', 'c']) {
        recordTiming(timings, label, 2, startMs); // the cost of one more start
        recordTiming(timings, label, 100, hundredRowsMs);
      }
      return planRuns(['a', 'b', 'c'].map((label) => ({ label, rows: rows(100), splittable: true })), 2, timings);
    };
    // 3 equal runs on 2 cores: the third runs alone (makespan 2 runs); halving one gives 1.5 runs + a start.
    const cheap = three(500, 10_000);
    expect(cheap.map((run) => run.rows.length).sort((x, y) => x - y)).toEqual([50, 50, 100, 100]);
    expect(makespan(cheap.map((run) => run.cost), 2)).toBeLessThan(2 * 10_500);
    // Runs that are almost all process start: a split would gain next to nothing.
    expect(three(10_000, 200).map((run) => run.rows.length)).toEqual([100, 100, 100]);
  });

  test('makespan: longest first, each on the least loaded core', () => {
    expect(makespan([3, 5, 3, 4, 3], 2)).toBe(10); // 5+3+3 | 4+3 (LPT, not the optimum 9)
    expect(makespan([7], 4)).toBe(7);
    expect(makespan([], 2)).toBe(0);
  });

  test('a group that must run whole is never split', () => {
    const timings: RunTimings = new Map();
    recordTiming(timings, 'lineage', 85, 200_000);
    recordTiming(timings, 'other', 85, 1_000);
    const runs = planRuns([{ label: 'lineage', rows: rows(85), splittable: false }, { label: 'other', rows: rows(85), splittable: true }], 2, timings);
    expect(runs.map((run) => [run.label, run.rows.length])).toEqual([['lineage', 85], ['other', 85]]);
  });

  test('estimates come from the last measured run and the cheapest small run', () => {
    const timings: RunTimings = new Map();
    expect(estimate(rowCosts(timings, { label: 'x' }), 10)).toEqual({ cost: 1500 + 20 * 10, startup: 1500 });
    recordTiming(timings, 'x', 1, 800);
    recordTiming(timings, 'x', 100, 10_800);
    expect(estimate(rowCosts(timings, { label: 'x' }), 50)).toEqual({ cost: 800 + 108 * 50, startup: 800 });
  });
});

describe('a first run (nothing measured yet)', () => {
  const keys = { pair: 'server.json → ts-client.json stdio/none', client: 'client ts-client.json stdio' };
  const negative = (row: number): boolean => row % 5 < 2; // 40 % negative, like the canonical rows

  test('is estimated from rows, transport and negative share: a negative stdio row may cost a server start', () => {
    const timings: RunTimings = new Map();
    const stdio = rowCosts(timings, { label: 'g', keys, transport: 'stdio' });
    const http = rowCosts(timings, { label: 'g', keys: { ...keys, pair: 'http pair' }, transport: 'http' });
    expect(stdio.basis).toBe('first-run estimate');
    expect(runCost({ isNegative: negative }, stdio, rows(100))).toBe(1500 + 100 * 30 + 40 * 600);
    expect(runCost({ isNegative: negative }, http, rows(100))).toBe(1500 + 100 * 20);
  });

  test('a long stdio group among short HTTP ones is split on its first run; the HTTP groups are not', () => {
    const groups = [
      { label: 'stdio', rows: rows(105), splittable: true, keys, transport: 'stdio' as const, isNegative: negative },
      ...[1, 2, 3, 4, 5].map((n) => ({ label: `http-${n}`, rows: rows(105), splittable: true, keys: { pair: `p${n}`, client: `c${n}` }, transport: 'http' as const, isNegative: negative })),
    ];
    const runs = planRuns(groups, 2, new Map());
    const stdio = runs.filter((run) => run.label === 'stdio');
    expect(stdio.map((run) => [run.parts, run.costs.basis])).toEqual([
      [2, 'first-run estimate'],
      [2, 'first-run estimate'],
    ]);
    // Cut where the estimated cost halves (negative rows weigh more), in order, every row once.
    expect(stdio.map((run) => run.rows.length).sort()).toEqual([52, 53]);
    expect(stdio.flatMap((run) => run.rows).sort((a, b) => a - b)).toEqual(rows(105));
    expect(runs.filter((run) => run.label !== 'stdio').every((run) => run.parts === 1)).toBe(true);
  });

  test('a group is cut where its estimated cost halves: clustered negative rows do not all land in one part', () => {
    const clustered = (row: number): boolean => row < 30; // all 30 negatives first
    const runs = planRuns([{ label: 'g', rows: rows(100), splittable: true, keys, transport: 'stdio', isNegative: clustered }], 2, new Map());
    expect(runs.map((run) => run.rows.length).sort((a, b) => a - b)).toEqual([17, 83]);
  });

  test('a small stdio group is never cut into parts its start would dominate', () => {
    const runs = planRuns([{ label: 'small', rows: rows(12), splittable: true, keys, transport: 'stdio', isNegative: negative }], 2, new Map());
    expect(runs.map((run) => run.rows.length)).toEqual([12]);
  });

  // The real grid: four stdio groups that look alike on a first run (two of them, in truth, with a
  // client that restarts its server after every negative row) among twenty HTTP groups.
  const realGrid = (measured?: RunTimings) => {
    const stdio = [1, 2, 3, 4].map((n) => ({ label: `stdio-${n}`, rows: rows(105), splittable: true, keys: { pair: `sp${n}`, client: `sc${n}` }, transport: 'stdio' as const, isNegative: negative }));
    const http = Array.from({ length: 20 }, (_, n) => ({ label: `http-${n}`, rows: rows(105), splittable: true, keys: { pair: `hp${n}`, client: `hc${n}` }, transport: 'http' as const, isNegative: negative }));
    return { groups: [...stdio, ...http], timings: measured ?? new Map<string, never>() };
  };

  test('on a first run, a stdio group that would be a long pole if its client restarted its server is cut in two anyway', () => {
    const { groups, timings } = realGrid();
    const runs = planRuns(groups, 4, timings);
    for (const n of [1, 2, 3, 4]) {
      const parts = runs.filter((run) => run.label === `stdio-${n}`);
      // 42 negative rows at 1.6 s each, plus the rows and a start: longer than a fair share (47.85 s).
      expect(parts.map((run) => [run.parts, run.worstCaseMs])).toEqual([
        [2, 1500 + 105 * 30 + 42 * 1600],
        [2, 1500 + 105 * 30 + 42 * 1600],
      ]);
      expect(parts.flatMap((run) => run.rows).sort((a, b) => a - b)).toEqual(rows(105));
    }
    expect(runs.filter((run) => run.label.startsWith('http-')).every((run) => run.parts === 1 && run.worstCaseMs === undefined)).toBe(true);
  });

  test('not when even that worst case fits a fair share (two cores), nor once measured: then the two measured long poles are split together', () => {
    const { groups, timings } = realGrid();
    expect(planRuns(groups, 2, timings).every((run) => run.parts === 1 && run.worstCaseMs === undefined)).toBe(true);
    const measured: RunTimings = new Map();
    // Measured: the two restarting groups cost 70 s, the steady ones 5 s; the plan follows that alone.
    for (const n of [1, 2, 3, 4]) recordTiming(measured, `sp${n}`, 105, n <= 2 ? 70_000 : 5_000);
    const runs = planRuns(realGrid().groups, 4, measured);
    expect(runs.every((run) => run.worstCaseMs === undefined)).toBe(true);
    expect(runs.filter((run) => run.label === 'stdio-3' || run.label === 'stdio-4').every((run) => run.parts === 1)).toBe(true);
    // Two equal long poles: splitting one alone shortens nothing, so both are split at once.
    for (const pole of ['stdio-1', 'stdio-2']) expect(runs.filter((run) => run.label === pole).length, pole).toBeGreaterThan(1);
  });

  test("the client's measured cost on that transport, from a run with another server, replaces the estimate", () => {
    const timings: RunTimings = new Map();
    recordTiming(timings, keys.client, 100, 80_000);
    const costs = rowCosts(timings, { label: 'g', keys, transport: 'stdio' });
    expect(costs).toMatchObject({ basis: 'measured client', rowMs: 800, negativeRowMs: 0 });
    recordTiming(timings, keys.pair, 100, 5_000);
    expect(rowCosts(timings, { label: 'g', keys, transport: 'stdio' })).toMatchObject({ basis: 'measured pairing', rowMs: 50 });
  });
});

describe('splitOnIdle (a core went idle while runs are still queued)', () => {
  test('the queued run that would finish alone at the end is cut in two', () => {
    // One core still has 2 s to go; the other is idle; one 40 s run is queued: halves of 21 s each finish sooner.
    expect(splitOnIdle([2_000], [{ cost: 40_000, splitCosts: [21_000, 21_000], groupRuns: 1 }], 2)).toBe(0);
  });

  test('nothing is split when the queue already fills the cores, when halves are not worth a start, or when the group has a run per core', () => {
    expect(splitOnIdle([30_000], [{ cost: 30_000, splitCosts: [16_000, 16_000], groupRuns: 1 }], 2)).toBeUndefined();
    expect(splitOnIdle([0], [{ cost: 40_000, splitCosts: undefined, groupRuns: 1 }], 2)).toBeUndefined();
    expect(splitOnIdle([0], [{ cost: 40_000, splitCosts: [21_000, 21_000], groupRuns: 2 }], 2)).toBeUndefined();
  });
});

describe('the timings file', () => {
  const withFile = (check: (file: string) => void): void => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ahp-timings-'));
    try {
      check(path.join(dir, 'run-timings.json'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  test('timings are kept by family and key (adapters, transport, mode), whatever config file named the adapters', () => {
    withFile((file) => {
      const timings: RunTimings = new Map();
      recordTiming(timings, 'g', 10, 5_000);
      saveTimings('core', timings, file);
      expect(loadTimings('core', file).get('g')).toEqual({ rows: 10, ms: 5_000 });
      expect(loadTimings('lifecycle', file).size).toBe(0);
    });
  });

  test('the keys are the adapter.json paths, never the names a config gives the adapters', () => {
    const adapter = (name: string, file: string) => ({ name, adapterFile: file }) as unknown as MatrixGroup['server'];
    const one = timingKeys({ server: adapter('py', '/sdk/py/interop/adapter.json'), client: adapter('ts', '/sdk/ts/interop/adapter.json'), transport: 'stdio', auth: 'none' });
    const renamed = timingKeys({ server: adapter('python', '/sdk/py/interop/adapter.json'), client: adapter('typescript', '/sdk/ts/interop/adapter.json'), transport: 'stdio', auth: 'none' });
    expect(renamed).toEqual(one);
    expect(one.client).toBe('client /sdk/ts/interop/adapter.json stdio');
    expect(one.pair).toContain('/sdk/py/interop/adapter.json');
  });

  test('each family keeps its most recently measured 2000 keys', () => {
    withFile((file) => {
      const timings: RunTimings = new Map();
      for (let n = 0; n < 2001; n++) recordTiming(timings, `k${n}`, 1, 1);
      saveTimings('core', timings, file);
      const kept = loadTimings('core', file);
      expect(kept.size).toBe(2000);
      expect(kept.has('k0')).toBe(false);
      expect(kept.has('k2000')).toBe(true);
    });
  });

  test('a garbled or older-format file only means no timings', () => {
    withFile((file) => {
      writeFileSync(file, '{"version":2,"families":{"core":{"g":{"rows":1,"ms":1}}');
      expect(loadTimings('core', file).size).toBe(0);
      // the earlier per-config-file format
      writeFileSync(file, '{"/a/config.ts":{"core":{"g":{"rows":1,"ms":1}}}}');
      expect(loadTimings('core', file).size).toBe(0);
    });
  });
});
