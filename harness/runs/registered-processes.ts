// LIFECYCLE-RULES §10 for the processes a lifecycle run's adapters start on their own and name in pid
// files: the server a stdio client spawns (`childPidFile`, written at once) and the pid a stdio
// server's readiness file names. The harness's supervisor only knows the processes it launched (and
// the escapees carrying its environment tag); these files are how the rest is found.
//
// A pid file must hold `{"pid": <integer > 1>}`. The child pid file is required over stdio (the
// client spawns a server there) and optional over HTTP; a readiness file is optional (a server that
// never got ready has none). A file that exists but is malformed fails the run — `cleanup metadata
// <file>: …` — even when every check passed, and charges whoever writes it. Whatever the files say,
// the harness never signals its own process group (`cleanup refused controller process group`).
// These are not the harness's direct processes: by the time they are read, the client (which owns
// its server's shutdown) has ended, so what is left is SIGKILLed at once — the group a named process
// leads, and the process itself.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { groupAlive, killGroup, killPid, pidAlive, processGroupOf, waitGroupGone, waitPidGone } from '../adapters/supervise.ts';
import { parseJsonText } from '../protocol/json-text.ts';

export interface RegisteredPidFiles {
  childPidFile: string;
  readinessFile: string;
}

export interface CleanupProblem {
  message: string;
  /** Who writes the file at fault. */
  party: 'client' | 'server';
}

export interface ReapOptions {
  /** Whether a missing child pid file is a failure (stdio: the client always spawns a server). */
  childPidFileRequired: boolean;
}

type PidFileRead = { pid: number } | { missing: true } | { problem: string };

export async function reapRegisteredProcesses(files: RegisteredPidFiles, options: ReapOptions): Promise<CleanupProblem[]> {
  const problems: CleanupProblem[] = [];
  const pids: number[] = [];
  const sources = [
    { file: files.childPidFile, required: options.childPidFileRequired, party: 'client', duty: 'the stdio client must write {"pid": <integer > 1>} of the server it spawns, at once' },
    { file: files.readinessFile, required: false, party: 'server', duty: 'a stdio server names its own pid in its readiness file, an integer > 1' },
  ] as const;
  for (const { file, required, party, duty } of sources) {
    const read = readPidFile(file);
    if ('pid' in read) {
      const refusal = controllerRefusal(read.pid);
      if (refusal !== undefined) problems.push({ message: `cleanup refused controller process group: ${path.basename(file)} names pid ${read.pid}, ${refusal}; it was not signalled; ${file}`, party });
      else if (!pids.includes(read.pid)) pids.push(read.pid);
    } else if ('problem' in read || required) {
      problems.push({ message: `cleanup metadata ${path.basename(file)}: ${'problem' in read ? read.problem : 'the file was not written'} (${duty}); ${file}`, party });
    }
  }
  await Promise.all(pids.map(endRegistered));
  return problems;
}

/** Why signalling `pid` (or its group) would hit the harness itself, or undefined. */
function controllerRefusal(pid: number): string | undefined {
  if (pid === process.pid) return 'which is the harness process itself';
  const own = processGroupOf(process.pid);
  if (own === undefined) return undefined;
  if (pid === own) return "which leads the harness's own process group";
  if (processGroupOf(pid) === own) return "which is in the harness's own process group";
  return undefined;
}

/** Bound for a SIGKILLed process (or group) to be gone. */
const KILLED_GONE_MS = 1000;

async function endRegistered(pid: number): Promise<void> {
  if (groupAlive(pid)) {
    killGroup(pid, 'SIGKILL');
    await waitGroupGone(pid, KILLED_GONE_MS);
  }
  // A registered process that leads no group of its own (or left it) is ended by itself.
  if (pidAlive(pid)) {
    killPid(pid, 'SIGKILL');
    await waitPidGone(pid, KILLED_GONE_MS);
  }
}

/** The integer pid > 1 of a `{"pid": N}` file, that there is no file, or what is wrong with it. */
function readPidFile(file: string): PidFileRead {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { missing: true } : { problem: `the file cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) return { problem: `not valid JSON ${parsed.where}` };
  const value = parsed.value;
  const pid = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>).pid : undefined;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 1) return { problem: `field "pid": expected an integer > 1, got ${JSON.stringify(pid ?? null)}` };
  return { pid };
}
