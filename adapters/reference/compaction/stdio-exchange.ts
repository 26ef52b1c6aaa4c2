// One hook call over stdio: spawn the receiver (`receiverCommand + ["stdio", scope]`, argv, no shell)
// for this call only, write the request line, read the one reply line, close stdin and wait for the
// receiver to exit 0. A receiver that writes anything after its reply, exits non-zero or never
// answers fails the call. Every receiver is waited for (killed after a grace when it lingers), and
// `killSpawnedReceivers` ends any still running when the host itself has to stop early.

import { spawn, type ChildProcess } from 'node:child_process';

import type { JsonValue } from '../../../harness/protocol/json.ts';
import { LineQueue } from '../lib/ndjson.ts';
import { EVENT_TIMEOUT_MS, type WireReply } from './http-exchange.ts';

const EXIT_GRACE_MS = 5_000;
const running = new Set<ChildProcess>();

export function killSpawnedReceivers(): void {
  for (const child of running) child.kill('SIGKILL');
}

/** Runs `command` as one stdio session: writes `lines`, ends stdin, collects every stdout line. */
export async function stdioSession(command: readonly string[], lines: readonly string[], timeoutMs: number): Promise<{ ok: true; lines: string[]; code: number | null } | { ok: false; error: string; lines: string[] }> {
  const child = spawn(command[0]!, command.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
  running.add(child);
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const spawnFailed = new Promise<string>((resolve) => child.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'spawn failed')));
  const queue = new LineQueue(child.stdout!);
  child.stdin!.on('error', () => undefined);
  for (const line of lines) child.stdin!.write(`${line}\n`);
  child.stdin!.end();
  const collected: string[] = [];
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const next = await Promise.race([queue.next(Math.max(1, deadline - Date.now())), spawnFailed.then((code) => ({ kind: 'spawn-error' as const, code }))]);
      if (next.kind === 'spawn-error') return { ok: false, error: `transport: cannot start the receiver (${next.code})`, lines: collected };
      if (next.kind === 'timeout') return { ok: false, error: `transport: the receiver did not finish within ${timeoutMs} ms`, lines: collected };
      if (next.kind === 'overflow') return { ok: false, error: 'transport: a receiver line exceeds the size limit', lines: collected };
      if (next.kind === 'end') break;
      collected.push(next.line);
    }
    const code = await bounded(exited, EXIT_GRACE_MS);
    if (code === 'timeout') return { ok: false, error: 'transport: the receiver did not exit after stdin closed', lines: collected };
    return { ok: true, lines: collected, code };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await bounded(exited, EXIT_GRACE_MS);
    running.delete(child);
  }
}

/** One request → one reply line over a receiver spawned for this call alone. */
export async function exchangeOverStdio(receiverCommand: readonly string[], scope: string, request: JsonValue, timeoutMs = EVENT_TIMEOUT_MS): Promise<WireReply> {
  const session = await stdioSession([...receiverCommand, 'stdio', scope], [JSON.stringify(request)], timeoutMs);
  const [first, ...rest] = session.lines;
  let reply: JsonValue | undefined;
  if (first !== undefined) {
    try {
      reply = JSON.parse(first) as JsonValue;
    } catch {
      return { ok: false, error: 'transport: the receiver reply line is not JSON' };
    }
  }
  const withReply = reply === undefined ? {} : { reply };
  if (!session.ok) return { ok: false, error: session.error, ...withReply };
  if (reply === undefined) return { ok: false, error: 'transport: the receiver closed stdout without a reply' };
  if (rest.length > 0) return { ok: false, error: `transport: the receiver wrote ${rest.length} more line(s) after its reply`, reply };
  if (session.code !== 0) return { ok: false, error: `transport: the receiver exited with code ${session.code}`, reply };
  return { ok: true, reply };
}

function bounded<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)))]).finally(() => clearTimeout(timer));
}
