// The grid benchmark (issue: keep every core busy, start only what a selection needs, be fast on a
// first run): a configured grid run as a user runs it — `vitest run --project core` in a child
// process — with its CPU split into harness and adapter time, next to the goals:
//   - utilisation: wall ≤ 1.15 × (total CPU ÷ cores) on a grid with at least as many runnable groups
//     as cores, already on a config's first run (a fresh timings cache); harness CPU < 10 % of the total;
//   - a cold `-t` run of one row of one group ≤ 5 s, and the same rerun in watch mode ≤ 1.5 s;
//   - loading the standalone validator cache against compiling the schemas.
//
//   npm run bench -- grid [--config FILE | --fakes [--rows N] [--start-cost-ms N]] [--compare-command 'CMD']
//
// Default grid: the reference adapter, every auth mode, both transports, the core rows duplicated ×4
// under fresh ids. `--config` measures any config (`AHP_BENCH_GRID_CONFIG` too); `--fakes` the fake
// SDKs of grid-fakes.ts (each server start costs `--start-cost-ms`, default 800). `--compare-command`
// runs another tool right after ours (under bash, with AHP_CONFIG set to the same config) and prints
// the ratio. Every run of ours is a first run (its own empty timings cache), then a second run plans
// from what the first measured. The machine's load by others during each run is printed beside it.
// AHP_BENCH_ROOT runs another checkout's vitest, to measure a "before". Nothing is asserted.

import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { loadConfig, projectRoot } from '../harness/config/load-config.ts';
import { fakeAdapterDirs, fakeGridConfig } from './grid-fakes.ts';
import { writeGridConfig } from './lib/grid-config.ts';
import { machineLoadWindow, type MachineLoad } from './lib/machine-load.ts';
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
  /** How busy the whole machine was meanwhile (ours included), when it could be read. */
  machine: MachineLoad | undefined;
}

/** Where the sampler runs: a process of its own at nice 19 (see process-sampler.mjs). */
const SAMPLER = fileURLToPath(new URL('./lib/process-sampler.mjs', import.meta.url));

/** Starts the niced sampler and resolves once it is sampling (bounded); `stop()` gives its totals by process kind. */
async function startSampler(root: string, adapterDirs: string[]): Promise<{ stop(): Promise<Map<string, number>> }> {
  const sampler = spawn(process.execPath, [SAMPLER, root, '100', String(process.pid), ...adapterDirs], { stdio: ['pipe', 'pipe', 'inherit'] });
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

/**
 * Runs `argv` under bash so `times` reports the CPU of the whole tree; the niced sampler splits it by
 * process kind. Its stderr goes to `stderrFile` when given (the scheduler's AHP_VERBOSE lines).
 */
async function timedRun(argv: string[], cwd: string, env: NodeJS.ProcessEnv, root: string, options: { adapterDirs?: string[]; stderrFile?: string } = {}): Promise<TimedRun> {
  const sampler = await startSampler(root, options.adapterDirs ?? []);
  const machine = machineLoadWindow();
  const started = performance.now();
  const script = `"$@" > /dev/null 2>${options.stderrFile === undefined ? '&1' : '"$AHP_BENCH_STDERR"'}; code=$?; times; exit $code`;
  const runEnv = options.stderrFile === undefined ? env : { ...env, AHP_BENCH_STDERR: options.stderrFile };
  const { wallMs, stdout, exitCode } = await new Promise<{ wallMs: number; stdout: string; exitCode: number }>((resolve) => {
    execFile('bash', ['-c', script, 'bench', ...argv], { cwd, env: runEnv, maxBuffer: 1 << 24 }, (error, out) => {
      resolve({ wallMs: performance.now() - started, stdout: out, exitCode: error && typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 0 });
    });
  });
  const load = machine.end();
  const byKind = await sampler.stop();
  const children = stdout.trim().split('\n').at(-1)?.match(/(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/);
  const totalCpuMs = children ? (Number(children[1]) * 60 + Number(children[2]) + Number(children[3]) * 60 + Number(children[4])) * 1000 : Number.NaN;
  return { wallMs, totalCpuMs, adapterCpuMs: byKind.get('adapter') ?? 0, byKind, exitCode, machine: load };
}

/**
 * The default grid (of the checkout at `root`): the reference adapter, all modes, both transports, the
 * core rows ×4 under fresh ids.
 */
function defaultGrid(work: string, root: string): string {
  const home = path.join(root, 'node_modules', '.cache', 'ahp-conformance', 'bench-grid');
  mkdirSync(home, { recursive: true });
  const source = JSON.parse(readFileSync(path.join(root, 'fixtures', 'scenarios.json'), 'utf8')) as { scenarios: Array<Record<string, unknown>> };
  const rename = (value: unknown, from: string, to: string): unknown => JSON.parse(JSON.stringify(value).split(JSON.stringify(from)).join(JSON.stringify(to)));
  const scenarios = [1, 2, 3, 4].flatMap((copy) => source.scenarios.map((row) => rename(row, row.id as string, `${row.id as string}~${copy}`)));
  const scenarioFile = path.join(home, 'grid-scenarios.json');
  writeFileSync(scenarioFile, JSON.stringify({ version: 1, scenarios }));
  const adapters = [{ name: 'reference', cwd: path.join(root, 'adapters', 'reference') }];
  return writeGridConfig(path.join(home, 'grid.config.json'), { root, scenarioFile, adapters, reportsDir: path.join(work, 'reports') });
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

/** The grid bench's command-line options (after `npm run bench -- grid`). */
interface GridOptions {
  config?: string;
  fakes: boolean;
  startCostMs: number;
  /** The fake grid's rows: N of the core scenario file, spread over it (default: all). */
  rows?: number;
  compareCommand?: string;
}

export function gridOptions(argv: string[]): GridOptions {
  const options: GridOptions = { fakes: false, startCostMs: 800 };
  const value = (at: number, flag: string): string => {
    const given = argv[at + 1];
    if (given === undefined || given.startsWith('--')) throw new Error(`npm run bench -- grid: ${flag} expects a value`);
    return given;
  };
  for (let at = 0; at < argv.length; at++) {
    const flag = argv[at]!;
    if (flag === '--config') options.config = path.resolve(value(at++, flag));
    else if (flag === '--fakes') options.fakes = true;
    else if (flag === '--start-cost-ms') options.startCostMs = Number(value(at++, flag));
    else if (flag === '--compare-command') options.compareCommand = value(at++, flag);
    else if (flag === '--rows') options.rows = Number(value(at++, flag));
    else if (flag.startsWith('--')) throw new Error(`npm run bench -- grid: unknown option ${flag} (expected --config FILE, --fakes, --start-cost-ms N, --rows N, --compare-command CMD)`);
  }
  if (options.rows !== undefined && !(Number.isInteger(options.rows) && options.rows > 0)) throw new Error('npm run bench -- grid: --rows expects a whole number of rows > 0');
  if (!Number.isFinite(options.startCostMs) || options.startCostMs < 0) throw new Error('npm run bench -- grid: --start-cost-ms expects a number of milliseconds ≥ 0');
  return options;
}

/** The slowest groups of the run's reports/core.json (durationMs per group). */
function slowestGroups(reportsDir: string, count: number): string[] {
  try {
    const report = JSON.parse(readFileSync(path.join(reportsDir, 'core.json'), 'utf8')) as { groups: Array<{ server: string; client: string; transport: string; auth: string; durationMs?: number; clientRuns?: number }> };
    return report.groups
      .filter((group) => group.durationMs !== undefined)
      .sort((a, b) => b.durationMs! - a.durationMs!)
      .slice(0, count)
      .map((group) => `${group.server}→${group.client} ${group.transport}/${group.auth} ${seconds(group.durationMs!)}${(group.clientRuns ?? 1) > 1 ? ` (${group.clientRuns} client runs)` : ''}`);
  } catch {
    return [];
  }
}

/** The run-level and row labels (`stage/kind`, never adapter output) of the failed groups in reports/core.json, with counts. */
function failureLabels(reportsDir: string): string[] {
  try {
    const report = JSON.parse(readFileSync(path.join(reportsDir, 'core.json'), 'utf8')) as { groups: Array<{ status: string; errors: Array<{ stage: string; kind: string }> }> };
    const counts = new Map<string, number>();
    for (const group of report.groups.filter((candidate) => candidate.status === 'failed')) {
      for (const error of group.errors) counts.set(`${error.stage}/${error.kind}`, (counts.get(`${error.stage}/${error.kind}`) ?? 0) + 1);
    }
    return [...counts].map(([label, count]) => `${count} group${count === 1 ? '' : 's'} with [${label}]`);
  } catch {
    return [];
  }
}

const share = (part: number, whole: number): string => `${((part / whole) * 100).toFixed(0)} %`;

/** What others took of the machine during `run`: its busy CPU minus ours, as cores. */
function othersLine(run: TimedRun, cores: number): string {
  if (!run.machine) return 'machine load by others: unknown (no /proc/stat)';
  const others = Math.max(0, run.machine.busyMs - run.totalCpuMs);
  return `machine meanwhile: others used ${(others / run.wallMs).toFixed(2)} of ${cores} cores (load average ${run.machine.loadAverage.toFixed(1)})`;
}

/** The cores others left to `run` on average (at least a tenth of one), when the machine's load is known. */
function coresLeft(run: TimedRun, cores: number): number | undefined {
  if (!run.machine) return undefined;
  const others = Math.max(0, run.machine.busyMs - run.totalCpuMs) / run.wallMs;
  return Math.max(0.1, cores - others);
}

function printRun(out: BenchOutput, title: string, run: TimedRun, cores: number, decisions: string[], slowest: string[], failures: string[]): void {
  const floor = run.totalCpuMs / cores;
  const harnessCpu = run.totalCpuMs - run.adapterCpuMs;
  out.line(`  ${title}`);
  out.line(`    wall time                ${seconds(run.wallMs)}${run.exitCode === 0 ? '' : ` (the run failed: exit ${run.exitCode}${failures.length > 0 ? `; ${failures.join(', ')}` : ''})`}`);
  out.line(`    CPU: total ${seconds(run.totalCpuMs)} = adapters ${seconds(run.adapterCpuMs)} + harness ${seconds(harnessCpu)} (${share(harnessCpu, run.totalCpuMs)})`);
  const parts = [...run.byKind].filter(([kind]) => kind !== 'adapter').sort((a, b) => b[1] - a[1]);
  out.line(`      sampled harness parts: ${parts.map(([kind, ms]) => `${kind} ${seconds(ms)}`).join(', ')}`);
  out.line(`    utilisation              ${(run.totalCpuMs / run.wallMs).toFixed(2)} of ${cores} cores`);
  out.line(`    wall ÷ (CPU ÷ cores)      ${(run.wallMs / floor).toFixed(2)}   goal ≤ 1.15: ${verdict(run.wallMs / floor <= 1.15)}`);
  out.line(`    ${othersLine(run, cores)}`);
  const left = coresLeft(run, cores);
  if (left !== undefined) out.line(`    wall ÷ (CPU ÷ cores others left) ${(run.wallMs / (run.totalCpuMs / left)).toFixed(2)}   (${left.toFixed(2)} cores were left to this run on average)`);
  if (slowest.length > 0) out.line(`    slowest groups: ${slowest.join('; ')}`);
  const splits = decisions.filter((line) => line.includes('split into'));
  const planned = decisions.filter((line) => line.includes(': plan (') || line.includes(': one run ('));
  out.line(`    scheduler: ${planned.length} groups planned, ${splits.length} split decisions${splits.length > 0 ? `:\n      ${splits.join('\n      ')}` : ''}`);
}

/** The scheduler's AHP_VERBOSE lines in a run's stderr file. */
function decisionsIn(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter((line) => line.startsWith('[ahp core] ')).map((line) => line.slice('[ahp core] '.length));
  } catch {
    return [];
  }
}

export const gridBench: Bench = {
  name: 'grid',
  async run(out: BenchOutput) {
    const root = process.env.AHP_BENCH_ROOT ?? projectRoot();
    const cores = os.availableParallelism();
    const options = gridOptions(process.argv.slice(process.argv.indexOf('grid') + 1));
    const work = mkdtempSync(path.join(os.tmpdir(), 'ahp-bench-grid-'));
    try {
      const given = options.config ?? process.env.AHP_BENCH_GRID_CONFIG;
      const config = given ?? (options.fakes ? fakeGridConfig(work, root, options.rows) : defaultGrid(work, root));
      const described = given ?? (options.fakes ? `fake SDKs (one restarting its stdio server after every negative row), ${options.startCostMs} ms CPU per server start, 4 pairings × (http × 5 modes + stdio), ${options.rows === undefined ? 'all core rows' : `${options.rows} core rows`}` : 'reference adapter, 5 modes × http + stdio, core rows ×4');
      const resolved = await loadConfig({ file: config });
      const adapterDirs = options.fakes && given === undefined ? fakeAdapterDirs(root) : resolved.adapters.map((adapter) => path.resolve(path.dirname(resolved.file), adapter.cwd));
      const timings = path.join(work, 'run-timings.json');
      const env = { ...process.env, AHP_CONFIG: config, AHP_TIMINGS_FILE: timings, AHP_VERBOSE: '1', AHP_FAKE_START_COST_MS: String(options.startCostMs) };
      const vitest = [process.execPath, path.join(root, 'node_modules', 'vitest', 'vitest.mjs')];
      out.section(`Grid (${root === projectRoot() ? 'this checkout' : root}; ${cores} cores; ${described})`);

      // A config's first run plans from what is known before anything ran; the second from what the first measured.
      const runs: Array<{ title: string; run: TimedRun }> = [];
      for (const title of ['first run (no timings yet)', 'second run (planned from the first run\'s timings)']) {
        const stderrFile = path.join(work, `stderr-${runs.length}.txt`);
        const run = await timedRun([...vitest, 'run', '--project', 'core'], root, env, root, { adapterDirs, stderrFile });
        printRun(out, title, run, cores, decisionsIn(stderrFile), slowestGroups(resolved.reports, 5), failureLabels(resolved.reports));
        runs.push({ title, run });
      }

      if (options.compareCommand !== undefined) {
        const theirs = await timedRun(['bash', '-c', options.compareCommand], root, { ...process.env, AHP_CONFIG: config }, root, { adapterDirs });
        const ours = runs[0]!.run;
        out.line(`  compared: \`${options.compareCommand}\``);
        out.line(`    wall ${seconds(theirs.wallMs)}, CPU ${seconds(theirs.totalCpuMs)}, wall ÷ (CPU ÷ cores) ${(theirs.wallMs / (theirs.totalCpuMs / cores)).toFixed(2)}${theirs.exitCode === 0 ? '' : ` (exit ${theirs.exitCode})`}`);
        out.line(`    ${othersLine(theirs, cores)}`);
        out.line(`    theirs ÷ ours (first run): wall ×${(theirs.wallMs / ours.wallMs).toFixed(2)}, CPU ×${(theirs.totalCpuMs / ours.totalCpuMs).toFixed(2)}`);
      }

      if (given !== undefined || options.fakes) return; // the selection figures below are the reference grid's
      const one = '^reference→reference http/none permission\\.deny$';
      const plain = { ...process.env, AHP_CONFIG: path.join(root, 'adapters.config.ts') };
      const cold = await timedRun([...vitest, 'run', '--project', 'core', '-t', one], root, plain, root);
      out.line(`  cold -t of one row       ${seconds(cold.wallMs)}   goal ≤ 5 s: ${verdict(cold.wallMs <= 5000)}`);
      const watch = await watchRerun(root, plain, one);
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
