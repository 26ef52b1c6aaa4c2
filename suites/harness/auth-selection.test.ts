// The auth project starts only what its selection needs (issue: start only what a selection needs):
// the REAL `auth` project runs as a child vitest with all five modes configured and `-t` selecting
// one bearer probe family, against the observed reference adapter (fixtures/weak-observed-reference,
// which records every server it starts by role). Exactly one server — bearer's — may start, and the
// run's trust may hold no PKI or issuer material (the secrets file the trust writes at teardown).

import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { SECRETS_FILE_ENV } from '../../harness/auth/run-trust.ts';
import { AUTH_MODES } from '../../harness/config/define-config.ts';
import { fixtureAdapter, prepareChildRun, removeChildRun, runVitestChild, type ChildRun, type ChildRunDirs } from './support/child-vitest-run.ts';

describe('a -t selection of one bearer probe family in the auth project', () => {
  let dirs: ChildRunDirs;
  let run: ChildRun;
  let observeDir = '';
  let secretsFile = '';

  beforeAll(async () => {
    dirs = prepareChildRun('auth-selection', {
      adapters: [fixtureAdapter('weak-observed-reference', 'reference')],
      transports: ['http'],
      auth: [...AUTH_MODES],
      watchdogs: { startupMs: 20_000, runMs: 20_000 },
    });
    observeDir = path.join(dirs.dir, 'observed');
    mkdirSync(observeDir);
    secretsFile = path.join(dirs.dir, 'secrets.json');
    run = await runVitestChild(dirs, 'auth', 90_000, {
      env: { [SECRETS_FILE_ENV]: secretsFile, AHP_HYGIENE_OBSERVE_DIR: observeDir },
      args: ['-t', 'reference bearer/missing-credential'],
    });
  }, 120_000);
  afterAll(() => {
    if (dirs) removeChildRun(dirs);
    if (observeDir) rmSync(observeDir, { recursive: true, force: true });
  });

  test('its probes run and pass', () => {
    const ran = run.rows.filter((row) => row.status !== 'skipped');
    expect(ran.map((row) => row.status), run.output.slice(-3000)).toEqual(['passed', 'passed']);
    expect(run.exitCode).toBe(0);
  });

  test('only the bearer server started', () => {
    const roles = readdirSync(observeDir)
      .filter((entry) => entry.endsWith('.json'))
      .map((entry) => (JSON.parse(readFileSync(path.join(observeDir, entry), 'utf8')) as { role: string }).role);
    expect(roles).toEqual(['server-http-bearer']);
  });

  test('no PKI and no OAuth issuer were built for it', () => {
    const secrets = JSON.parse(readFileSync(secretsFile, 'utf8')) as string[];
    expect(secrets.length).toBeGreaterThan(0);
    expect(secrets.filter((secret) => secret.includes('PRIVATE KEY'))).toEqual([]);
    expect(secrets.filter((secret) => /^eyJ/.test(secret))).toEqual([]);
  });
});
