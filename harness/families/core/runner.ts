import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ServerHandle } from '../../adapters/types.ts';
import type { ClientAuthSettings } from '../../auth/auth-settings.ts';
import type { AuthMode } from '../../config/define-config.ts';
import type { Scenario } from '../../scenarios/types.ts';
import { verifyRun } from './verify/verify-run.ts';
import type { RowVerdict, RunVerification } from '../../runs/verdicts.ts';
import { runClient, type ProxyTlsFiles } from '../../runs/client-run.ts';
import { serializeScenarioFile } from '../../scenarios/load-scenarios.ts';
import { blindScenarios } from '../../runs/blind.ts';
import { keepLogs, pointAtKeptLogs } from '../../runs/keep-logs.ts';
import { notRunReason, type MatrixGroup } from '../../runs/plan.ts';
import type { ClientRunOutcome, ProvidedServer, RunFailure } from '../../runs/types.ts';
import { safeLabel } from '../../adapters/file-name-part.ts';

/** Where a core run gets its HTTP server and its mode's trust: the run's server broker (or a stand-in). */
export interface ServerSource {
  trust(mode: AuthMode): Promise<{ client: ClientAuthSettings; proxyTls: ProxyTlsFiles | null }>;
  /** An instance for this run's exclusive use; `lease` is handed back with release(). */
  lease(adapter: string, mode: AuthMode, scenarioFile?: string): Promise<{ lease?: string; server: ProvidedServer }>;
  release(lease: string): Promise<void>;
}

export interface MatrixRunnerOptions {
  /** The full scenario file servers answer from. */
  serverScenarioFile: string;
  schemasDir: string;
  servers: ServerSource;
  watchdogs: { startupMs: number; runMs: number };
  /** Temp parent for every run's files; owned (and removed) by globalSetup. */
  runDir: string;
  /** Where logs of runs with failures are kept after the temp dir is gone. */
  logDir: string;
  /** Blind mode (blind.ts): decoy expectations and opaque ids for every run. */
  blind?: boolean;
}

export interface GroupRun {
  group: MatrixGroup;
  selected: Scenario[];
  outcome: ClientRunOutcome;
  verification: RunVerification;
  /** Kept copies of the run's logs when anything failed; empty otherwise. */
  keptLogs: string[];
}

/**
 * Runs the client of a core matrix group once, for exactly the scenarios selected in that group.
 * An HTTP run leases a server instance for its exclusive use, so the server's receipts (after −
 * before) are this run's alone; concurrent runs of one (adapter, mode) get instances of their own.
 * (How many runs go at once is the suite's scheduler's business.)
 */
export class MatrixRunner {
  constructor(private readonly options: MatrixRunnerOptions) {}

  async run(group: MatrixGroup, selected: Scenario[]): Promise<GroupRun> {
    const { options } = this;
    const notRun = notRunReason(group);
    if (notRun !== undefined) throw new Error(`harness bug: ${group.label} is not runnable (${notRun})`);
    const blind = options.blind ? blindScenarios(selected) : undefined;
    const spec = {
      server: group.server,
      client: group.client,
      transport: group.transport,
      auth: group.auth,
      scenarios: blind?.judgedScenarios ?? selected,
      ...(blind ? { clientScenarios: blind.clientScenarios } : {}),
      serverScenarioFile: blind ? writeBlindServerFile(options.runDir, blind.judgedScenarios) : options.serverScenarioFile,
      schemasDir: options.schemasDir,
      watchdogs: options.watchdogs,
    };
    let outcome: ClientRunOutcome;
    let trust: { client: ClientAuthSettings; proxyTls: ProxyTlsFiles | null } | undefined;
    try {
      trust = await options.servers.trust(group.auth);
    } catch (error) {
      outcome = failedOutcome(group, { stage: 'startup', kind: 'trust', party: 'harness', message: `startup: the run's trust for auth mode "${group.auth}" could not be built: ${(error as Error).message}` });
    }
    if (trust) {
      // Stdio is process trust only: the spawned server always gets `{mode: "none"}` (other modes are
      // inapplicable over stdio and never get here).
      const runOptions = {
        workDir: options.runDir,
        authSettings: { ...trust.client },
        serverAuthSettings: { mode: 'none' },
        ...(trust.proxyTls ? { proxyTls: trust.proxyTls } : {}),
      };
      if (group.transport === 'http') {
        const leased = await options.servers.lease(group.server.name, group.auth, blind ? spec.serverScenarioFile : undefined);
        try {
          outcome = leased.server.error
            ? failedOutcome(group, leased.server.error)
            : await runClient({ ...spec, httpServer: leased.server.handle }, runOptions);
        } finally {
          if (leased.lease !== undefined) await options.servers.release(leased.lease);
        }
      } else {
        outcome = await runClient(spec, runOptions);
      }
    }
    const judged = verifyRun(outcome!, spec.scenarios, group.client.manifest.language, { blind: blind !== undefined });
    const verification = blind ? { ...judged, rows: new Map([...judged.rows].map(([id, row]) => [blind.originalId.get(id)!, unblind(row, blind.originalId.get(id)!, blind.originalId)])) } : judged;
    const anyFailed = [...verification.rows.values()].some((row) => row.verdict === 'failed');
    const keptLogs = anyFailed ? keepLogs(outcome!.logFiles, path.join(options.logDir, safeLabel(group.label))) : [];
    for (const row of verification.rows.values()) row.reason = pointAtKeptLogs(row.reason, outcome!.logFiles, keptLogs);
    return { group, selected, outcome: outcome!, verification, keptLogs };
  }
}

/**
 * A blind row's verdict under its original id. Its reason quotes the evidence as the adapters saw it,
 * opaque ids included (its own, or another row's where the run died), so it says which row each is.
 */
function unblind(row: RowVerdict, original: string, originalId: ReadonlyMap<string, string>): RowVerdict {
  const named = [...originalId].filter(([opaque]) => row.reason.includes(opaque)).slice(0, 10);
  const reason = named.length === 0 ? row.reason : `${row.reason}\n(blind run: ${named.map(([opaque, id]) => `"${opaque}" is row "${id}"`).join('; ')})`;
  return { ...row, id: original, reason };
}

/** The renamed rows (true expectations) the blind run's server answers from, in the run dir. */
function writeBlindServerFile(runDir: string, scenarios: Scenario[]): string {
  mkdirSync(runDir, { recursive: true });
  const file = path.join(mkdtempSync(path.join(runDir, 'blind-')), 'scenarios.json');
  writeFileSync(file, serializeScenarioFile({ version: 1, scenarios }));
  return file;
}

function failedOutcome(group: MatrixGroup, failure: RunFailure): ClientRunOutcome {
  return {
    spec: { server: group.server.name, client: group.client.name, transport: group.transport, auth: group.auth },
    report: undefined,
    receipts: undefined,
    exitCode: null,
    signal: null,
    timedOut: false,
    failures: [failure],
    logFiles: [],
    durationMs: 0,
  };
}
