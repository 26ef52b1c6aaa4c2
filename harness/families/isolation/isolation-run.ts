// One sender-isolation case (SENDER-ISOLATION-RULES §2): a fresh independent capture origin, the
// derived one-row scenario run through the lifecycle group driver with the client's `upload` block
// replaced wholesale by `{endpoint: <origin>, timeoutMs, maxBytes}` — no `auth` — while the client's
// environment still holds the upload tokens, then the isolation verifier over the captures and the
// event exchange. The origin is always stopped.

import path from 'node:path';

import type { ClientAuthSettings, ServerAuthSettings } from '../../auth/auth-settings.ts';
import type { AuthMode } from '../../config/define-config.ts';
import type { StepScenario } from '../../lifecycle-adapters/scenario-types.ts';
import { keepLogs, pointAtKeptLogs } from '../../runs/keep-logs.ts';
import { CLIENT_UPLOAD_CONFIG, runLifecycleGroup } from '../../lifecycle-adapters/run.ts';
import { judge, type ScriptVerifier } from '../../lifecycle-adapters/runner.ts';
import { safeLabel } from '../../adapters/file-name-part.ts';
import type { MatrixGroup } from '../../runs/plan.ts';
import type { GroupRunResult } from '../../setup/grouped-suite.ts';
import { MAX_UPLOAD_BYTES, startCaptureOrigin } from './capture-origin.ts';
import { ISOLATION_ALIAS, isolationBody, isolationHash } from './isolation-scenario.ts';
import { isolationVerifier } from './verify-isolation.ts';

export interface IsolationRunOptions {
  row: StepScenario;
  lifecycleVerifier: ScriptVerifier<StepScenario>;
  trust: (mode: AuthMode) => Promise<{ server: ServerAuthSettings; client: ClientAuthSettings }>;
  schemasDir: string;
  watchdogs: { startupMs: number; runMs: number };
  runDir: string;
  logDir: string;
}

export async function runIsolationCase(group: MatrixGroup, options: IsolationRunOptions): Promise<GroupRunResult> {
  const origin = await startCaptureOrigin();
  try {
    const body = isolationBody();
    const { server, client } = await options.trust(group.auth);
    const outcome = await runLifecycleGroup(
      {
        suite: 'lifecycle',
        server: group.server,
        client: group.client,
        transport: group.transport,
        auth: group.auth,
        rows: [options.row],
        schemasDir: options.schemasDir,
        watchdogs: options.watchdogs,
        serverAuth: { ...server },
        clientAuth: { ...client },
        upload: { endpoint: origin.endpoint, timeoutMs: CLIENT_UPLOAD_CONFIG.timeoutMs, maxBytes: MAX_UPLOAD_BYTES },
        contentSources: [{ descriptor: { ref: ISOLATION_ALIAS, size: body.length, sha256: isolationHash() }, bytes: body.toString('base64') }],
      },
      { workDir: options.runDir },
    );
    const captures = origin.captures();
    const verify = isolationVerifier(() => captures, { size: body.length, sha256: isolationHash() }, options.lifecycleVerifier);
    const { rows } = judge(group, [options.row], outcome, verify);
    const verdict = rows.get(options.row.id)!;
    verdict.details = { independentUploads: captures.length, credentialIsolationVerified: verdict.verdict === 'passed' };
    const keptLogs = verdict.verdict === 'failed' ? keepLogs(outcome.logFiles, path.join(options.logDir, 'isolation', safeLabel(group.label))) : [];
    verdict.reason = pointAtKeptLogs(verdict.reason, outcome.logFiles, keptLogs);
    return { rows, keptLogs, durationMs: outcome.durationMs };
  } finally {
    await origin.close();
  }
}
