// The pair's one long-lived receiver (ELICITATION-RULES §3): `<cmd> server <schemaDir>
// authenticated:<senderLang>`, ready once it prints its endpoint line, under the startup watchdog.
// Its stderr goes to the pair's folder; stdout is read for the endpoint line only, then drained so a
// chatty receiver never blocks on a full pipe. stop() ends its whole process group.

import path from 'node:path';

import { launch, SpawnError, type LaunchedProcess } from '../../adapters/launch.ts';
import { readEndpointLine } from '../../adapters/endpoint-line.ts';
import { stderrTail } from './stderr-tail.ts';

/** The rules' verbatim labels (§9 item 7). */
export const RECEIVER_LABELS = {
  timedOut: 'receiver startup timed out',
  failed: 'receiver startup failed',
} as const;

/** How much of the receiver's stderr a startup failure quotes (§9 item 7). */
const STARTUP_TAIL_CHARS = 1500;

export interface ReceiverSpec {
  /** The receiver adapter's base command (absolute paths), its cwd and the pair's environment. */
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  schemaDir: string;
  /** `authenticated:<senderLang>`: what the receiver must report as the authenticated source. */
  principal: string;
  dir: string;
  startupMs: number;
  secrets: readonly string[];
}

export interface RunningReceiver {
  endpoint: string;
  stderrFile: string;
  stop(): Promise<void>;
}

export type ReceiverStart = { ok: true; receiver: RunningReceiver } | { ok: false; error: string; stderrFile: string };

export async function startReceiver(spec: ReceiverSpec): Promise<ReceiverStart> {
  const stderrFile = path.join(spec.dir, 'receiver.stderr');
  let process: LaunchedProcess;
  try {
    process = await launch({
      command: [...spec.argv, 'server', spec.schemaDir, spec.principal],
      cwd: spec.cwd,
      env: spec.env,
      passStdout: true,
      stderrFile,
      graceMs: 5000,
    });
  } catch (error) {
    if (!(error instanceof SpawnError)) throw error;
    return { ok: false, error: `${RECEIVER_LABELS.failed}: ${error.message}`, stderrFile };
  }
  const line = await readEndpointLine(process.stdout!, { timeoutMs: spec.startupMs, stderrFile });
  if (!line.ok) {
    await process.stop(1000);
    if (line.kind === 'timeout') return { ok: false, error: RECEIVER_LABELS.timedOut, stderrFile };
    const tail = stderrTail(stderrFile, STARTUP_TAIL_CHARS, spec.secrets);
    return { ok: false, error: `${RECEIVER_LABELS.failed}: ${tail === '' ? line.detail : tail}`, stderrFile };
  }
  process.stdout!.resume();
  return { ok: true, receiver: { endpoint: line.endpoint, stderrFile, stop: () => process.stop(5000) } };
}
