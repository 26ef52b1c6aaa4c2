// What a fuzz case is run against. A target judges a list of scenario rows and says, per row,
// whether the adapter's verdict agrees with the oracle's expectation in the row, and if not, which
// failure class it is (triage.ts):
//
// - a process target is one `<server>→<client> <transport>/none` pairing: the rows are written as one
//   scenario file and run through ONE client run (HTTP: a private server started with exactly that
//   file and always stopped; stdio: the client spawns the server through the harness relay), then
//   every row gets the verifier's verdict (`verifyRun`, the same rules as the core suite);
// - the in-process target runs the reference client's row logic (request check, apply step, judge)
//   directly, with the verifier on a report built in memory: no processes, for speed.
//
// A run that fails as a whole — a server that will not start included — cannot say which row caused
// it: the rows are bisected into smaller runs until the refusal is pinned to the smallest scenario set
// (refusal-search.ts). Such a run's folder (configs, logs) is kept for the caller to persist.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { ServerStartError, startHttpServer, stopHttpServer, withServerLock } from '../adapters/http-server-pool.ts';
import type { LoadedAdapter } from '../adapters/types.ts';
import type { Transport } from '../config/define-config.ts';
import type { ResolvedConfig } from '../config/load-config.ts';
import type { Verdict } from '../oracle/types.ts';
import type { JsonValue } from '../protocol/json.ts';
import type { InterceptRequest } from '../protocol/messages.ts';
import type { ProtocolValidators } from '../protocol/validator-types.ts';
import { runClient } from '../runs/client-run.ts';
import { groupLabel, loadAdapters, planMatrix } from '../runs/plan.ts';
import type { ClientRunOutcome } from '../runs/types.ts';
import { serializeScenarioFile } from '../scenarios/load-scenarios.ts';
import type { Scenario } from '../scenarios/types.ts';
import { requiredHook } from '../families/family-hooks.ts';
import type { RowVerdict } from '../runs/verdicts.ts';
import { judgeVerdict } from '../oracle/report-row.ts';
import { bisectingJudge, type BisectionObserver } from './refusal-search.ts';
import { judgeRows, runDetails, type CaseJudgement, type RunResult } from './triage.ts';
import { fileNamePart } from '../adapters/file-name-part.ts';

export type { CaseJudgement } from './triage.ts';

export interface FuzzTarget {
  /** Human label, e.g. `reference→reference http/none`. */
  label: string;
  /** File-name-safe label for counterexample files, e.g. `reference-to-reference-http`. */
  pairing: string;
  /**
   * Judges the rows (in order); may take several process runs when a run fails as a whole. Refused
   * rows carry a Refusal whose kept folders the caller persists or removes.
   */
  judge(scenarios: Scenario[], observe?: BisectionObserver): Promise<CaseJudgement[]>;
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
}

/** File-name-safe label of a pairing (and its transport, for process targets: their replay configs differ). */
export function pairingLabel(server: string, client: string, transport?: Transport): string {
  return fileNamePart(`${server}-to-${client}${transport === undefined ? '' : `-${transport}`}`);
}

/** One configured pairing over one transport, auth `none`. */
export function processTarget(options: ProcessTargetOptions): FuzzTarget {
  const { server, client, transport } = options;
  let runs = 0;
  const judge = bisectingJudge(async (scenarios) => {
    runs++;
    return runScenarioBatch(options, scenarios);
  });
  return {
    label: groupLabel(server.name, client.name, transport, 'none'),
    pairing: pairingLabel(server.name, client.name, transport),
    judge,
    get runs() {
      return runs;
    },
    replay: { server, client, transport, schemasDir: options.schemasDir },
  };
}

/**
 * Writes `scenarios` as one scenario file and runs the client once over it (HTTP: against a server
 * started for exactly this file, always stopped afterwards). A server that cannot start is a run
 * failure like any other. The run's folder is removed, except when the run failed as a whole (then
 * `dir` names it and the caller owns it).
 */
export async function runScenarioBatch(options: ProcessTargetOptions, scenarios: Scenario[]): Promise<RunResult> {
  const { server, client, transport, schemasDir, watchdogs } = options;
  mkdirSync(options.workDir, { recursive: true });
  const dir = mkdtempSync(path.join(options.workDir, 'batch-'));
  const scenarioFile = path.join(dir, 'scenarios.json');
  writeFileSync(scenarioFile, serializeScenarioFile({ version: 1, scenarios }));
  const spec = { server, client, transport, auth: 'none' as const, scenarios, serverScenarioFile: scenarioFile, schemasDir, watchdogs };
  let keep = false;
  try {
    let outcome: ClientRunOutcome;
    if (transport === 'http') {
      let handle;
      try {
        handle = await startHttpServer({ adapter: server, auth: 'none', scenarioFile, schemaDir: schemasDir, workDir: dir, startupMs: watchdogs.startupMs });
      } catch (error) {
        if (!(error instanceof ServerStartError)) throw error;
        keep = true;
        return { ...serverRefused(error, scenarios), dir };
      }
      try {
        outcome = await withServerLock(handle, () => runClient({ ...spec, httpServer: handle }, { workDir: dir }));
      } finally {
        // Its folder is inside `dir`, which goes (or stays) as a whole.
        await stopHttpServer(handle, { keepWorkDir: true });
      }
    } else {
      outcome = await runClient(spec, { workDir: dir });
    }
    const verification = (await coreVerifier())(outcome, scenarios, client.manifest.language);
    const result: RunResult = { rows: verification.rows, integrity: verification.integrity, ...runDetails(outcome, scenarios, verification.rows) };
    keep = result.integrity.length > 0 || result.clientWideError !== undefined;
    return { ...result, ...(keep ? { dir } : {}) };
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

/** Core's row verifier (the same rules as the core suite), reached through the family list. */
function coreVerifier() {
  return requiredHook('core', 'verifyClientRun');
}

/** A server that would not start: every row fails with the start failure. */
function serverRefused(error: ServerStartError, scenarios: Scenario[]): RunResult {
  const line = `[${error.stage}/${error.kind}] (server) ${error.message}`;
  const reason = `run integrity failure (every row of this run fails):\n  ${line}`;
  const rows = new Map<string, RowVerdict>(
    scenarios.map((s) => [s.id, { id: s.id, verdict: 'failed', reason, adapterStatus: 'missing', actual: undefined, faults: [] }]),
  );
  return { rows, integrity: [line] };
}

/** Every configured pairing over every configured transport, with auth `none` (the fuzz matrix). */
export function configuredTargets(
  config: ResolvedConfig,
  options: { workDir: string },
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
    const rows = (await coreVerifier())(outcome, scenarios, language).rows;
    return judgeRows(scenarios, { rows, integrity: [], ...runDetails(outcome, scenarios, rows) });
  };
  return { label: `${name} in-process`, pairing: pairingLabel(name, 'in-process'), judge, runs: 0 };
}
