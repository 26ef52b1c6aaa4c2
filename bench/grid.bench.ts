// The grid benchmark (issue: keep every core busy, start only what a selection needs): a configured
// grid run as a user runs it — `vitest run --project core` in a child process — with its CPU split into
// harness and adapter time, next to the goals:
//   - utilisation: wall ≤ 1.15 × (total CPU ÷ cores) on a grid with at least as many runnable groups
//     as cores; harness CPU < 10 % of the total;
//   - a cold `-t` run of one row of one group ≤ 5 s, and the same rerun in watch mode ≤ 1.5 s;
//   - loading the standalone validator cache against compiling the schemas.
// Default grid: the reference adapter, every auth mode, both transports, the core rows duplicated ×4
// under fresh ids (AHP_BENCH_GRID_CONFIG names another config; AHP_BENCH_ROOT runs another checkout's
// vitest, to measure a "before"). Nothing is asserted: figures are printed next to their goals.

import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { projectRoot } from '../harness/config/load-config.ts';
import type { Bench, BenchOutput } from './lib/measure.ts';
import { measureValidatorLoading } from './schemas.bench.ts';

interface TimedRun {
  wallMs: number;
  /** CPU of the command and everything it waited for (bash `times`). */
  totalCpuMs: number;
  /** CPU of adapter processes, sampled from /proc (short-lived ones may be undercounted a little). */
  adapterCpuMs: number;
  /** Sampled CPU by process kind (adapter and the harness parts). */
  byKind: Map<string, number>;
  exitCode: number;
}

/** Where the sampler runs: a process of its own at nice 19 (see process-sampler.mjs). */
const SAMPLER = fileURLToPath(new URL('./lib/process-sampler.mjs', import.meta.url));

/** Starts the niced sampler and resolves once it is sampling (bounded); `stop()` gives its totals by process kind. */
async function startSampler(root: string): Promise<{ stop(): Promise<Map<string, number>> }> {
  const sampler = spawn(process.execPath, [SAMPLER, root, '100'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  sampler.stdout.setEncoding('utf8');
  const exited = new Promise<void>((resolve) => sampler.once('exit', () => resolve()));
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 10_000);
    sampler.stdout.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('ready\n')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(resolve);
  });
  return {
    async stop() {
      sampler.stdin.end();
      await exited;
      const last = output.trim().split('\n').at(-1) ?? '';
      const parsed = (last.startsWith('{') ? JSON.parse(last) : { byKind: {} }) as { byKind: Record<string, number> };
      return new Map(Object.entries(parsed.byKind));
    },
  };
}

/** Runs `argv` under bash so `times` reports the CPU of the whole tree; the niced sampler splits it by process kind. */
async function timedRun(argv: string[], cwd: string, env: NodeJS.ProcessEnv, root: string): Promise<TimedRun> {
  const sampler = await startSampler(root);
  const started = performance.now();
  const { wallMs, stdout, exitCode } = await new Promise<{ wallMs: number; stdout: string; exitCode: number }>((resolve) => {
    execFile('bash', ['-c', '"$@" > /dev/null 2>&1; code=$?; times; exit $code', 'bench', ...argv], { cwd, env, maxBuffer: 1 << 24 }, (error, out) => {
      resolve({ wallMs: performance.now() - started, stdout: out, exitCode: error && typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 0 });
    });
  });
  const byKind = await sampler.stop();
  const children = stdout.trim().split('\n').at(-1)?.match(/(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/);
  const totalCpuMs = children ? (Number(children[1]) * 60 + Number(children[2]) + Number(children[3]) * 60 + Number(children[4])) * 1000 : Number.NaN;
  return { wallMs, totalCpuMs, adapterCpuMs: byKind.get('adapter') ?? 0, byKind, exitCode };
}

/**
 * The default grid (of the checkout at `root`), at a fixed path so that the run planner's timings
 * (kept per config file) carry over between its runs as they do for a user's config: the reference adapter, all modes, both transports, the core rows ×4 under fresh ids. */
function defaultGrid(work: string, root: string): string {
  const home = path.join(root, 'node_modules', '.cache', 'ahp-conformance', 'bench-grid');
  mkdirSync(home, { recursive: true });
  const source = JSON.parse(readFileSync(path.join(root, 'fixtures', 'scenarios.json'), 'utf8')) as { scenarios: Array<Record<string, unknown>> };
  const rename = (value: unknown, from: string, to: string): unknown => JSON.parse(JSON.stringify(value).split(JSON.stringify(from)).join(JSON.stringify(to)));
  const scenarios = [1, 2, 3, 4].flatMap((copy) => source.scenarios.map((row) => rename(row, row.id as string, `${row.id as string}~${copy}`)));
  const scenarioFile = path.join(home, 'grid-scenarios.json');
  writeFileSync(scenarioFile, JSON.stringify({ version: 1, scenarios }));
  const config = path.join(home, 'grid.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      schemas: path.join(root, 'schemas'),
      scenarios: { core: scenarioFile },
      adapters: [{ name: 'reference', cwd: path.join(root, 'adapters', 'reference') }],
      transports: ['http', 'stdio'],
      auth: ['none', 'bearer', 'oauth', 'mtls', 'workload'],
      parallelism: os.availableParallelism(),
      reports: path.join(work, 'reports'),
    }),
  );
  return config;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const verdict = (ok: boolean): string => (ok ? 'meets the goal' : 'MISSES the goal');

async function watchRerun(root: string, env: NodeJS.ProcessEnv, pattern: string): Promise<{ firstMs: number; rerunMs: number } | undefined> {
  const script = `
    import { createVitest } from 'vitest/node';
    const vitest = await createVitest('test', { watch: true, project: ['core'], testNamePattern: ${JSON.stringify(pattern)}, reporters: [] });
    let t = performance.now();
    await vitest.start();
    const firstMs = performance.now() - t;
    t = performance.now();
    await vitest.rerunTestSpecifications(await vitest.getRelevantTestSpecifications());
    const rerunMs = performance.now() - t;
    process.stdout.write(JSON.stringify({ firstMs, rerunMs }) + '\\n');
    await vitest.close();
    process.exit(0);`;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: root, env, maxBuffer: 1 << 24, timeout: 120_000 }, (_error, stdout) => {
      const line = stdout.trim().split('\n').reverse().find((text) => text.startsWith('{"firstMs"'));
      resolve(line ? (JSON.parse(line) as { firstMs: number; rerunMs: number }) : undefined);
    });
  });
}

export const gridBench: Bench = {
  name: 'grid',
  async run(out: BenchOutput) {
    const root = process.env.AHP_BENCH_ROOT ?? projectRoot();
    const cores = os.availableParallelism();
    const work = mkdtempSync(path.join(os.tmpdir(), 'ahp-bench-grid-'));
    try {
      const config = process.env.AHP_BENCH_GRID_CONFIG ?? defaultGrid(work, root);
      const env = { ...process.env, AHP_CONFIG: config };
      const vitest = [process.execPath, path.join(root, 'node_modules', 'vitest', 'vitest.mjs')];
      out.section(`Grid (${root === projectRoot() ? 'this checkout' : root}; ${cores} cores; config ${process.env.AHP_BENCH_GRID_CONFIG ?? 'reference adapter, 5 modes × http + stdio, core rows ×4'})`);

      // A config's first run plans without measured costs; every later run has them (as a user's does).
      const first = await timedRun([...vitest, 'run', '--project', 'core'], root, env, root);
      out.line(`  warm-up run: wall ${seconds(first.wallMs)}, wall ÷ (CPU ÷ cores) ${(first.wallMs / (first.totalCpuMs / cores)).toFixed(2)} (its timings plan the measured run)`);
      const grid = await timedRun([...vitest, 'run', '--project', 'core'], root, env, root);
      const floor = grid.totalCpuMs / cores;
      const harnessCpu = grid.totalCpuMs - grid.adapterCpuMs;
      out.line(`  wall time                ${seconds(grid.wallMs)}${grid.exitCode === 0 ? '' : ` (the run failed: exit ${grid.exitCode})`}`);
      out.line(`  CPU: total ${seconds(grid.totalCpuMs)} = adapters ${seconds(grid.adapterCpuMs)} + harness ${seconds(harnessCpu)}`);
      const parts = [...grid.byKind].filter(([kind]) => kind !== 'adapter').sort((a, b) => b[1] - a[1]);
      out.line(`    sampled harness parts: ${parts.map(([kind, ms]) => `${kind} ${seconds(ms)}`).join(', ')}`);
      out.line(`  utilisation              ${(grid.totalCpuMs / grid.wallMs).toFixed(2)} of ${cores} cores`);
      out.line(`  wall ÷ (CPU ÷ cores)      ${(grid.wallMs / floor).toFixed(2)}   goal ≤ 1.15: ${verdict(grid.wallMs / floor <= 1.15)}`);
      out.line(`  harness share of CPU     ${((harnessCpu / grid.totalCpuMs) * 100).toFixed(1)} %   goal < 10 %: ${verdict(harnessCpu / grid.totalCpuMs < 0.1)}`);

      const one = '^reference→reference http/none permission\\.deny$';
      const cold = await timedRun([...vitest, 'run', '--project', 'core', '-t', one], root, { ...env, AHP_CONFIG: path.join(root, 'adapters.config.ts') }, root);
      out.line(`  cold -t of one row       ${seconds(cold.wallMs)}   goal ≤ 5 s: ${verdict(cold.wallMs <= 5000)}`);
      const watch = await watchRerun(root, { ...env, AHP_CONFIG: path.join(root, 'adapters.config.ts') }, one);
      if (watch) out.line(`  the same rerun in watch  ${seconds(watch.rerunMs)}   goal ≤ 1.5 s: ${verdict(watch.rerunMs <= 1500)} (first run ${seconds(watch.firstMs)})`);
      else out.line('  watch-mode rerun: could not be measured (see vitest output by running it by hand)');

      const validators = measureValidatorLoading('validators', path.join(projectRoot(), 'schemas'), { compile: 1, load: 1, warmup: 0 });
      const compileMs = validators.fresh.msPerOp;
      if (validators.cached === undefined) out.line(`  validators: compile ${compileMs.toFixed(0)} ms; the standalone cache could not be written`);
      else {
        const loadMs = validators.cached.msPerOp;
        out.line(`  validators: standalone cache load ${loadMs.toFixed(1)} ms (${validators.origin}) vs compile ${compileMs.toFixed(0)} ms (×${(compileMs / loadMs).toFixed(0)})`);
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
};
