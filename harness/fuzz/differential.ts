// Differential fuzzing: fast-check generates BATCHES of whole scenarios; each batch becomes one
// scenario file whose expectations are the oracle's, and runs through one client run per target
// (pairing × transport). Every row must get the verifier's pass: the adapter's verdict equals the
// oracle's (accepted result key for key under the seed's comparison rules, or a genuine rejection).
//
// Requests come from the run's profile (host-envelope.ts): `wide` (unconstrained) or `host` (inside a
// host envelope discovered from the adapters). Every failure is triaged (triage.ts) and reported with
// its class first:
// - adapter refused the batch: the run failed as a whole; the batch is bisected to the smallest set
//   the adapter refuses, and the batch file, configs and logs are copied next to the counterexamples
//   (refusal-evidence.ts). Ends the run.
// - host limitation: the client failed rows without a protocol-level outcome; counted, sampled into a
//   scenario file (host-limitations.ts), never shrunk. The run goes on.
// - undefined by the protocol: the client differs from the oracle only where an undefined input
//   decides; counted, sampled into a scenario file (undefined-outcomes.ts), never shrunk, and no
//   failure of the run. The run goes on.
// - semantic disagreement: the first failing case per target is shrunk with fast-check's own shrinker
//   against that same target, many candidates per client run (batched-shrink.ts), within the profile,
//   for at most `shrinkSeconds`; the minimal (or best so far) case is written as a counterexample
//   file. Ends the run. The batch property itself never shrinks (`endOnFailure`).
// Progress lines (batch i/n, bisection runs, shrink rounds and candidates judged) go to `progress`,
// with a heartbeat whenever nothing was printed for 10 s.

import fc from 'fast-check';

import type { ProtocolValidators } from '../protocol/validator-types.ts';
import type { Scenario } from '../scenarios/types.ts';
import { shrinkBatched, type ShrinkOptions, type ShrinkResult } from './batched-shrink.ts';
import { captured, type Captured } from './captured.ts';
import { caseEffectCount, fuzzCase, type FuzzCase } from './case-arbitrary.ts';
import { writeCounterexample, type WrittenCounterexample } from './counterexample-file.ts';
import { describeProfile, WIDE_PROFILE, type FuzzProfile } from './host-envelope.ts';
import { HostLimitationLog, type HostLimitationReport } from './host-limitations.ts';
import { UndefinedOutcomeLog, type UndefinedOutcomeReport } from './undefined-outcomes.ts';
import { createProgress } from './progress.ts';
import { persistRefusal } from './refusal-evidence.ts';
import { discardRefusal } from './refusal-search.ts';
import { batchScenarioIds, fuzzScenario } from './scenario-rows.ts';
import type { FuzzTarget } from './targets.ts';
import { CLASS_TITLES, type CaseJudgement, type Refusal } from './triage.ts';

export interface DifferentialFuzzOptions {
  targets: FuzzTarget[];
  validators: ProtocolValidators;
  seed: number;
  /** Batches (fast-check runs). */
  numRuns: number;
  /** Cases per batch. */
  batchSize: number;
  counterexampleDir: string;
  /** Requests: unconstrained (`wide`, the default) or inside a host envelope. */
  profile?: FuzzProfile;
  /** Targets judged at the same time (default: all of them). */
  parallelism?: number;
  shrink?: ShrinkOptions;
  /** Cap on the time spent shrinking one failure (AHP_FUZZ_SHRINK_SECONDS); checked between rounds. */
  shrinkSeconds?: number;
  /** Scenario id prefix (default `fz`). */
  idPrefix?: string;
  /** Called after every batch. */
  onBatch?: (progress: FuzzProgress) => void;
  /** Progress lines; none when absent. */
  progress?: (line: string) => void;
  /** Longest silence between progress lines (default 10 s). */
  progressIntervalMs?: number;
}

export interface FuzzProgress {
  batch: number;
  /** Cases judged so far, summed over targets (shrinking not included). */
  cases: number;
  /** Wall time spent judging batches. */
  batchMs: number;
}

/** A semantic disagreement with the oracle, shrunk. */
export interface FuzzFailure {
  class: 'disagreement';
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
  shrink: Omit<ShrinkResult<FuzzCase, CaseJudgement>, 'value' | 'judgement'> & { clientRuns: number; ms: number; capSeconds?: number };
}

/** A batch the adapter refused as a whole, bisected to its smallest refused set, evidence kept. */
export interface RefusedBatch {
  class: 'refused';
  target: string;
  batch: number;
  batchSize: number;
  /** Ids of the smallest refused set. */
  smallest: string[];
  /** Rows of the batch in some refused set. */
  refusedRows: number;
  systematic: boolean;
  /** Run faults of the smallest set's run and of the whole batch's (paths point at the kept copies). */
  integrity: string[];
  batchIntegrity: string[];
  /** Copies of the runs' folders: `batch/` and, when different, `smallest/`. */
  evidenceDir: string;
  /** The smallest refused set as a scenario file, and its replay config. */
  file: string;
  configFile?: string;
  /** Runs the bisection took (the batch's included). */
  runs: number;
}

export interface DifferentialFuzzReport {
  ok: boolean;
  seed: number;
  numRuns: number;
  batchSize: number;
  targets: string[];
  profile: FuzzProfile;
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
  /** Semantic disagreements (shrunk). */
  failures: FuzzFailure[];
  /** Batches an adapter refused as a whole. */
  refusals: RefusedBatch[];
  /** Rows clients failed without a protocol-level outcome, per target. */
  hostLimitations: HostLimitationReport[];
  /** Rows whose difference is confined to inputs the protocol leaves undefined, per target (no failure). */
  undefinedOutcomes: UndefinedOutcomeReport[];
  /** An error that is no failure class (a harness bug). */
  error?: string;
  /** Human summary; for failures: each class first, then seed, path, files and evidence. */
  message: string;
}

class StopFuzzing extends Error {
  override readonly name = 'StopFuzzing';
  constructor(
    readonly refusals: RefusedBatch[],
    readonly failures: FuzzFailure[],
  ) {
    super(`${refusals.length} refused batch(es), ${failures.length} disagreement(s)`);
  }
}

export async function differentialFuzz(options: DifferentialFuzzOptions): Promise<DifferentialFuzzReport> {
  const { targets, validators, seed, numRuns, batchSize } = options;
  const profile = options.profile ?? WIDE_PROFILE;
  const prefix = options.idPrefix ?? 'fz';
  const parallelism = Math.max(1, options.parallelism ?? targets.length);
  const caseArbitrary = fuzzCase(profile);
  const progress = createProgress(options.progress, { intervalMs: options.progressIntervalMs });
  const hostLimitations = new HostLimitationLog(profile);
  const undefinedOutcomes = new UndefinedOutcomeLog(profile);
  const started = performance.now();
  let batches = 0;
  let cases = 0;
  let batchMs = 0;
  let shrinkMs = 0;

  const shrinkOne = async (target: FuzzTarget, start: Captured<FuzzCase>, batch: number, caseId: string, batchReason: string): Promise<FuzzFailure> => {
    const shrinkStarted = performance.now();
    const deadline = options.shrinkSeconds === undefined ? undefined : shrinkStarted + options.shrinkSeconds * 1000;
    const runsBefore = target.runs;
    let call = 0;
    const judge = async (values: FuzzCase[]): Promise<CaseJudgement[]> => {
      call++;
      progress.doing(`shrinking ${target.label}: round ${call} (${values.length} candidate(s))`);
      const ids = batchScenarioIds(`${prefix}-b${batch}-s${call}`, values.length);
      const judgements = await target.judge(values.map((value, index) => fuzzScenario(value, ids[index]!, validators)));
      // A candidate run the adapter refused is no disagreement; its evidence is not needed.
      for (const refusal of new Set(judgements.flatMap((j) => (j.refusal ? [j.refusal] : [])))) discardRefusal(refusal);
      return judgements;
    };
    progress.say(`${CLASS_TITLES.disagreement} — ${target.label}, batch ${batch}, case ${caseId}: shrinking`);
    const result = await shrinkBatched(caseArbitrary, start.origin, judge, (j) => j.class === 'disagreement', {
      ...options.shrink,
      ...(deadline === undefined ? {} : { stop: () => performance.now() >= deadline }),
      onRound: (p) =>
        progress.say(
          `  shrinking ${target.label}: round ${p.round} judged ${p.candidates} candidate(s) (${p.judged} in total), ${p.failing} still failing`,
          `shrinking ${target.label} after round ${p.round}`,
        ),
    });
    const reason = result.reproduced ? result.judgement.reason : batchReason;
    const counterexample = writeCounterexample(options.counterexampleDir, result.value, { target, seed, path: String(batch - 1), reason, profile }, validators);
    const { value, judgement, ...stats } = result;
    void judgement;
    return {
      class: 'disagreement',
      target: target.label,
      batch,
      caseId,
      batchReason,
      counterexample,
      effects: caseEffectCount(value),
      reason,
      shrink: {
        ...stats,
        clientRuns: target.runs - runsBefore,
        ms: Math.round(performance.now() - shrinkStarted),
        ...(options.shrinkSeconds === undefined ? {} : { capSeconds: options.shrinkSeconds }),
      },
    };
  };

  const property = fc.asyncProperty(
    fc.array(captured(caseArbitrary), { minLength: batchSize, maxLength: batchSize }),
    async (batch) => {
      const index = ++batches;
      const ids = batchScenarioIds(`${prefix}-b${index}`, batch.length);
      const scenarios: Scenario[] = batch.map((item, i) => fuzzScenario(item.value, ids[i]!, validators));
      progress.doing(`judging batch ${index}/${numRuns} (${scenarios.length} cases × ${targets.length} target(s))`);
      const judgeStarted = performance.now();
      const verdicts = await mapLimit(targets, parallelism, (target) =>
        target.judge(scenarios, ({ run, scenarios: size }) =>
          progress.say(`  ${target.label}: batch ${index} failed as a whole; bisecting: run ${run} (${size} scenario(s))`),
        ),
      );
      batchMs += performance.now() - judgeStarted;
      cases += scenarios.length * targets.length;
      options.onBatch?.({ batch: index, cases, batchMs });
      const failedRows = verdicts.reduce((sum, list) => sum + list.filter((j) => j.failed).length, 0);
      progress.say(`batch ${index}/${numRuns}: ${scenarios.length} case(s) × ${targets.length} target(s) judged${failedRows > 0 ? `, ${failedRows} failed row(s)` : ''}`);

      const refusals: RefusedBatch[] = [];
      const shrinkJobs: Array<{ target: FuzzTarget; at: number; reason: string }> = [];
      targets.forEach((target, t) => {
        const judgements = verdicts[t]!;
        hostLimitations.record(target, index, scenarios, judgements);
        undefinedOutcomes.record(target, index, scenarios, judgements);
        const refusal = judgements.find((j) => j.refusal)?.refusal;
        if (refusal) {
          refusals.push(refusedBatch(target, index, scenarios, refusal));
          return;
        }
        const at = judgements.findIndex((j) => j.class === 'disagreement');
        if (at >= 0) shrinkJobs.push({ target, at, reason: judgements[at]!.reason });
      });
      if (refusals.length === 0 && shrinkJobs.length === 0) return;
      const shrinkStarted = performance.now();
      const failures = await mapLimit(shrinkJobs, parallelism, ({ target, at, reason }) => shrinkOne(target, batch[at]!, index, ids[at]!, reason));
      shrinkMs += performance.now() - shrinkStarted;
      throw new StopFuzzing(refusals, failures);
    },
  );

  const refusedBatch = (target: FuzzTarget, batch: number, scenarios: Scenario[], refusal: Refusal): RefusedBatch => {
    const persisted = persistRefusal({ dir: options.counterexampleDir, target, scenarios, refusal, seed, batch, profile });
    return {
      class: 'refused',
      target: target.label,
      batch,
      batchSize: scenarios.length,
      smallest: refusal.smallest,
      refusedRows: refusal.refusedRows,
      systematic: refusal.systematic,
      runs: refusal.runs,
      ...persisted,
    };
  };

  progress.say(`fuzzing ${targets.map((t) => t.label).join(', ')}: ${numRuns} batch(es) × ${batchSize} case(s), seed ${seed}, profile ${describeProfile(profile)}`);
  let details: fc.RunDetails<[Array<Captured<FuzzCase>>]>;
  try {
    details = await fc.check(property, { seed, numRuns, endOnFailure: true });
  } finally {
    progress.close();
  }
  const durationMs = Math.round(performance.now() - started);
  const clientRuns = targets.reduce((sum, target) => sum + target.runs, 0);
  const report: DifferentialFuzzReport = {
    ok: false,
    seed,
    numRuns,
    batchSize,
    targets: targets.map((t) => t.label),
    profile,
    batches,
    cases,
    clientRuns,
    durationMs,
    batchMs: Math.round(batchMs),
    casesPerSecond: batchMs > 0 ? (cases / batchMs) * 1000 : 0,
    endToEndCasesPerSecond: durationMs - shrinkMs > 0 ? (cases / (durationMs - shrinkMs)) * 1000 : 0,
    failures: [],
    refusals: [],
    hostLimitations: hostLimitations.write(options.counterexampleDir),
    undefinedOutcomes: undefinedOutcomes.write(options.counterexampleDir),
    message: '',
  };
  if (details.failed) {
    const error = details.errorInstance;
    if (error instanceof StopFuzzing) {
      report.failures = error.failures;
      report.refusals = error.refusals;
    } else report.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
  }
  report.ok = !details.failed && report.hostLimitations.length === 0;
  report.message = formatReport(report, details.counterexamplePath ?? undefined);
  return report;
}

/**
 * The summary line, or the failure message: the classes first, then seed, path and profile, then one
 * block per failure, each starting with its class.
 */
export function formatReport(report: DifferentialFuzzReport, path?: string): string {
  const rate = (value: number): string => `${Math.round(value).toLocaleString('en-US')} cases/s`;
  const head =
    `${report.batches} batch(es) × ${report.batchSize} case(s) × ${report.targets.length} target(s) = ${report.cases} cases; ` +
    `judging ${(report.batchMs / 1000).toFixed(1)} s (${rate(report.casesPerSecond)}), ` +
    `end to end with generation ${rate(report.endToEndCasesPerSecond)}; ${report.clientRuns} client run(s); seed ${report.seed}; profile ${describeProfile(report.profile)}`;
  if (report.ok) {
    const open = report.undefinedOutcomes.length === 0 ? '' : `\n${undefinedLines(report.undefinedOutcomes).join('\n')}`;
    return `differential fuzzing passed: ${head}${open}`;
  }
  const profileVariable = report.profile.name === 'host' ? ' AHP_FUZZ_PROFILE=host' : '';
  const reproduce = `reproduce with AHP_FUZZ_SEED=${report.seed} AHP_FUZZ_RUNS=${report.numRuns} AHP_FUZZ_BATCH=${report.batchSize}${profileVariable}`;
  const where = `seed ${report.seed}${path === undefined ? '' : `, fast-check path ${JSON.stringify(path)}`}; ${reproduce}`;
  if (report.error !== undefined) return `differential fuzzing could not run (${where}):\n${report.error}`;

  const classes = [
    [CLASS_TITLES.refused, report.refusals.length],
    [CLASS_TITLES['host-limitation'], report.hostLimitations.length],
    [CLASS_TITLES.undefined, report.undefinedOutcomes.length],
    [CLASS_TITLES.disagreement, report.failures.length],
  ].filter(([, count]) => (count as number) > 0);
  const lines = [
    `${classes.map(([title, count]) => `${title} (${count} target(s))`).join(' + ')} — differential fuzzing (${where})`,
    `profile: ${describeProfile(report.profile)}`,
  ];
  for (const refused of report.refusals) {
    const set = refused.systematic
      ? `any single scenario is refused (the first and the last, each alone): systematic`
      : `the smallest refused set is ${refused.smallest.length} scenario(s): ${refused.smallest.join(', ')} (${refused.refusedRows} of ${refused.batchSize} rows in refused sets)`;
    lines.push(
      '',
      `${CLASS_TITLES.refused} — ${refused.target}, batch ${refused.batch} (${refused.batchSize} scenarios): the run failed as a whole; bisected in ${refused.runs} run(s): ${set}`,
      ...refused.integrity.map((line) => `  ${line}`),
      `  evidence (batch file, configs, logs): ${refused.evidenceDir}`,
      `  smallest refused set: ${refused.file}`,
    );
    if (refused.configFile) lines.push(`  replay: AHP_CONFIG=${refused.configFile} npx vitest run --project core`);
  }
  for (const limited of report.hostLimitations) {
    lines.push(
      '',
      `${CLASS_TITLES['host-limitation']} — ${limited.target}: the client failed ${limited.rows} row(s) in ${limited.batches} batch(es) with no result and no ` +
        'rejection, only an error of its own (its host refused the request, or the transport failed); not a disagreement with the oracle, not shrunk',
    );
    for (const message of limited.messages) {
      const sent = message.requestSent === undefined ? '' : message.requestSent ? '; the request went on the wire' : '; the request was never sent';
      const envelope = message.envelope === undefined ? '' : `; ${message.envelope}`;
      lines.push(`  ${message.rows} × ${JSON.stringify(message.error)} (e.g. ${message.example}${sent}${envelope})`);
    }
    lines.push(`  rows: ${limited.file}`);
  }
  lines.push(...undefinedLines(report.undefinedOutcomes));
  for (const failure of report.failures) {
    const s = failure.shrink;
    lines.push(
      '',
      `${CLASS_TITLES.disagreement} — ${failure.target}: batch ${failure.batch}, case ${failure.caseId}`,
      `  minimal counterexample (${failure.effects} effect(s)): ${failure.counterexample.file}`,
    );
    if (failure.counterexample.configFile) {
      lines.push(`  replay: AHP_CONFIG=${failure.counterexample.configFile} npx vitest run --project core`);
    }
    const early =
      s.stoppedBy === 'stop'
        ? ` (time cap AHP_FUZZ_SHRINK_SECONDS=${s.capSeconds} reached; the best counterexample so far, not necessarily minimal)`
        : s.stoppedBy === 'round limit'
          ? ' (round limit reached; not necessarily minimal)'
          : '';
    lines.push(
      s.reproduced
        ? `  shrunk in ${s.steps} step(s): ${s.judged} candidate(s) judged in ${s.rounds} round(s), ${s.clientRuns} client run(s), ${(s.ms / 1000).toFixed(1)} s${early}`
        : '  the case does not fail on its own (it failed only inside its batch); written unshrunk',
      `  scenario ${failure.counterexample.scenario.id}: ${indent(failure.reason)}`,
    );
  }
  return lines.join('\n');
}

/** One block per target with outcomes undefined by the protocol (each starting with its class). */
function undefinedLines(reports: UndefinedOutcomeReport[]): string[] {
  return reports.flatMap((open) => [
    '',
    `${CLASS_TITLES.undefined} — ${open.target}: ${open.rows} row(s) in ${open.batches} batch(es) differ from the oracle only where the input is ` +
      `undefined by the protocol (${Object.entries(open.aspects).map(([id, rows]) => `${id} × ${rows}`).join(', ')}); not a client or server fault, not shrunk`,
    `  rows: ${open.file}`,
  ]);
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
