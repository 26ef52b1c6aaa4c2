// A lifecycle group's run, judged: runLifecycleGroup (processes) → verifyLifecycleRun (pure) → one
// RowOutcome per selected row. A failure of the run as a whole fails every row; a check that belongs
// to one scenario fails that scenario with the rules' label, the party and the entries involved.

import path from 'node:path';

import type { ClientAuthSettings, ServerAuthSettings } from '../auth/auth-settings.ts';
import type { AuthMode } from '../config/define-config.ts';
import type { LifecycleScenario } from './scenario-types.ts';
import type { Transport } from '../config/define-config.ts';
import type { GroupRunResult, RowOutcome } from '../setup/grouped-suite.ts';
import { partyOfFailure } from '../runs/verdicts.ts';
import type { Check, LifecycleVerification } from './findings.ts';
import { runLifecycleGroup, type LifecycleRunOutcome, type LifecycleSuite, type ScriptScenario } from './run.ts';
import { keepLogs, pointAtKeptLogs } from '../runs/keep-logs.ts';
import { safeLabel } from '../adapters/file-name-part.ts';
import { notRunReason, type MatrixGroup } from '../runs/plan.ts';

/** What a family's pure verifier is given (lifecycle, catalogue, sender isolation). */
export interface ScriptEvidence<Row> {
  rows: Row[];
  transport: Transport;
  report: unknown;
  receipts: unknown;
  exitCode: number | null;
  clientLanguage: string;
}

export type ScriptVerifier<Row> = (evidence: ScriptEvidence<Row>) => LifecycleVerification;

export interface LifecycleRunnerOptions<Row extends ScriptScenario = LifecycleScenario> {
  suite: LifecycleSuite;
  schemasDir: string;
  verify: ScriptVerifier<Row>;
  /** Each mode's auth settings, built on first use (the run's server broker). */
  trust: (mode: AuthMode) => Promise<{ server: ServerAuthSettings; client: ClientAuthSettings }>;
  watchdogs: { startupMs: number; runMs: number };
  /** Temp parent of every run's files; owned (and removed) by globalSetup. */
  runDir: string;
  /** Where logs of runs with failures are kept after the temp dir is gone. */
  logDir: string;
}

/** One group run of a family that runs through the lifecycle adapters, judged by the family's verifier. */
export class LifecycleRunner<Row extends ScriptScenario = LifecycleScenario> {
  constructor(private readonly options: LifecycleRunnerOptions<Row>) {}

  async run(group: MatrixGroup, rows: Row[]): Promise<GroupRunResult> {
    const { options } = this;
    const notRun = notRunReason(group);
    if (notRun !== undefined) throw new Error(`harness bug: ${group.label} is not runnable (${notRun})`);
    const { server: serverAuth, client: clientAuth } = await options.trust(group.auth);
    const outcome = await runLifecycleGroup(
      {
        suite: options.suite,
        server: group.server,
        client: group.client,
        transport: group.transport,
        auth: group.auth,
        rows,
        schemasDir: options.schemasDir,
        watchdogs: options.watchdogs,
        serverAuth: { ...serverAuth },
        clientAuth: { ...clientAuth },
      },
      { workDir: options.runDir },
    );
    const result = judge(group, rows, outcome, options.verify);
    const anyFailed = [...result.rows.values()].some((row) => row.verdict === 'failed');
    const keptLogs = anyFailed ? keepLogs(outcome.logFiles, path.join(options.logDir, options.suite, safeLabel(group.label))) : [];
    for (const row of result.rows.values()) row.reason = pointAtKeptLogs(row.reason, outcome.logFiles, keptLogs);
    return { rows: result.rows, keptLogs, durationMs: outcome.durationMs };
  }
}

/** The verifier's findings as row outcomes (exported for the self-tests). */
export function judge<Row extends { id: string }>(group: MatrixGroup, rows: Row[], outcome: LifecycleRunOutcome, verify: ScriptVerifier<Row>): { rows: Map<string, RowOutcome> } {
  // A client that never started left no evidence: the run failure that kept it from starting (the
  // server's startup, the spawn) is the whole story, and nothing is charged to the client for it.
  const verification = outcome.clientStarted
    ? verify({
        rows,
        transport: group.transport,
        report: outcome.report,
        receipts: outcome.receipts,
        exitCode: outcome.timedOut ? null : outcome.exitCode,
        clientLanguage: group.client.manifest.language,
      })
    : { runFailures: [], rows: new Map<string, Check[]>() };
  const runLines = [
    ...outcome.failures.map((f) => ({ label: `${f.stage}/${f.kind}`, line: `[${f.stage}/${f.kind}] (${f.party ?? partyOfFailure(f.stage, f.kind)}) ${f.message}` })),
    ...verification.runFailures.map((check) => ({ label: check.label, line: `[${check.label}] (${check.party}) ${check.message}` })),
  ];
  const reported = reportedRows(outcome.report);
  const result = new Map<string, RowOutcome>();
  for (const row of rows) {
    const checks = verification.rows.get(row.id) ?? [];
    const own = checks.map((check) => `[${check.label}] ${check.party} fault: ${check.message}`);
    const entry = reported.get(row.id);
    const base = {
      adapterStatus: entry === undefined ? 'missing' : typeof entry.status === 'string' ? entry.status : 'passed',
      actual: entry?.actual ?? null,
      errors: [...runLines.map((line) => line.label), ...checks.map((check) => check.label)],
    };
    if (runLines.length > 0) {
      const extra = own.length > 0 ? `\nthis row's own findings:\n  ${own.join('\n  ')}` : '';
      result.set(row.id, { ...base, verdict: 'failed', reason: `run failure (every row of this run fails):\n  ${runLines.map((line) => line.line).join('\n  ')}${extra}` });
    } else if (own.length > 0) {
      result.set(row.id, { ...base, verdict: 'failed', reason: own.join('\n') });
    } else {
      result.set(row.id, { ...base, verdict: 'passed', reason: '' });
    }
  }
  return { rows: result };
}

/** The report's results by id (first of each id), read defensively: only for what the reports show. */
function reportedRows(report: unknown): Map<string, { status?: unknown; actual?: unknown }> {
  const rows = new Map<string, { status?: unknown; actual?: unknown }>();
  const results = typeof report === 'object' && report !== null ? (report as { results?: unknown }).results : undefined;
  if (!Array.isArray(results)) return rows;
  for (const entry of results) {
    if (typeof entry === 'object' && entry !== null && typeof (entry as { id?: unknown }).id === 'string' && !rows.has((entry as { id: string }).id)) {
      rows.set((entry as { id: string }).id, entry as { status?: unknown; actual?: unknown });
    }
  }
  return rows;
}
