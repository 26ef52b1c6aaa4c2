// Elicitation adapter processes as the self-tests start them, through the shared machinery the
// family uses: the adapter's `elicitation` command from its adapter.json (familyCommand), the
// receiver under the supervisor with its endpoint line read under a bound, and each atomic-helper
// or sender run as one client process with its stdin and stdout in files. Every receiver started
// here is stopped by `stopReceivers` (each test file's afterAll) whatever happened.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { readEndpointLine } from '../../../harness/adapters/endpoint-line.ts';
import { loadAdapter } from '../../../harness/adapters/adapter-manifest.ts';
import { familyCommand, type FamilyCommand } from '../../../harness/adapters/family-command.ts';
import { launch, type LaunchedProcess } from '../../../harness/adapters/launch.ts';
import { runClientProcess } from '../../../harness/runs/client-process.ts';

export const STARTUP_MS = 20_000;
const RUN_MS = 30_000;

/** The `elicitation` command an adapter folder declares (or the protocol's convention finds). */
export function elicitationCommand(adapterDir: string, name = 'reference'): FamilyCommand {
  const adapter = loadAdapter({ name, cwd: adapterDir, adapterFile: path.join(adapterDir, 'interop', 'adapter.json') });
  const found = familyCommand(adapter, 'elicitation');
  if (!found.ok) throw new Error(found.reason);
  return found.command;
}

export interface Receiver {
  endpoint: string;
  process: LaunchedProcess;
  stderrFile: string;
}

const receivers = new Set<LaunchedProcess>();
const workDirs: string[] = [];

function workDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ahp-eli-selftest-'));
  workDirs.push(dir);
  return dir;
}

export async function stopReceivers(): Promise<void> {
  await Promise.all([...receivers].map((receiver) => receiver.stop()));
  receivers.clear();
  for (const dir of workDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export type ReceiverStart = { ok: true; receiver: Receiver } | { ok: false; kind: string; detail: string; process: LaunchedProcess };

export async function startReceiver(command: FamilyCommand, args: string[], env: Record<string, string | undefined>): Promise<ReceiverStart> {
  const stderrFile = path.join(workDir(), 'receiver.log');
  const launched = await launch({ command: [...command.argv, 'server', ...args], cwd: command.cwd, env, passStdout: true, stderrFile });
  receivers.add(launched);
  const line = await readEndpointLine(launched.stdout!, { timeoutMs: STARTUP_MS, stderrFile });
  if (!line.ok) return { ok: false, kind: line.kind, detail: line.detail, process: launched };
  return { ok: true, receiver: { endpoint: line.endpoint, process: launched, stderrFile } };
}

export interface ModeRun {
  exitCode: number | null;
  stdout: string;
  log: string;
  wallMs: number;
}

/** Runs one short-lived mode (`check …` or `client`) with `input` as its stdin. */
export async function runMode(command: FamilyCommand, args: string[], input: unknown, env: Record<string, string | undefined>): Promise<ModeRun> {
  const dir = workDir();
  const stdinFile = path.join(dir, 'stdin.json');
  writeFileSync(stdinFile, JSON.stringify(input), { mode: 0o600 });
  const stdoutFile = path.join(dir, 'stdout.json');
  const logFile = path.join(dir, 'stderr.log');
  const started = Date.now();
  const run = await runClientProcess({ command: [...command.argv, ...args], cwd: command.cwd, env: definedOnly(env), stdinFile, stdoutFile, logFile, runMs: RUN_MS, graceMs: 1_000 });
  const wallMs = Date.now() - started;
  if (!run.started) throw run.spawnError;
  if (run.timedOut) throw new Error(`${args[0]} did not exit within ${RUN_MS} ms:\n${readFileSync(logFile, 'utf8')}`);
  return { exitCode: run.exit.code, stdout: readFileSync(stdoutFile, 'utf8'), log: readFileSync(logFile, 'utf8'), wallMs };
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
