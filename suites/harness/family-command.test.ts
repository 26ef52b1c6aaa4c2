// The launcher code the elicitation and compaction families share: their adapter.json keys, the
// protocol's conventional locations when a key is absent, absolute argv, PYTHONPATH, the Go `go run`
// swap (a real Go program built once per run), the endpoint line a receiver prints, and plans fed
// through a child's stdin.

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, test } from 'vitest';

import { AdapterError, loadAdapter } from '../../harness/adapters/adapter-manifest.ts';
import { readEndpointLine } from '../../harness/adapters/endpoint-line.ts';
import { absoluteArgv, familyCommand, familyEnvironment, prepareFamilyCommand, type FamilyCommand } from '../../harness/adapters/family-command.ts';
import { launch } from '../../harness/adapters/launch.ts';
import type { LoadedAdapter } from '../../harness/adapters/types.ts';
import { runClientProcess } from '../../harness/runs/client-process.ts';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'ahp-family-command-test-'));
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

/** An SDK folder with an adapter.json and the given files (relative path → content). */
function sdk(name: string, manifest: Record<string, unknown>, files: Record<string, string> = {}): LoadedAdapter {
  const cwd = path.join(tmp, name);
  mkdirSync(path.join(cwd, 'interop'), { recursive: true });
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(cwd, file)), { recursive: true });
    writeFileSync(path.join(cwd, file), content);
  }
  const adapterFile = path.join(cwd, 'interop', 'adapter.json');
  writeFileSync(adapterFile, JSON.stringify({ server: ['srv'], client: ['cli'], ...manifest }));
  return loadAdapter({ name, cwd, adapterFile });
}

function found(adapter: LoadedAdapter, key: Parameters<typeof familyCommand>[1]): FamilyCommand {
  const lookup = familyCommand(adapter, key);
  if (!lookup.ok) throw new Error(`expected a command, got: ${lookup.reason}`);
  return lookup.command;
}

describe('adapter.json family keys', () => {
  test.each([['elicitation'], ['compactionWire'], ['compaction']])('a bad %s value names the file and the field', (key) => {
    expect(() => sdk('bad', { language: 'go', [key]: 'go run ./cmd/x' })).toThrow(AdapterError);
    expect(() => sdk('bad2', { language: 'go', [key]: ['go', ''] })).toThrow(new RegExp(`adapter.json: ${key}\\[1\\]: expected a non-empty string`));
  });

  test('a declared command wins over the convention; its relative paths become absolute, bare names stay PATH lookups', () => {
    const adapter = sdk(
      'ts',
      { language: 'typescript', elicitation: ['node', 'tools/eli.mjs', '--flag', 'word'] },
      { 'tools/eli.mjs': '', 'interop/elicitation.mjs': '' },
    );
    const command = found(adapter, 'elicitation');
    expect(command).toMatchObject({ origin: 'declared', notes: [], argv: ['node', path.join(adapter.cwd, 'tools/eli.mjs'), '--flag', 'word'] });
  });

  test('a relative program path is resolved against the SDK folder', () => {
    expect(absoluteArgv(['target/debug/x', 'missing-file'], '/sdk')).toEqual(['/sdk/target/debug/x', 'missing-file']);
  });
});

describe('conventional locations (rules §2) when the key is absent', () => {
  test('typescript, rust and go find their files and say so', () => {
    const ts = sdk('ts', { language: 'typescript' }, { 'interop/compaction-wire.mjs': '' });
    expect(found(ts, 'compactionWire')).toMatchObject({ origin: 'convention', argv: ['node', path.join(ts.cwd, 'interop/compaction-wire.mjs')] });
    expect(found(ts, 'compactionWire').notes[0]).toMatch(/declares no "compactionWire" command; using the protocol's conventional interop\/compaction-wire\.mjs for typescript/);

    const rust = sdk('rs', { language: 'rust' }, { 'target/debug/compaction_wire': '' });
    expect(found(rust, 'compactionWire').argv).toEqual([path.join(rust.cwd, 'target/debug/compaction_wire')]);

    const go = sdk('go', { language: 'Go' }, { 'cmd/elicitation/main.go': '' });
    expect(found(go, 'elicitation').argv).toEqual(['go', 'run', './cmd/elicitation']);
  });

  test('python prefers the SDK virtualenv and falls back on python3, noting it', () => {
    const venv = sdk('py', { language: 'python' }, { 'interop/elicitation.py': '', '.venv/bin/python': '' });
    expect(found(venv, 'elicitation').argv).toEqual([path.join(venv.cwd, '.venv/bin/python'), path.join(venv.cwd, 'interop/elicitation.py')]);
    const bare = sdk('py2', { language: 'python' }, { 'interop/compaction.py': '' });
    const command = found(bare, 'compaction');
    expect(command.argv).toEqual(['python3', path.join(bare.cwd, 'interop/compaction.py')]);
    expect(command.notes[1]).toMatch(/no \.venv\/bin\/python in its folder; running interop\/compaction\.py with python3 from PATH/);
  });

  test('no key and no conventional file: unsupported, with the file it looked for', () => {
    const ts = sdk('ts', { language: 'typescript' });
    const lookup = familyCommand(ts, 'elicitation');
    expect(lookup.ok).toBe(false);
    if (!lookup.ok) expect(lookup.reason).toMatch(/declares no "elicitation" command in .*adapter\.json, and its folder has no interop\/elicitation\.mjs/);
    const kotlin = familyCommand(sdk('kt', { language: 'kotlin' }), 'compaction');
    expect(kotlin.ok).toBe(false);
    if (!kotlin.ok) expect(kotlin.reason).toMatch(/no conventional location for language "kotlin"/);
  });

  test('PYTHONPATH names every python SDK of the pair, before an inherited one', () => {
    const py = sdk('py', { language: 'python' });
    const ts = sdk('ts', { language: 'typescript' });
    const saved = process.env.PYTHONPATH;
    process.env.PYTHONPATH = '/inherited';
    try {
      expect(familyEnvironment([ts, py, py])).toEqual({ PYTHONPATH: `${path.join(py.cwd, 'src')}${path.delimiter}/inherited` });
      expect(familyEnvironment([ts])).toEqual({});
    } finally {
      if (saved === undefined) delete process.env.PYTHONPATH;
      else process.env.PYTHONPATH = saved;
    }
  });
});

const hasGo = spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;

describe.skipIf(!hasGo)('the Go `go run` swap (needs the Go toolchain)', () => {
  function goSdk(source: string): LoadedAdapter {
    return sdk('go', { language: 'go', elicitation: ['go', 'run', './cmd/hello'] }, {
      'go.mod': 'module example.com/hello\n\ngo 1.21\n',
      'cmd/hello/main.go': source,
    });
  }
  // os and strconv only: a small compile on a cold Go build cache.
  const HELLO = 'package main\n\nimport (\n\t"os"\n\t"strconv"\n)\n\nfunc main() { os.Stdout.WriteString("hello " + strconv.Itoa(len(os.Args)) + "\\n") }\n';

  test('builds the binary once per run, reuses it, and the binary is what runs', async () => {
    const adapter = goSdk(HELLO);
    const buildDir = path.join(tmp, 'run');
    const first = await prepareFamilyCommand(found(adapter, 'elicitation'), { buildDir });
    if (!first.ok) throw new Error(first.reason);
    const [binary] = first.command.argv;
    expect(first.command.argv).toHaveLength(1);
    expect(binary!.startsWith(buildDir)).toBe(true);
    expect(first.command.notes.join('\n')).toMatch(/go run \.\/cmd\/hello swapped for a binary built once for this run/);
    expect(spawnSync(binary!, ['a'], { encoding: 'utf8' }).stdout).toBe('hello 2\n');
    const builtAt = statSync(binary!).mtimeMs;
    const again = await prepareFamilyCommand(found(adapter, 'elicitation'), { buildDir });
    expect(again.ok && again.command.argv).toEqual([binary]);
    expect(statSync(binary!).mtimeMs).toBe(builtAt);
  }, 120_000);

  test('a failed build names the command and its output, and is not cached', async () => {
    const adapter = goSdk('package main\n\nfunc main() { undefinedCall() }\n');
    const buildDir = path.join(tmp, 'run');
    const failed = await prepareFamilyCommand(found(adapter, 'elicitation'), { buildDir });
    expect(failed.ok).toBe(false);
    if (!failed.ok) expect(failed.reason).toMatch(/"elicitation": go build \.\/cmd\/hello in .* failed \(exit 1\); its output ends: .*undefined: undefinedCall/s);
    writeFileSync(path.join(adapter.cwd, 'cmd/hello/main.go'), HELLO);
    const fixed = await prepareFamilyCommand(found(adapter, 'elicitation'), { buildDir });
    expect(fixed.ok).toBe(true);
  }, 120_000);

  test('AHP_GO_ADAPTER_DIR: the prebuilt binary, never a build', async () => {
    const adapter = goSdk(HELLO);
    const prebuilt = path.join(tmp, 'prebuilt');
    mkdirSync(prebuilt);
    process.env.AHP_GO_ADAPTER_DIR = prebuilt;
    try {
      const missing = await prepareFamilyCommand(found(adapter, 'elicitation'), { buildDir: path.join(tmp, 'run') });
      expect(missing.ok).toBe(false);
      if (!missing.ok) expect(missing.reason).toMatch(/AHP_GO_ADAPTER_DIR is set, so \.\/cmd\/hello is never built: expected the prebuilt binary .*prebuilt\/hello/);
      writeFileSync(path.join(prebuilt, 'hello'), '#!/bin/sh\n');
      chmodSync(path.join(prebuilt, 'hello'), 0o755);
      const used = await prepareFamilyCommand(found(adapter, 'elicitation'), { buildDir: path.join(tmp, 'run') });
      expect(used.ok && used.command.argv).toEqual([path.join(prebuilt, 'hello')]);
    } finally {
      delete process.env.AHP_GO_ADAPTER_DIR;
    }
  });

  test('a build that overruns its bound is reported, not waited for', async () => {
    const adapter = goSdk(HELLO);
    const slow = await prepareFamilyCommand(found(adapter, 'elicitation'), { buildDir: path.join(tmp, 'slow'), timeoutMs: 1 });
    expect(slow.ok).toBe(false);
    if (!slow.ok) expect(slow.reason).toMatch(/did not finish within 1 ms/);
  });

  test('any other Go declaration is used as written', async () => {
    const adapter = sdk('go2', { language: 'go', elicitation: ['go', 'run', './cmd/hello', 'extra'] });
    const prepared = await prepareFamilyCommand(found(adapter, 'elicitation'), { buildDir: tmp });
    expect(prepared.ok && prepared.command.argv).toEqual(['go', 'run', './cmd/hello', 'extra']);
  });
});

describe('a receiver endpoint line', () => {
  async function receiver(script: string, timeoutMs = 30_000) {
    const stderrFile = path.join(tmp, 'stderr.log');
    const child = await launch({ command: [process.execPath, '-e', script], cwd: tmp, passStdout: true, stderrFile });
    try {
      return await readEndpointLine(child.stdout!, { timeoutMs, stderrFile });
    } finally {
      await child.stop(500);
    }
  }

  test('the first line gives the endpoint; what follows is drained, not read', async () => {
    const result = await receiver(
      'process.stdout.write(JSON.stringify({endpoint:"http://127.0.0.1:4321"})+"\\nnoise\\n".repeat(10000)); setInterval(()=>{},1000)',
    );
    expect(result).toMatchObject({ ok: true, endpoint: 'http://127.0.0.1:4321' });
  });

  test('a receiver that exits first: eof with the tail of its stderr', async () => {
    const result = await receiver('process.stderr.write("x".repeat(100000)+"TAIL"); process.exit(3)');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.kind).toBe('eof');
      expect(result.detail).toHaveLength(1500);
      expect(result.detail.endsWith('TAIL')).toBe(true);
    }
  });

  test('silence: timeout; a line that is no endpoint: invalid', async () => {
    expect(await receiver('setInterval(()=>{},1000)', 300)).toMatchObject({ ok: false, kind: 'timeout' });
    expect(await receiver('console.log(JSON.stringify({port:1})); setInterval(()=>{},1000)')).toMatchObject({ ok: false, kind: 'invalid' });
  });
});

test('a plan reaches the child through its stdin file; its stdout and stderr stay apart', async () => {
  const stdinFile = path.join(tmp, 'plan.json');
  writeFileSync(stdinFile, JSON.stringify({ steps: [1, 2, 3] }), { mode: 0o600 });
  const stdoutFile = path.join(tmp, 'out.json');
  const logFile = path.join(tmp, 'log.txt');
  const run = await runClientProcess({
    command: [
      process.execPath,
      '-e',
      'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{console.error("diag");console.log(JSON.stringify([JSON.parse(s).steps.length]))})',
    ],
    cwd: tmp,
    stdinFile,
    stdoutFile,
    logFile,
    runMs: 30_000,
    graceMs: 500,
  });
  expect(run.started && run.exit.code).toBe(0);
  expect(readFileSync(stdoutFile, 'utf8')).toBe('[3]\n');
  expect(readFileSync(logFile, 'utf8')).toBe('diag\n');
});
