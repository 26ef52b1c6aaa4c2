// The one timing primitive every bench uses: warm up, then run the operation for at least a number
// of iterations and a minimum wall time, and report operations per second. Benches print ratios
// against a same-process baseline, because absolute numbers vary with the machine; nothing here is
// ever asserted.

import { performance } from 'node:perf_hooks';

export interface MeasureOptions {
  /** Warm-up (untimed, for the JIT) lasts at least this many calls… Default 1000. */
  warmup?: number;
  /** …and at least this long. Default 200 ms. */
  warmupMs?: number;
  /** Timed rounds; the reported rate is the median round's (robust to a noisy machine). Default 5. */
  rounds?: number;
  /** Minimum calls per round. Default 500. */
  iterations?: number;
  /** Minimum time per round. Default 150 ms. */
  minTimeMs?: number;
}

export interface Measurement {
  name: string;
  /** Timed calls over all rounds. */
  iterations: number;
  /** Total timed milliseconds over all rounds. */
  totalMs: number;
  /** Median round's rate. */
  opsPerSecond: number;
  msPerOp: number;
}

/** Defeats dead-code elimination: every measured call feeds its result in here. */
let sink = 0;
export function consume(value: unknown): void {
  sink = (sink + (value === undefined ? 0 : value === null ? 1 : typeof value === 'object' ? 2 : 3)) | 0;
}
export function sinkValue(): number {
  return sink;
}

/** Runs `operation(start + k)` for k < count and returns the elapsed milliseconds. */
function timeChunk(operation: (i: number) => unknown, start: number, count: number): number {
  const begin = performance.now();
  for (let k = 0; k < count; k++) consume(operation(start + k));
  return performance.now() - begin;
}

/** Times `operation(i)` for i = 0, 1, 2, … (callers use i to cycle over a pre-built batch). */
export function measure(name: string, operation: (i: number) => unknown, options: MeasureOptions = {}): Measurement {
  const warmup = options.warmup ?? 1000;
  const warmupMs = options.warmupMs ?? 200;
  const rounds = Math.max(1, options.rounds ?? 5);
  const iterations = options.iterations ?? 500;
  const minTimeMs = options.minTimeMs ?? 150;

  let i = 0;
  let warmedMs = 0;
  while (i < warmup || warmedMs < warmupMs) {
    warmedMs += timeChunk(operation, i, 100);
    i += 100;
  }

  const rates: number[] = [];
  let done = 0;
  let totalMs = 0;
  for (let round = 0; round < rounds; round++) {
    let calls = 0;
    let ms = 0;
    let chunk = 100;
    while (calls < iterations || ms < minTimeMs) {
      ms += timeChunk(operation, i, chunk);
      i += chunk;
      calls += chunk;
      if (ms < minTimeMs / 10) chunk = Math.min(chunk * 2, 100_000);
    }
    rates.push((calls / ms) * 1000);
    done += calls;
    totalMs += ms;
  }
  rates.sort((a, b) => a - b);
  const opsPerSecond = rates[Math.floor(rates.length / 2)]!;
  return { name, iterations: done, totalMs, opsPerSecond, msPerOp: 1000 / opsPerSecond };
}

/** Times a slow operation (e.g. a compile) exactly `runs` times after `warmup` untimed runs. */
export function measureSlow(name: string, operation: () => unknown, runs: number, warmup = 0): Measurement {
  for (let i = 0; i < warmup; i++) consume(operation());
  let totalMs = 0;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    consume(operation());
    totalMs += performance.now() - start;
  }
  return { name, iterations: runs, totalMs, opsPerSecond: (runs / totalMs) * 1000, msPerOp: totalMs / runs };
}

// ----- printing -------------------------------------------------------------------------------------

export function formatRate(opsPerSecond: number): string {
  return `${Math.round(opsPerSecond).toLocaleString('en-US')} ops/s`;
}

export function formatDuration(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 1) return `${ms.toFixed(1)} ms`;
  return `${(ms * 1000).toFixed(1)} µs`;
}

/** One result line: name, time per op, rate. */
export function formatMeasurement(m: Measurement): string {
  return `  ${m.name.padEnd(52)} ${formatDuration(m.msPerOp).padStart(10)}/op  ${formatRate(m.opsPerSecond).padStart(16)}  (n=${m.iterations})`;
}

/** "a is N× b" phrased so that bigger-is-faster reads naturally. */
export function formatRatio(label: string, subject: Measurement, baseline: Measurement): string {
  const ratio = subject.opsPerSecond / baseline.opsPerSecond;
  const phrase = ratio >= 1 ? `${ratio.toFixed(2)}× the speed of` : `${(1 / ratio).toFixed(2)}× slower than`;
  return `  ratio ${label}: ${phrase} ${baseline.name}`;
}

/** A bench section: a title and the lines it printed. */
export interface BenchOutput {
  section(title: string): void;
  line(text: string): void;
}

export function consoleOutput(): BenchOutput {
  return {
    section: (title) => console.log(`\n## ${title}`),
    line: (text) => console.log(text),
  };
}

/** A bench module: `bench/run.ts` runs each in turn. */
export interface Bench {
  name: string;
  run(out: BenchOutput): void | Promise<void>;
}
