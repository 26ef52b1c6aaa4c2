// Differential fuzzing: fast-check generates BATCHES of whole scenarios; each batch becomes one
// scenario file whose expectations are the oracle's, and runs through one client run per target
// (pairing × transport). Every row must get the verifier's pass: the adapter's verdict equals the
// oracle's (accepted result key for key under the seed's comparison rules, or a genuine rejection).
//
// When a batch fails, its first failing case per target is shrunk with fast-check's own shrinker
// against that same target, many candidates per client run (batched-shrink.ts), and the minimal
// case is written as a counterexample file. The batch property itself never shrinks
// (`endOnFailure`): shrinking a batch would re-run whole batches for nothing.

import fc from 'fast-check';

import type { ProtocolValidators } from '../protocol/validator-types.ts';
import type { Scenario } from '../scenarios/types.ts';
import { shrinkBatched, type ShrinkOptions, type ShrinkResult } from './batched-shrink.ts';
import { captured, type Captured } from './captured.ts';
import { caseEffectCount, fuzzCase, type FuzzCase } from './case-arbitrary.ts';
import { writeCounterexample, type WrittenCounterexample } from './counterexample-file.ts';
import { batchScenarioIds, fuzzScenario } from './scenario-rows.ts';
import type { CaseJudgement, FuzzTarget } from './targets.ts';

export interface DifferentialFuzzOptions {
  targets: FuzzTarget[];
  validators: ProtocolValidators;
  seed: number;
  /** Batches (fast-check runs). */
  numRuns: number;
  /** Cases per batch. */
  batchSize: number;
  counterexampleDir: string;
  /** Targets judged at the same time (default: all of them). */
  parallelism?: number;
  shrink?: ShrinkOptions;
  /** Scenario id prefix (default `fz`). */
  idPrefix?: string;
  /** Called after every batch. */
  onBatch?: (progress: FuzzProgress) => void;
}

export interface FuzzProgress {
  batch: number;
  /** Cases judged so far, summed over targets (shrinking not included). */
  cases: number;
  /** Wall time spent judging batches. */
  batchMs: number;
}

export interface FuzzFailure {
  target: string;
  /** 1-based batch (property run) that failed. */
  batch: number;
  /** The failing case's id inside that batch. */
  caseId: string;
  /** The adapter's disagreement in the batch, before shrinking. */
  batchReason: string;
  counterexample: WrittenCounterexample;
  /** Effects in the minimal counterexample's response. */
  effects: number;
  /** The verifier's reason for the minimal case: the minimal diff. */
  reason: string;
  shrink: Omit<ShrinkResult<FuzzCase, CaseJudgement>, 'value' | 'judgement'> & { clientRuns: number; ms: number };
}

export interface DifferentialFuzzReport {
  ok: boolean;
  seed: number;
  numRuns: number;
  batchSize: number;
  targets: string[];
  /** Batches judged. */
  batches: number;
  /** Cases judged in batches, summed over targets. */
  cases: number;
  /** Client runs started (batches, bisection and shrinking), all targets. */
  clientRuns: number;
  durationMs: number;
  /** Wall time spent judging batches (shrinking excluded). */
  batchMs: number;
  /** cases / batchMs: how fast targets judge. */
  casesPerSecond: number;
  /** cases / (durationMs − shrinking): including generation and oracle expectations. */
  endToEndCasesPerSecond: number;
  failures: FuzzFailure[];
  /** An error that is no disagreement (a server that cannot start, a harness bug). */
  error?: string;
  /** Human summary; for a failure: seed, path, counterexample files and minimal diffs. */
  message: string;
}

class DisagreementError extends Error {
  override readonly name = 'DisagreementError';
  constructor(readonly failures: FuzzFailure[]) {
    super(`${failures.length} target(s) disagree with the oracle`);
  }
}

export async function differentialFuzz(options: DifferentialFuzzOptions): Promise<DifferentialFuzzReport> {
  const { targets, validators, seed, numRuns, batchSize } = options;
  const prefix = options.idPrefix ?? 'fz';
  const parallelism = Math.max(1, options.parallelism ?? targets.length);
  const caseArbitrary = fuzzCase();
  const started = performance.now();
  let batches = 0;
  let cases = 0;
  let batchMs = 0;
  let shrinkMs = 0;

  const shrinkOne = async (target: FuzzTarget, start: Captured<FuzzCase>, batch: number, caseId: string, batchReason: string): Promise<FuzzFailure> => {
    const shrinkStarted = performance.now();
    const runsBefore = target.runs;
    let call = 0;
    const judge = (values: FuzzCase[]): Promise<CaseJudgement[]> => {
      call++;
      const ids = batchScenarioIds(`${prefix}-b${batch}-s${call}`, values.length);
      return target.judge(values.map((value, index) => fuzzScenario(value, ids[index]!, validators)));
    };
    const result = await shrinkBatched(caseArbitrary, start.origin, judge, (j) => j.failed, options.shrink);
    const reason = result.reproduced ? result.judgement.reason : batchReason;
    const counterexample = writeCounterexample(
      options.counterexampleDir,
      result.value,
      { target, seed, path: String(batch - 1), reason },
      validators,
    );
    const { value, judgement, ...stats } = result;
    void judgement;
    return {
      target: target.label,
      batch,
      caseId,
      batchReason,
      counterexample,
      effects: caseEffectCount(value),
      reason,
      shrink: { ...stats, clientRuns: target.runs - runsBefore, ms: Math.round(performance.now() - shrinkStarted) },
    };
  };

  const property = fc.asyncProperty(
    fc.array(captured(caseArbitrary), { minLength: batchSize, maxLength: batchSize }),
    async (batch) => {
      const index = ++batches;
      const ids = batchScenarioIds(`${prefix}-b${index}`, batch.length);
      const scenarios: Scenario[] = batch.map((item, i) => fuzzScenario(item.value, ids[i]!, validators));
      const judgeStarted = performance.now();
      const verdicts = await mapLimit(targets, parallelism, (target) => target.judge(scenarios));
      batchMs += performance.now() - judgeStarted;
      cases += scenarios.length * targets.length;
      options.onBatch?.({ batch: index, cases, batchMs });
      const failing = targets.flatMap((target, t) => {
        const at = verdicts[t]!.findIndex((j) => j.failed);
        return at < 0 ? [] : [{ target, at, reason: verdicts[t]![at]!.reason }];
      });
      if (failing.length === 0) return;
      const shrinkStarted = performance.now();
      const failures = await mapLimit(failing, parallelism, ({ target, at, reason }) => shrinkOne(target, batch[at]!, index, ids[at]!, reason));
      shrinkMs += performance.now() - shrinkStarted;
      throw new DisagreementError(failures);
    },
  );

  const details = await fc.check(property, { seed, numRuns, endOnFailure: true });
  const durationMs = Math.round(performance.now() - started);
  const clientRuns = targets.reduce((sum, target) => sum + target.runs, 0);
  const report: DifferentialFuzzReport = {
    ok: !details.failed,
    seed,
    numRuns,
    batchSize,
    targets: targets.map((t) => t.label),
    batches,
    cases,
    clientRuns,
    durationMs,
    batchMs: Math.round(batchMs),
    casesPerSecond: batchMs > 0 ? (cases / batchMs) * 1000 : 0,
    endToEndCasesPerSecond: durationMs - shrinkMs > 0 ? (cases / (durationMs - shrinkMs)) * 1000 : 0,
    failures: [],
    message: '',
  };
  if (details.failed) {
    const error = details.errorInstance;
    if (error instanceof DisagreementError) report.failures = error.failures;
    else report.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
  }
  report.message = formatReport(report, details.counterexamplePath ?? undefined);
  return report;
}

/** The summary line, or the failure message: seed, path, files and the minimal diff of each target. */
export function formatReport(report: DifferentialFuzzReport, path?: string): string {
  const rate = (value: number): string => `${Math.round(value).toLocaleString('en-US')} cases/s`;
  const head =
    `${report.batches} batch(es) × ${report.batchSize} case(s) × ${report.targets.length} target(s) = ${report.cases} cases; ` +
    `judging ${(report.batchMs / 1000).toFixed(1)} s (${rate(report.casesPerSecond)}), ` +
    `end to end with generation ${rate(report.endToEndCasesPerSecond)}; ${report.clientRuns} client run(s); seed ${report.seed}`;
  if (report.ok) return `differential fuzzing passed: ${head}`;
  const reproduce = `reproduce with AHP_FUZZ_SEED=${report.seed} AHP_FUZZ_RUNS=${report.numRuns}`;
  if (report.error !== undefined) {
    return `differential fuzzing could not run (seed ${report.seed}, fast-check path ${JSON.stringify(path ?? '')}; ${reproduce}):\n${report.error}`;
  }
  const lines = [
    `differential fuzzing: ${report.failures.length} target(s) disagree with the oracle ` +
      `(seed ${report.seed}, fast-check path ${JSON.stringify(path ?? '')}; ${reproduce})`,
  ];
  for (const failure of report.failures) {
    const s = failure.shrink;
    lines.push(
      '',
      `${failure.target}: batch ${failure.batch}, case ${failure.caseId}`,
      `  minimal counterexample (${failure.effects} effect(s)): ${failure.counterexample.file}`,
    );
    if (failure.counterexample.configFile) {
      lines.push(`  replay: AHP_CONFIG=${failure.counterexample.configFile} npx vitest run --project core`);
    }
    lines.push(
      s.reproduced
        ? `  shrunk in ${s.steps} step(s): ${s.judged} candidate(s) judged in ${s.rounds} round(s), ${s.clientRuns} client run(s), ${(s.ms / 1000).toFixed(1)} s${s.minimal ? '' : ' (round limit reached; not necessarily minimal)'}`
        : '  the case does not fail on its own (it failed only inside its batch); written unshrunk',
      `  scenario ${failure.counterexample.scenario.id}: ${indent(failure.reason)}`,
    );
  }
  return lines.join('\n');
}

function indent(text: string): string {
  return text.split('\n').join('\n  ');
}

async function mapLimit<T, R>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await task(items[i]!, i);
  });
  await Promise.all(workers);
  return results;
}
