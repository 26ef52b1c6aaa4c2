// Starts the pair's HTTP receiver (COMPACTION-RULES §8 step 2) — on both transports, as the rules
// do — and reads its endpoint line under the 45 s watchdog. A receiver that ends or stays silent is
// worded with the rules' labels: `receiver startup timeout`, or `receiver startup failed: <last 1500
// bytes of stderr>` (redacted). The process is always returned to be stopped, or already reaped.

import path from 'node:path';

import { readEndpointLine } from '../../adapters/endpoint-line.ts';
import { launch, SpawnError, type LaunchedProcess } from '../../adapters/launch.ts';
import { redactSecrets } from '../../runs/redact-secrets.ts';
import { LABEL, type CompactionCheck } from './verify/labels.ts';

export const RECEIVER_READY_MS = 45_000;
export const RECEIVER_GRACE_MS = 5_000;

export type ReceiverStart =
  | { ok: true; endpoint: string; process: LaunchedProcess; logFile: string }
  /** `pids`: the receiver and its supervisor, already reaped (none when it could not be spawned). */
  | { ok: false; check: CompactionCheck; logFile: string; pids: number[] };

export async function startHttpReceiver(spec: { argv: string[]; cwd: string; env: Record<string, string>; workDir: string; secrets: readonly string[]; readyMs?: number }): Promise<ReceiverStart> {
  const logFile = path.join(spec.workDir, 'receiver.log');
  let receiver: LaunchedProcess;
  try {
    receiver = await launch({ command: [...spec.argv, 'server'], cwd: spec.cwd, env: spec.env, passStdout: true, stderrFile: logFile, graceMs: RECEIVER_GRACE_MS });
  } catch (error) {
    if (!(error instanceof SpawnError)) throw error;
    return { ok: false, logFile, pids: [], check: { label: LABEL.startupFailed, party: 'receiver', message: `${LABEL.startupFailed}: ${error.message}` } };
  }
  const line = await readEndpointLine(receiver.stdout!, { timeoutMs: spec.readyMs ?? RECEIVER_READY_MS, stderrFile: logFile, tailBytes: 1500 });
  if (line.ok) return { ok: true, endpoint: line.endpoint.replace(/\/+$/, ''), process: receiver, logFile };
  await receiver.stop(RECEIVER_GRACE_MS);
  await receiver.exited;
  const pids = [receiver.pid, receiver.supervisorPid];
  if (line.kind === 'timeout') return { ok: false, logFile, pids, check: { label: LABEL.startupTimeout, party: 'receiver', message: `${LABEL.startupTimeout}: ${line.detail}` } };
  // eof: the detail is the stderr tail the rules quote; invalid: what the first line was instead
  return { ok: false, logFile, pids, check: { label: LABEL.startupFailed, party: 'receiver', message: `${LABEL.startupFailed}: ${redactSecrets(line.detail, spec.secrets)}` } };
}
