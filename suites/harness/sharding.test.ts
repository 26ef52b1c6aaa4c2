// Sharding across CI machines: `vitest run --project core --shard=i/3 --reporter=blob` three times,
// then `vitest --merge-reports`, must split the groups between the shards (each group in exactly one)
// and produce exactly the core-matrix.md and core.json of a single run.

import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { groupsOfPart } from '../../harness/setup/shard-parts.ts';
import { shardFromArgv } from '../../harness/setup/shard-argv.ts';
import type { MatrixGroup } from '../../harness/runs/plan.ts';
import { PROJECT_ROOT, prepareChildRun, referenceAdapter, removeChildRun, runVitestChild, type ChildRunDirs } from './support/child-vitest-run.ts';
import { readJsonReport } from './support/vitest-json-report.ts';

const VITEST_CLI = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');

describe('the part assignment', () => {
  const group = (label: string, runnable: boolean): MatrixGroup =>
    ({ label, ...(runnable ? {} : { inapplicable: 'x' }) }) as unknown as MatrixGroup;
  const groups = [group('a', true), group('b', true), group('c', false), group('d', true), group('e', false), group('f', true), group('g', true)];

  test('every group is in exactly one part, runnable and skipped groups spread separately', () => {
    const parts = [1, 2, 3].map((part) => groupsOfPart(groups, { part, count: 3 }).map((g) => g.label));
    expect(parts).toEqual([['a', 'c', 'f'], ['b', 'e', 'g'], ['d']]);
    expect(parts.flat().sort()).toEqual(groups.map((g) => g.label).sort());
  });

  test('--shard is read in both spellings', () => {
    expect(shardFromArgv(['run', '--shard=2/5'])).toEqual({ index: 2, count: 5 });
    expect(shardFromArgv(['run', '--shard', '1/3'])).toEqual({ index: 1, count: 3 });
    expect(shardFromArgv(['run'])).toBeUndefined();
  });
});

/** A report without what differs from one run to the next: the groups' measured run times. */
function untimed(text: string): string {
  return text
    .replace(/\n\s*"(durationMs|clientRuns)": \d+,?/g, '')
    .replace(/^Slowest groups .*$/m, '');
}

describe('three shards merged equal one run', () => {
  let dirs: ChildRunDirs;
  let single = { json: '', markdown: '' };
  let merged = { json: '', markdown: '' };
  const shardTitles: string[][] = [];
  let mergeOutput = '';

  const env = (): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined && key !== 'VITEST' && !key.startsWith('VITEST_')) out[key] = value;
    return { ...out, AHP_CONFIG: dirs.configFile, TMPDIR: dirs.dir };
  };
  const reports = (): { json: string; markdown: string } => ({
    json: readFileSync(path.join(dirs.reportsDir, 'core.json'), 'utf8'),
    markdown: readFileSync(path.join(dirs.reportsDir, 'core-matrix.md'), 'utf8'),
  });

  beforeAll(async () => {
    dirs = prepareChildRun('shards', {
      adapters: [referenceAdapter()],
      transports: ['http', 'stdio'],
      auth: ['none', 'bearer'],
      watchdogs: { startupMs: 20_000, runMs: 30_000 },
    });
    const run = await runVitestChild(dirs, 'core', 90_000);
    expect(run.exitCode, run.output.slice(-3000)).toBe(0);
    single = reports();
    rmSync(dirs.reportsDir, { recursive: true, force: true });
    const blobs = path.join(dirs.dir, 'blobs');
    for (const index of [1, 2, 3]) {
      const jsonFile = path.join(dirs.dir, `shard-${index}.json`);
      const shard = await execa(
        process.execPath,
        [VITEST_CLI, 'run', '--project', 'core', `--shard=${index}/3`, '--reporter=blob', '--reporter=json', `--outputFile.blob=${path.join(blobs, `blob-${index}.json`)}`, `--outputFile.json=${jsonFile}`],
        { cwd: PROJECT_ROOT, env: env(), extendEnv: false, reject: false, timeout: 90_000, all: true },
      );
      expect(shard.exitCode, String(shard.all).slice(-3000)).toBe(0);
      shardTitles.push([...new Set(readJsonReport(jsonFile).map((row) => row.ancestorTitles.at(-1)!))]);
    }
    rmSync(dirs.reportsDir, { recursive: true, force: true });
    const merge = await execa(process.execPath, [VITEST_CLI, '--merge-reports', blobs], { cwd: PROJECT_ROOT, env: env(), extendEnv: false, reject: false, timeout: 90_000, all: true });
    mergeOutput = String(merge.all);
    expect(merge.exitCode, mergeOutput.slice(-3000)).toBe(0);
    merged = reports();
  }, 400_000);
  afterAll(() => {
    if (dirs) removeChildRun(dirs);
  });

  test('each shard runs its own groups, and together they run every group once', () => {
    const all = shardTitles.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual(['reference→reference http/bearer', 'reference→reference http/none', 'reference→reference stdio/bearer', 'reference→reference stdio/none']);
    expect(shardTitles.every((titles) => titles.length >= 1)).toBe(true);
  });

  test('the merged core.json and core-matrix.md are exactly those of a single run, but for the measured run times', () => {
    expect(untimed(merged.json)).toBe(untimed(single.json));
    expect(untimed(merged.markdown)).toBe(untimed(single.markdown));
    expect(mergeOutput).toContain('## core matrix');
  });

  test('every group that ran carries its run time through the merge', () => {
    const groups = (json: string) => (JSON.parse(json) as { groups: Array<{ transport: string; auth: string; durationMs?: unknown; clientRuns?: unknown }> }).groups;
    const ran = (json: string) => groups(json).filter((group) => group.transport === 'http' || group.auth === 'none');
    for (const json of [single.json, merged.json]) {
      expect(ran(json)).toHaveLength(3);
      for (const group of ran(json)) expect(group).toMatchObject({ durationMs: expect.any(Number), clientRuns: expect.any(Number) });
    }
    expect(merged.markdown).toMatch(/^Slowest groups \(client run time, /m);
  });
});
