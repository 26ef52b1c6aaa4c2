import path from 'node:path';
import { withServerLock } from '../adapters/http-server-pool.ts';
import type { ServerHandle } from '../adapters/types.ts';
import type { ClientAuthSettings } from '../auth/auth-settings.ts';
import type { AuthMode } from '../config/define-config.ts';
import type { Scenario } from '../scenarios/types.ts';
import { verifyRun, type RunVerification } from '../verify/verify-run.ts';
import { runClient, type ProxyTlsFiles } from './client-run.ts';
import { keepLogs } from './keep-logs.ts';
import { httpServerKey, notRunReason, type MatrixGroup } from './plan.ts';
import type { ClientRunOutcome, RunFailure } from './types.ts';

/** What globalSetup provides per shared HTTP server: a handle, or why it could not start. */
export type ProvidedServer = { handle: ServerHandle; error?: undefined } | { handle?: undefined; error: RunFailure };

export interface MatrixRunnerOptions {
  scenarios: Scenario[];
  /** The full scenario file servers answer from. */
  serverScenarioFile: string;
  schemasDir: string;
  servers: Record<string, ProvidedServer>;
  /** The client config's `auth` by mode (globalSetup's `ahpClientAuth`); a group's mode must be present. */
  clientAuth: Partial<Record<AuthMode, ClientAuthSettings>>;
  watchdogs: { startupMs: number; runMs: number };
  /** Temp parent for every run's files; owned (and removed) by globalSetup. */
  runDir: string;
  /** Where logs of runs with failures are kept after the temp dir is gone. */
  logDir: string;
  /** The run's PKI files for the HTTP proxy in mtls groups (globalSetup's `ahpProxyTls`). */
  proxyTls?: ProxyTlsFiles | null;
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
 * Runs against one shared HTTP server are serialised by the server lock, because receipts can only be
 * attributed to one run at a time. (How many groups run at once is the suite's scheduler's business.)
 */
export class MatrixRunner {
  constructor(private readonly options: MatrixRunnerOptions) {}

  async run(group: MatrixGroup, selected: Scenario[]): Promise<GroupRun> {
    const { options } = this;
    const notRun = notRunReason(group);
    if (notRun !== undefined) throw new Error(`harness bug: ${group.label} is not runnable (${notRun})`);
    const spec = {
      server: group.server,
      client: group.client,
      transport: group.transport,
      auth: group.auth,
      scenarios: selected,
      serverScenarioFile: options.serverScenarioFile,
      schemasDir: options.schemasDir,
      watchdogs: options.watchdogs,
    };
    const clientAuth = options.clientAuth[group.auth];
    // Stdio is process trust only: the spawned server always gets `{mode: "none"}` (other modes are
    // inapplicable over stdio and never get here).
    const runOptions = {
      workDir: options.runDir,
      authSettings: { ...clientAuth },
      serverAuthSettings: { mode: 'none' },
      ...(options.proxyTls ? { proxyTls: options.proxyTls } : {}),
    };
    let outcome: ClientRunOutcome;
    if (!clientAuth) {
      outcome = failedOutcome(group, { stage: 'startup', kind: 'no-client-auth', party: 'harness', message: `startup: auth mode "${group.auth}" has no client auth settings (not part of the run's trust)` });
    } else if (group.transport === 'http') {
      const provided = options.servers[httpServerKey(group.server.name, group.auth)];
      if (!provided) {
        outcome = failedOutcome(group, { stage: 'startup', kind: 'not-started', party: 'harness', message: `startup: server "${group.server.name}" (${group.auth}) was not started by globalSetup` });
      } else if (provided.error) {
        outcome = failedOutcome(group, provided.error);
      } else {
        const handle = provided.handle;
        outcome = await withServerLock(handle, () => runClient({ ...spec, httpServer: handle }, runOptions), {
          timeoutMs: options.watchdogs.runMs * 4,
        });
      }
    } else {
      outcome = await runClient(spec, runOptions);
    }
    const verification = verifyRun(outcome, selected, group.client.manifest.language);
    const anyFailed = [...verification.rows.values()].some((row) => row.verdict === 'failed');
    const keptLogs = anyFailed ? keepLogs(outcome.logFiles, path.join(options.logDir, safeLabel(group.label))) : [];
    return { group, selected, outcome, verification, keptLogs };
  }
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

export function safeLabel(label: string): string {
  return label.replace(/→/g, '-to-').replace(/[^A-Za-z0-9_.-]+/g, '_');
}
