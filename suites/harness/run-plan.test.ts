// The run planner (harness/setup/run-plan.ts): a group is one client run unless it is a long pole
// that would leave other cores idle; then it splits into the fewest parts that each fit a fair share,
// and runs start longest first. Costs come from measured timings.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { describe, expect, test } from 'vitest';

import { estimate, makespan, planRuns } from '../../harness/setup/run-plan.ts';
import { loadTimings, recordTiming, saveTimings, type RunTimings } from '../../harness/setup/run-timings.ts';

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
    expect(estimate(timings, 'x', 10)).toEqual({ cost: 1500 + 20 * 10, startup: 1500 });
    recordTiming(timings, 'x', 1, 800);
    recordTiming(timings, 'x', 100, 10_800);
    expect(estimate(timings, 'x', 50)).toEqual({ cost: 800 + 108 * 50, startup: 800 });
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

  test('timings are kept per config file and project: another config plans from nothing', () => {
    withFile((file) => {
      const timings: RunTimings = new Map();
      recordTiming(timings, 'g', 10, 5_000);
      saveTimings('/a/config.ts', 'core', timings, file);
      expect(loadTimings('/a/config.ts', 'core', file).get('g')).toEqual({ rows: 10, ms: 5_000 });
      expect(loadTimings('/a/config.ts', 'lifecycle', file).size).toBe(0);
      expect(loadTimings('/b/config.json', 'core', file).size).toBe(0);
    });
  });

  test('only the 16 most recently saved configs are kept', () => {
    withFile((file) => {
      const timings: RunTimings = new Map([['g', { rows: 1, ms: 1 }]]);
      for (let n = 0; n < 20; n++) saveTimings(`/tmp/selftest-${n}/config.json`, 'core', timings, file);
      saveTimings('/tmp/selftest-0/config.json', 'core', timings, file); // saved again: most recent
      const kept = Object.keys(JSON.parse(readFileSync(file, 'utf8')) as object);
      expect(kept).toHaveLength(16);
      expect(kept.at(-1)).toBe('/tmp/selftest-0/config.json');
      expect(kept).not.toContain('/tmp/selftest-4/config.json');
      expect(kept).toContain('/tmp/selftest-5/config.json');
    });
  });

  test('a garbled or older-format file only means no timings', () => {
    withFile((file) => {
      writeFileSync(file, '{"core":{"g":{"rows":1,"ms":1}}');
      expect(loadTimings('/a/config.ts', 'core', file).size).toBe(0);
      writeFileSync(file, '{"core":{"g":{"rows":1,"ms":1}}}');
      expect(loadTimings('/a/config.ts', 'core', file).size).toBe(0);
    });
  });
});
