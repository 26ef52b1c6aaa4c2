// What a fuzz case is run against. A target judges a list of scenario rows and says, per row,
// whether the adapter's verdict disagrees with the oracle's expectation in the row:
//
// - a process target is one `<server>→<client> <transport>/none` pairing: the rows are written as one
//   scenario file and run through ONE client run (HTTP: a private server started with exactly that
//   file and always stopped; stdio: the client spawns the server through the harness relay), then
//   every row gets the verifier's verdict (`verifyRun`, the same rules as the core suite);
// - the in-process target runs the reference client's row logic (request check, apply step, judge)
//   directly, with the verifier on a report built in memory: no processes, for speed.
//
// A run-level failure (no report, wrong exit code, missing receipts, ...) fails every row of that
// run, so it cannot say which row caused it: the rows are then bisected into smaller runs until the
// failure is attributed (or shown to be systematic, when one row alone fails the same way).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { startHttpServer, stopHttpServer, withServerLock } from '../adapters/http-server-pool.ts';
import type { LoadedAdapter } from '../adapters/types.ts';
import type { Transport } from '../config/define-config.ts';
import type { ResolvedConfig } from '../config/load-config.ts';
import type { Verdict } from '../oracle/types.ts';
import { jsonEqual, type JsonValue } from '../protocol/json.ts';
import type { InterceptRequest } from '../protocol/messages.ts';
import type { ProtocolValidators } from '../protocol/validator-types.ts';
import { runClient } from '../runs/client-run.ts';
import { groupLabel, loadAdapters, planMatrix } from '../runs/plan.ts';
import type { ClientRunOutcome } from '../runs/types.ts';
import { serializeScenarioFile } from '../scenarios/load-scenarios.ts';
import type { Scenario } from '../scenarios/types.ts';
import { compareExpected, formatDifferences } from '../verify/compare-result.ts';
import { verifyRun, type RowVerdict } from '../verify/verify-run.ts';
import { judgeVerdict } from '../oracle/report-row.ts';

/** The harness's verdict on one fuzz row: `failed` means the adapter disagrees with the oracle. */
export interface CaseJudgement {
  id: string;
  failed: boolean;
  /** Why it failed (the verifier's reason, with the key-by-key diff); empty when it passed. */
  reason: string;
  /** What the adapter reported as `actual` (undefined when there is no report row). */
  actual: unknown;
}

export interface FuzzTarget {
  /** Human label, e.g. `reference→reference http/none`. */
  label: string;
  /** File-name-safe pairing label for counterexample files, e.g. `reference-to-reference`. */
  pairing: string;
  /** Judges the rows (in order); may take several process runs when a run fails as a whole. */
  judge(scenarios: Scenario[]): Promise<CaseJudgement[]>;
  /** Client runs started so far (0 for the in-process target). */
  readonly runs: number;
  /** For process targets: what a replay config needs to run the same pairing. */
  replay?: { server: LoadedAdapter; client: LoadedAdapter; transport: Transport; schemasDir: string };
}

export interface ProcessTargetOptions {
  server: LoadedAdapter;
  client: LoadedAdapter;
  transport: Transport;
  schemasDir: string;
  watchdogs: { startupMs: number; runMs: number };
  /** Parent of every run's temp files (removed by the caller). */
  workDir: string;
  /** Keep the files of runs with failures (default false: everything is removed). */
  keepFailedRuns?: boolean;
}

export function pairingLabel(server: string, client: string): string {
  return `${server}-to-${client}`.replace(/[^A-Za-z0-9_.-]+/g, '_');
}

/** One configured pairing over one transport, auth `none`. */
export function processTarget(options: ProcessTargetOptions): FuzzTarget {
  const { server, client, transport } = options;
  let runs = 0;
  const judge = bisectingJudge(async (scenarios) => {
    runs++;
    return (await runScenarioBatch(options, scenarios)).verification;
  });
  return {
    label: groupLabel(server.name, client.name, transport, 'none'),
    pairing: pairingLabel(server.name, client.name),
    judge,
    get runs() {
      return runs;
    },
    replay: { server, client, transport, schemasDir: options.schemasDir },
  };
}

/** One run over some rows: per-row verdicts plus run-level (integrity) problems. */
export type RunOnce = (scenarios: Scenario[]) => Promise<{ rows: Map<string, RowVerdict>; integrity: string[] }>;

/**
 * Per-row judgements from runs of `once`. A run that fails as a whole is attributed: the first row
 * runs alone — if it fails the same way the failure is systematic and every row fails with it (two
 * runs, however many rows); otherwise the rest is bisected, so one bad row among n costs about
 * 2·log2(n) extra runs.
 */
export function bisectingJudge(once: RunOnce): (scenarios: Scenario[]) => Promise<CaseJudgement[]> {
  const judge = async (scenarios: Scenario[]): Promise<CaseJudgement[]> => {
    if (scenarios.length === 0) return [];
    const first = await once(scenarios);
    if (first.integrity.length === 0 || scenarios.length === 1) return judgements(scenarios, first.rows);
    const alone = await once(scenarios.slice(0, 1));
    if (alone.integrity.length > 0) {
      const reason = alone.rows.get(scenarios[0]!.id)?.reason ?? `run integrity failure:\n  ${alone.integrity.join('\n  ')}`;
      return scenarios.map((s) => ({ id: s.id, failed: true, reason, actual: undefined }));
    }
    const rest = scenarios.slice(1);
    const middle = Math.ceil(rest.length / 2);
    return [
      ...judgements(scenarios.slice(0, 1), alone.rows),
      ...(await judge(rest.slice(0, middle))),
      ...(await judge(rest.slice(middle))),
    ];
  };
  return judge;
}

function judgements(scenarios: Scenario[], rows: Map<string, RowVerdict>): CaseJudgement[] {
  return scenarios.map((scenario) => {
    const row = rows.get(scenario.id);
    if (!row) return { id: scenario.id, failed: true, reason: 'no verdict for this row', actual: undefined };
    // A skipped row (unsupported) is no disagreement: the adapter declined it.
    const failed = row.verdict === 'failed';
    return { id: scenario.id, failed, reason: failed ? withDiff(scenario, row) : '', actual: row.actual };
  });
}

/**
 * The verifier's reason, plus the oracle-vs-adapter diff when the verifier stopped at the client's
 * own `status: failed` (it never reads `actual` then, but the diff is what a bug report needs).
 */
function withDiff(scenario: Scenario, row: RowVerdict): string {
  if (!/client reported status "failed"/.test(row.reason) || row.actual === undefined || row.actual === null) return row.reason;
  const rejected = jsonEqual(row.actual, { rejected: true });
  if (scenario.expected !== undefined) {
    if (rejected) return `${row.reason}\n  the oracle accepts the response, but the adapter rejected it (actual {"rejected":true})`;
    const differences = compareExpected(scenario.expected, row.actual);
    return differences.length > 0 ? `${row.reason}\n${formatDifferences(differences)}` : row.reason;
  }
  const layer = scenario.tags?.find((tag) => tag.endsWith('-invalid'))?.replace(/-invalid$/, '') ?? 'some';
  return rejected
    ? row.reason
    : `${row.reason}\n  the oracle rejects the response (${layer} layer), but the adapter applied it: actual ${JSON.stringify(row.actual)}`;
}

/**
 * Writes `scenarios` as one scenario file and runs the client once over it (HTTP: against a server
 * started for exactly this file, always stopped afterwards). Throws only when the HTTP server cannot
 * start (ServerStartError) — an infrastructure problem, not a verdict.
 */
export async function runScenarioBatch(
  options: ProcessTargetOptions,
  scenarios: Scenario[],
): Promise<{ outcome: ClientRunOutcome; verification: ReturnType<typeof verifyRun>; dir: string }> {
  const { server, client, transport, schemasDir, watchdogs } = options;
  mkdirSync(options.workDir, { recursive: true });
  const dir = mkdtempSync(path.join(options.workDir, 'batch-'));
  const scenarioFile = path.join(dir, 'scenarios.json');
  writeFileSync(scenarioFile, serializeScenarioFile({ version: 1, scenarios }));
  const spec = { server, client, transport, auth: 'none' as const, scenarios, serverScenarioFile: scenarioFile, schemasDir, watchdogs };
  let outcome: ClientRunOutcome;
  let kept = false;
  try {
    if (transport === 'http') {
      const handle = await startHttpServer({ adapter: server, auth: 'none', scenarioFile, schemaDir: schemasDir, workDir: dir, startupMs: watchdogs.startupMs });
      try {
        outcome = await withServerLock(handle, () => runClient({ ...spec, httpServer: handle }, { workDir: dir }));
      } finally {
        await stopHttpServer(handle, { keepWorkDir: options.keepFailedRuns === true });
      }
    } else {
      outcome = await runClient(spec, { workDir: dir });
    }
    const verification = verifyRun(outcome, scenarios, client.manifest.language);
    kept = options.keepFailedRuns === true && [...verification.rows.values()].some((row) => row.verdict === 'failed');
    return { outcome, verification, dir };
  } finally {
    if (!kept) rmSync(dir, { recursive: true, force: true });
  }
}

/** Every configured pairing over every configured transport, with auth `none` (the fuzz matrix). */
export function configuredTargets(
  config: ResolvedConfig,
  options: { workDir: string; keepFailedRuns?: boolean },
): FuzzTarget[] {
  const adapters = loadAdapters(config);
  const groups = planMatrix({ ...config, auth: ['none'] }, adapters);
  return groups.map((group) =>
    processTarget({
      server: group.server,
      client: group.client,
      transport: group.transport,
      schemasDir: config.schemas,
      watchdogs: config.watchdogs,
      workDir: options.workDir,
      keepFailedRuns: options.keepFailedRuns,
    }),
  );
}

// ----- in-process ------------------------------------------------------------------------------------

/** An apply step with the oracle's signature: what a client concludes from (request, response). */
export type ApplyStep = (request: InterceptRequest, response: unknown, validators: ProtocolValidators) => Verdict;

export interface InProcessTargetOptions {
  /** The apply step under test (the reference client's is the oracle's `evaluate`). */
  apply: ApplyStep;
  validators: ProtocolValidators;
  /** Label suffix, default `reference`. */
  name?: string;
  /** The report's language (default the reference client's, `typescript`). */
  language?: string;
}

/**
 * The reference client's row logic without processes: a request that fails the request schema is
 * not sent (failed row), otherwise the apply step's verdict is judged against the row exactly as the
 * client does (`judgeVerdict`), and the verifier re-derives every verdict from that report.
 */
export function inProcessTarget(options: InProcessTargetOptions): FuzzTarget {
  const { apply, validators } = options;
  const language = options.language ?? 'typescript';
  const name = options.name ?? 'reference';
  const judge = async (scenarios: Scenario[]): Promise<CaseJudgement[]> => {
    const results = scenarios.map((scenario) => {
      if (!validators.interceptRequest(scenario.request).valid) {
        return { id: scenario.id, status: 'failed' as const, actual: null, error: 'request: scenario request fails the intercept-request schema (not sent)' };
      }
      return judgeVerdict(scenario, apply(scenario.request, scenario.response, validators));
    });
    const outcome: ClientRunOutcome = {
      spec: { transport: 'stdio', auth: 'none', server: name, client: name },
      report: { language, results: results as unknown as JsonValue[] },
      receipts: scenarios.map((s) => s.request),
      exitCode: results.some((r) => r.status === 'failed') ? 1 : 0,
      signal: null,
      timedOut: false,
      failures: [],
      logFiles: [],
      durationMs: 0,
    };
    return judgements(scenarios, verifyRun(outcome, scenarios, language).rows);
  };
  return { label: `${name} in-process`, pairing: pairingLabel(name, 'in-process'), judge, runs: 0 };
}
