// The Go launcher swap of the protocol's runners (`adapter_builds.py`): an adapter declared exactly as
// `["go","run","./cmd/<name>"]` is run from a binary built once per run instead. `go run` starts the
// program as its own child, so killing the launcher leaves an executable descendant that can keep the
// receiver's sockets open; a binary we built is the process we supervise.
//
// Built once per run and per (SDK folder, name), across the run's processes too: the binary lands in
// the run's temp dir under a name derived from both, by one atomic rename, so whoever finds it there
// finds it complete. A failed build is not cached (the next pair tries again). With
// AHP_GO_ADAPTER_DIR set, `<dir>/<name>` is used and nothing is built (as upstream: no fallback).

import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';

import { launch, SpawnError } from './launch.ts';

const GO_RUN_TARGET = /^\.\/cmd\/([A-Za-z0-9_.-]+)$/;
const DEFAULT_BUILD_TIMEOUT_MS = 120_000;
const LOG_TAIL_CHARS = 1500;

/** The `<name>` of an exact `["go","run","./cmd/<name>"]` launcher; undefined for any other argv. */
export function goRunTarget(argv: readonly string[]): string | undefined {
  if (argv.length !== 3 || argv[0] !== 'go' || argv[1] !== 'run') return undefined;
  return GO_RUN_TARGET.exec(argv[2] ?? '')?.[1];
}

export type GoBinary = { ok: true; binary: string; note: string } | { ok: false; reason: string };

const builds = new Map<string, Promise<GoBinary>>();

/** The binary for `./cmd/<name>` of the Go SDK in `cwd`: prebuilt, built earlier in this run, or built now. */
export function goBinary(cwd: string, name: string, options: { buildDir: string; timeoutMs?: number }): Promise<GoBinary> {
  const prebuiltDir = process.env.AHP_GO_ADAPTER_DIR;
  if (prebuiltDir !== undefined && prebuiltDir !== '') {
    const binary = path.resolve(prebuiltDir, name);
    if (!existsSync(binary)) {
      return Promise.resolve({
        ok: false,
        reason: `AHP_GO_ADAPTER_DIR is set, so ./cmd/${name} is never built: expected the prebuilt binary ${binary}, which does not exist`,
      });
    }
    return Promise.resolve({ ok: true, binary, note: `go run ./cmd/${name} swapped for the prebuilt ${binary} (AHP_GO_ADAPTER_DIR)` });
  }

  const key = createHash('sha256').update(`${path.resolve(cwd)}\0${name}`).digest('hex').slice(0, 12);
  const binary = path.join(options.buildDir, 'go-builds', key, name);
  const note = `go run ./cmd/${name} swapped for a binary built once for this run (go run leaves a child that outlives a kill)`;
  if (existsSync(binary)) return Promise.resolve({ ok: true, binary, note });
  let build = builds.get(binary);
  if (build === undefined) {
    build = buildOnce(cwd, name, binary, options.timeoutMs ?? DEFAULT_BUILD_TIMEOUT_MS).then((result) => {
      if (!result.ok) builds.delete(binary);
      return result.ok ? { ...result, note } : result;
    });
    builds.set(binary, build);
  }
  return build;
}

async function buildOnce(cwd: string, name: string, binary: string, timeoutMs: number): Promise<GoBinary> {
  mkdirSync(path.dirname(binary), { recursive: true, mode: 0o700 });
  const unique = `${process.pid}.${randomBytes(4).toString('hex')}`;
  const partial = `${binary}.${unique}.partial`;
  const log = `${binary}.${unique}.log`;
  const what = `go build ./cmd/${name} in ${cwd}`;
  try {
    let build;
    try {
      build = await launch({ command: ['go', '-C', cwd, 'build', '-o', partial, `./cmd/${name}`], cwd, stdoutFile: log, stderrFile: log });
    } catch (error) {
      if (error instanceof SpawnError) return { ok: false, reason: `${what}: cannot start go (${error.code}): is the Go toolchain on PATH?` };
      throw error;
    }
    let watchdog: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      build.exited,
      new Promise<'timeout'>((resolve) => {
        watchdog = setTimeout(() => resolve('timeout'), timeoutMs);
      }),
    ]);
    clearTimeout(watchdog);
    await build.stop();
    if (outcome === 'timeout') return { ok: false, reason: `${what} did not finish within ${timeoutMs} ms; ${tail(log)}` };
    if (outcome.code !== 0 || !existsSync(partial)) {
      const status = outcome.code === null ? `signal ${outcome.signal}` : `exit ${outcome.code}`;
      return { ok: false, reason: `${what} failed (${status}); ${tail(log)}` };
    }
    renameSync(partial, binary);
    return { ok: true, binary, note: '' };
  } finally {
    rmSync(partial, { force: true });
    rmSync(log, { force: true });
  }
}

function tail(log: string): string {
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return 'no build output';
  }
  const trimmed = text.trim();
  if (trimmed === '') return 'no build output';
  return `its output ends: ${trimmed.length > LOG_TAIL_CHARS ? `…${trimmed.slice(-LOG_TAIL_CHARS)}` : trimmed}`;
}
