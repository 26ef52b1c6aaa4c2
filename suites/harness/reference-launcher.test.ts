// The reference adapter's bundle launcher (adapters/reference/launch.mjs), on a copy of its setup in
// a temp directory: a tiny entry with one imported module, the project's tsconfig.json and esbuild's
// package.json (a private copy, so it can be edited), with the cache pointed at a temp directory by
// AHP_REFERENCE_BUNDLE_CACHE. Proves that editing any recorded input rebuilds, that a damaged cache
// file is rebuilt and never run, that concurrent cold starts leave one whole file, and that two
// checkouts sharing a cache never run each other's bundle.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { execa } from 'execa';
import { afterAll, describe, expect, test } from 'vitest';

import { PROJECT_ROOT } from '../../harness/protocol/load-validators.ts';

const REAL_ESBUILD = path.dirname(createRequire(path.join(PROJECT_ROOT, 'package.json')).resolve('esbuild/package.json'));
const FORMAT = 'reference-bundle/2';
/** Generous: a cold start runs esbuild, and the machine is shared. */
const START_MS = 30_000;

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

interface Setup {
  root: string;
  here: string;
  launcher: string;
  entry: string;
  dep: string;
  tsconfig: string;
  esbuildManifest: string;
}

let clock = 0;
/** A distinct modification time well in the past, so a build never mistakes the edit for one made while it ran. */
function settle(file: string): void {
  const past = new Date(Date.now() - 10 * 60_000 + ++clock * 1000);
  fs.utimesSync(file, past, past);
}

function dependency(value: string): string {
  return `export const VALUE: string = ${JSON.stringify(value)};\n`;
}

/** A project laid out like ours: adapters/reference/launch.mjs, tsconfig.json and node_modules/esbuild. */
function makeSetup(value = 'one'): Setup {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ahp-launcher-')));
  roots.push(root);
  const here = path.join(root, 'adapters', 'reference');
  fs.mkdirSync(here, { recursive: true });
  const setup: Setup = {
    root,
    here,
    launcher: path.join(here, 'launch.mjs'),
    entry: path.join(here, 'entry.ts'),
    dep: path.join(here, 'dep.ts'),
    tsconfig: path.join(root, 'tsconfig.json'),
    esbuildManifest: path.join(root, 'node_modules', 'esbuild', 'package.json'),
  };
  fs.copyFileSync(path.join(PROJECT_ROOT, 'adapters', 'reference', 'launch.mjs'), setup.launcher);
  fs.copyFileSync(path.join(PROJECT_ROOT, 'tsconfig.json'), setup.tsconfig);
  fs.writeFileSync(
    setup.entry,
    "import { VALUE } from './dep.ts';\n" +
      'process.stdout.write(JSON.stringify({ value: VALUE, args: process.argv.slice(2), url: import.meta.url }));\n',
  );
  fs.writeFileSync(setup.dep, dependency(value));
  // esbuild's code and binary are the project's; only its package.json is a private, editable copy.
  fs.mkdirSync(path.dirname(setup.esbuildManifest), { recursive: true });
  fs.copyFileSync(path.join(REAL_ESBUILD, 'package.json'), setup.esbuildManifest);
  for (const part of ['lib', 'bin']) fs.symlinkSync(path.join(REAL_ESBUILD, part), path.join(root, 'node_modules', 'esbuild', part));
  fs.symlinkSync(path.join(path.dirname(REAL_ESBUILD), '@esbuild'), path.join(root, 'node_modules', '@esbuild'));
  for (const file of [setup.launcher, setup.tsconfig, setup.entry, setup.dep, setup.esbuildManifest]) settle(file);
  return setup;
}

interface Started {
  exitCode: number | undefined;
  output: unknown;
  stderr: string;
}

async function start(setup: Setup, cacheDir: string): Promise<Started> {
  const result = await execa('node', [setup.launcher, 'entry.ts', '--config', 'x.json'], {
    cwd: setup.here,
    env: { AHP_REFERENCE_BUNDLE_CACHE: cacheDir },
    reject: false,
    stdin: 'ignore',
    timeout: START_MS,
    forceKillAfterDelay: 1_000,
  });
  let output: unknown = null;
  try {
    output = JSON.parse(result.stdout);
  } catch {
    // left null: the assertion on `output` shows what was printed via stderr
  }
  return { exitCode: result.exitCode, output, stderr: result.stderr };
}

function expected(setup: Setup, value: string): Started {
  return { exitCode: 0, output: { value, args: ['--config', 'x.json'], url: pathToFileURL(setup.entry).href }, stderr: '' };
}

/** The one cache file (there must be exactly one, and no temp file left behind). */
function cacheFile(cacheDir: string): string {
  const names = fs.readdirSync(cacheDir);
  expect(names).toHaveLength(1);
  expect(names[0]).toMatch(/^entry\.[0-9a-f]{12}\.mjs$/);
  return path.join(cacheDir, names[0]!);
}

interface Stamps {
  entry: string;
  sha256: string;
  settled: boolean;
  inputs: Record<string, [number, number]>;
}

function stampsOf(file: string): Stamps {
  const firstLine = fs.readFileSync(file, 'utf8').split('\n', 1)[0]!;
  const prefix = `// ${FORMAT} `;
  expect(firstLine.startsWith(prefix)).toBe(true);
  return JSON.parse(firstLine.slice(prefix.length)) as Stamps;
}

/** A rebuild replaces the file by a rename, so its inode changes; a reuse leaves it alone. */
function inode(file: string): number {
  return fs.statSync(file).ino;
}

describe('rebuilding on changed inputs', () => {
  const setup = makeSetup();
  const cacheDir = path.join(setup.root, 'cache');

  test('a cold start builds one cache file whose first line stamps every input', { timeout: 2 * START_MS }, async () => {
    expect(await start(setup, cacheDir)).toEqual(expected(setup, 'one'));
    const stamps = stampsOf(cacheFile(cacheDir));
    expect(stamps.entry).toBe(setup.entry);
    expect(stamps.settled).toBe(true);
    expect(Object.keys(stamps.inputs).sort()).toEqual([setup.dep, setup.entry, setup.launcher, setup.tsconfig, setup.esbuildManifest].sort());
    expect(stamps.inputs[setup.dep]).toEqual([fs.statSync(setup.dep).mtimeMs, fs.statSync(setup.dep).size]);
  });

  test('a warm start runs the cached file as it is', { timeout: 2 * START_MS }, async () => {
    const before = inode(cacheFile(cacheDir));
    expect(await start(setup, cacheDir)).toEqual(expected(setup, 'one'));
    expect(inode(cacheFile(cacheDir))).toBe(before);
  });

  const edits: Array<[string, (s: Setup) => string, string]> = [
    ['an imported module (same size, new text)', (s) => (fs.writeFileSync(s.dep, dependency('two')), s.dep), 'two'],
    ['the launcher itself', (s) => (fs.appendFileSync(s.launcher, '// edited\n'), s.launcher), 'two'],
    ["the project's tsconfig.json", (s) => (fs.appendFileSync(s.tsconfig, '\n'), s.tsconfig), 'two'],
    ["esbuild's package.json", (s) => (fs.appendFileSync(s.esbuildManifest, '\n'), s.esbuildManifest), 'two'],
  ];
  test.each(edits)('editing %s rebuilds once, then the new file is reused', { timeout: 3 * START_MS }, async (_what, edit, value) => {
    const before = inode(cacheFile(cacheDir));
    settle(edit(setup));
    expect(await start(setup, cacheDir)).toEqual(expected(setup, value));
    const rebuilt = inode(cacheFile(cacheDir));
    expect(rebuilt).not.toBe(before);
    expect(stampsOf(cacheFile(cacheDir)).settled).toBe(true);
    expect(await start(setup, cacheDir)).toEqual(expected(setup, value));
    expect(inode(cacheFile(cacheDir))).toBe(rebuilt);
  });

  test('an input modified just before the build is not trusted: the next start builds again', { timeout: 4 * START_MS }, async () => {
    fs.writeFileSync(setup.dep, dependency('six'));
    // Stamp it a little ahead, so it still counts as just modified however long a loaded machine takes
    // to reach the build (a plain write raced the launcher's one-second window under load).
    const ahead = new Date(Date.now() + 30_000);
    fs.utimesSync(setup.dep, ahead, ahead);
    expect(await start(setup, cacheDir)).toEqual(expected(setup, 'six'));
    expect(stampsOf(cacheFile(cacheDir)).settled).toBe(false);
    const unsettled = inode(cacheFile(cacheDir));
    settle(setup.dep);
    expect(await start(setup, cacheDir)).toEqual(expected(setup, 'six'));
    expect(inode(cacheFile(cacheDir))).not.toBe(unsettled);
    expect(stampsOf(cacheFile(cacheDir)).settled).toBe(true);
  });
});

describe('damaged cache files are rebuilt, never run', () => {
  const setup = makeSetup('intact');
  const cacheDir = path.join(setup.root, 'cache');
  let original = '';

  const damages: Array<[string, (text: string) => string]> = [
    ['a truncated bundle', (text) => text.slice(0, text.indexOf('\n') + Math.floor((text.length - text.indexOf('\n')) / 2))],
    ['a bundle cut after its stamps line', (text) => text.slice(0, text.indexOf('\n') + 1)],
    ['a garbled stamps line', (text) => `// ${FORMAT} {"entry": oops${text.slice(text.indexOf('\n'))}`],
    ['code appended after the stamps were written', (text) => `${text}process.exit(7);\n`],
    ['stamps of another entry', (text) => text.replace(JSON.stringify(setup.entry), JSON.stringify(path.join(setup.here, 'other.ts')))],
    ['a file of the previous format', (text) => text.replace(`// ${FORMAT} `, '// reference-bundle/1 ')],
    ['an empty file', () => ''],
  ];
  test.each(damages)('%s', { timeout: 2 * START_MS }, async (_what, damage) => {
    if (original === '') {
      expect(await start(setup, cacheDir)).toEqual(expected(setup, 'intact'));
      original = fs.readFileSync(cacheFile(cacheDir), 'utf8');
    }
    const file = cacheFile(cacheDir);
    fs.writeFileSync(file, damage(original));
    expect(await start(setup, cacheDir)).toEqual(expected(setup, 'intact'));
    // Rebuilt from the same inputs: the very same file as before the damage.
    expect(fs.readFileSync(cacheFile(cacheDir), 'utf8')).toBe(original);
  });
});

describe('sharing', () => {
  test('concurrent cold starts all run, and leave one whole cache file', { timeout: 2 * START_MS }, async () => {
    const setup = makeSetup('together');
    const cacheDir = path.join(setup.root, 'cache');
    const results = await Promise.all([1, 2, 3, 4].map(() => start(setup, cacheDir)));
    for (const result of results) expect(result).toEqual(expected(setup, 'together'));
    const file = cacheFile(cacheDir);
    expect(stampsOf(file).settled).toBe(true);
    const written = inode(file);
    expect(await start(setup, cacheDir)).toEqual(expected(setup, 'together'));
    expect(inode(file)).toBe(written);
  });

  test('two checkouts sharing one cache directory (worktrees sharing node_modules) each run their own code', { timeout: 4 * START_MS }, async () => {
    const first = makeSetup('first checkout');
    const second = makeSetup('second checkout');
    const cacheDir = path.join(first.root, 'shared-cache');
    expect(await start(first, cacheDir)).toEqual(expected(first, 'first checkout'));
    expect(await start(second, cacheDir)).toEqual(expected(second, 'second checkout'));
    expect(await start(first, cacheDir)).toEqual(expected(first, 'first checkout'));
    expect(fs.readdirSync(cacheDir)).toHaveLength(2);
  });
});
