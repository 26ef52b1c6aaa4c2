// The package self-test's installation, done the way a user's machine would, but offline and inside
// one temporary folder: the package files are staged into the folder (so the build writes only
// there; node_modules is linked, read-only, for tsc), `npm pack` runs its prepack build and packs the
// tarball, and `npm ci --offline` installs it from the npm cache that this checkout's own `npm ci`
// filled. npm needs a lockfile to install offline (the cache keeps tarballs, not registry metadata),
// so the install folder gets one listing exactly our runtime dependencies as our lockfile resolves
// them — what a user's lockfile would hold once they had installed the package online.

import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { execa } from 'execa';

import { PROJECT_ROOT } from './child-vitest-run.ts';

/** What `files` in package.json ships, plus what the prepack build reads. */
const STAGED = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'README.md',
  'docs',
  'action.yml',
  'bin',
  'scripts',
  'harness',
  'adapters',
  'schemas',
  'fixtures',
  'suites/core',
  'suites/lifecycle',
  'suites/catalogue',
  'suites/isolation',
  'suites/auth',
];

const STEP_TIMEOUT_MS = 300_000;

interface PackageJson {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  bin: Record<string, string>;
  engines: Record<string, string>;
  license: string;
}

interface LockEntry {
  dev?: boolean;
  [key: string]: unknown;
}

/**
 * Environment for every child (pass with `extendEnv: false`): its temp files inside `root`, npm never
 * asking the registry, and none of our own run's AHP_* or VITEST_* variables (the child is a user's
 * fresh run, not a worker of ours).
 */
export function sandboxEnv(root: string): Record<string, string> {
  const tmp = path.join(root, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== 'VITEST' && !key.startsWith('VITEST_') && !key.startsWith('AHP_') && key !== 'NODE_ENV') env[key] = value;
  }
  return { ...env, TMPDIR: tmp, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
}

/** Stages the package in `<root>/package` and packs it; returns the tarball's path. */
export async function packInto(root: string): Promise<string> {
  const stage = path.join(root, 'package');
  for (const entry of STAGED) {
    const from = path.join(PROJECT_ROOT, entry);
    try {
      cpSync(from, path.join(stage, entry), { recursive: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || entry !== 'action.yml') throw error;
    }
  }
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(stage, 'node_modules'), 'dir');
  const packed = await execa('npm', ['pack', '--json', '--pack-destination', root], { cwd: stage, env: sandboxEnv(root), extendEnv: false, timeout: STEP_TIMEOUT_MS, cleanup: true });
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{ filename: string }>;
  return path.join(root, info!.filename);
}

/** Installs the tarball into `dir` (created) offline, as its one dependency, and returns the folder. */
export async function installOffline(root: string, dir: string, tarball: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const own = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as PackageJson;
  const lock = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const spec = `file:${path.relative(dir, tarball)}`;
  const name = path.basename(dir);
  const packages: Record<string, unknown> = {
    '': { name, dependencies: { [own.name]: spec } },
    [`node_modules/${own.name}`]: { version: own.version, resolved: spec, license: own.license, dependencies: own.dependencies, bin: own.bin, engines: own.engines },
  };
  for (const [key, entry] of Object.entries(lock.packages)) if (key !== '' && entry.dev !== true) packages[key] = entry;
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name, private: true, type: 'module', dependencies: { [own.name]: spec } }, null, 2)}\n`);
  writeFileSync(path.join(dir, 'package-lock.json'), `${JSON.stringify({ name, lockfileVersion: 3, requires: true, packages }, null, 2)}\n`);
  await execa('npm', ['ci', '--offline', '--ignore-scripts'], { cwd: dir, env: sandboxEnv(root), extendEnv: false, timeout: STEP_TIMEOUT_MS, cleanup: true });
  return dir;
}
