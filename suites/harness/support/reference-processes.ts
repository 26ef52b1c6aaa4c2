// The reference adapter's lifecycle-family executables as the dev tests start them: the argv of
// `interop/adapter.json` run in the adapter's folder with `--config FILE`, a clean environment unless
// one is given, every process tracked so that each test file's afterAll can kill what is left; the
// readiness file waited for under a bound; control calls as plain fetches; and the group layout both
// suites' end-to-end tests share (one run per HTTP auth mode plus one over stdio, each checked alike).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe } from 'vitest';

import { createRunTrust, type RunTrust } from '../../../harness/auth/run-trust.ts';
import type { AuthMode, Transport } from '../../../harness/config/define-config.ts';

export const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const REFERENCE_DIR = path.join(PROJECT_ROOT, 'adapters', 'reference');
export const REFERENCE_ADAPTER = JSON.parse(readFileSync(path.join(REFERENCE_DIR, 'interop', 'adapter.json'), 'utf8')) as {
  lifecycleServer: string[];
  lifecycleClient: string[];
};
export const STARTUP_MS = 20_000;

const processes = new Set<ResultPromise>();

/** Runs `argv --config configFile` in the adapter's folder; `timeoutMs: 0` for servers stopped by the test. */
export function launchReference(argv: readonly string[], configFile: string, options: { timeoutMs: number; env?: Record<string, string> }) {
  const [command, ...args] = argv;
  const subprocess = execa(command!, [...args, '--config', configFile], {
    cwd: REFERENCE_DIR,
    env: options.env ?? {},
    reject: false,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    timeout: options.timeoutMs,
    forceKillAfterDelay: 1_000,
  });
  processes.add(subprocess);
  void subprocess.finally(() => processes.delete(subprocess)).catch(() => undefined);
  return subprocess;
}

/** SIGKILLs every process this file launched that is still running, and waits for them. */
export async function killLaunched(): Promise<void> {
  const running = [...processes];
  for (const subprocess of running) subprocess.kill('SIGKILL');
  await Promise.allSettled(running);
}

export interface Readiness {
  endpoint: string | null;
  controlEndpoint: string;
  uploadEndpoint: string;
  pid: number;
}

/** The server's readiness object once its file parses; a clear error with its stderr when it exits or times out. */
export async function waitReadiness(file: string, subprocess: ResultPromise): Promise<Readiness> {
  let exited = false;
  void subprocess.finally(() => (exited = true)).catch(() => undefined);
  const deadline = Date.now() + STARTUP_MS;
  while (Date.now() < deadline && !exited) {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as Readiness;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  const result = await Promise.race([subprocess, Promise.resolve(undefined)]);
  throw new Error(`lifecycle server not ready within ${STARTUP_MS} ms; exit ${result?.exitCode}; stderr:\n${result?.stderr ?? ''}`);
}

/** GET `route` (no body) or POST `body` as JSON to the control endpoint. */
export async function controlCall(endpoint: string, route: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${endpoint}/${route}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return { status: response.status, body: await response.json() };
}

export interface TransportGroups<R> {
  /** Prefix of the temporary folder the groups write their files into. */
  tmpPrefix: string;
  /** Called with that folder before any run (and for each describe that uses these groups). */
  useWorkDir: (dir: string) => void;
  modes: readonly AuthMode[];
  runHttp: (trust: RunTrust, mode: AuthMode) => Promise<R>;
  runStdio: () => Promise<R>;
  /** Declares the tests of one group; `run` returns the group's finished run. */
  check: (run: () => R, transport: Transport) => void;
  /** Bound on one group's run. */
  runMs: number;
}

/** One describe per HTTP mode (`http/<mode>`) and one `stdio/none`, each running once in beforeAll. */
export function describeTransportGroups<R>(groups: TransportGroups<R>): void {
  let trust: RunTrust | undefined;
  let dir = '';
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), groups.tmpPrefix));
    groups.useWorkDir(dir);
    trust = await createRunTrust(groups.modes, dir);
  });
  afterAll(async () => {
    await killLaunched();
    await trust?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe.each(groups.modes)('http/%s', (mode) => {
    let result: R | undefined;
    beforeAll(async () => {
      result = await groups.runHttp(trust!, mode);
    }, groups.runMs + STARTUP_MS);
    groups.check(() => result!, 'http');
  });

  describe('stdio/none', () => {
    let result: R | undefined;
    beforeAll(async () => {
      result = await groups.runStdio();
    }, groups.runMs + STARTUP_MS);
    groups.check(() => result!, 'stdio');
  });
}
