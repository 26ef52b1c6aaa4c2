// Credential hygiene, proven: the whole auth matrix runs as child vitest processes — `core` over http ×
// {none, bearer, oauth, mtls, workload} and stdio × none, and the `auth` probes (the server probes, and
// the client probes with their hostile endpoints, issuers and second origins) — against the reference
// adapter under observation (fixtures/weak-observed-reference: complete adapter logs captured, config
// file modes recorded during the run) plus a deliberately failing client (fixtures/weak-client-wrong-
// bearer: refused credentials, so rows fail with failure messages and kept logs). Each child has a
// private TMPDIR and AHP_HYGIENE_SECRETS_FILE, where the run trust writes the run's secrets at teardown.
//
// Then every artifact the run produced — vitest JSON output, the children's terminal output, our
// reports dir (core.json, the matrix summary, kept logs), the captured adapter logs and whatever is
// left in the children's TMPDIRs — is scanned for every secret (run secrets ∪ STATIC_SECRETS); a hit
// names the file and the kind of secret, never the secret. Config files holding credentials must have
// been 0600 while the run used them and be gone afterwards.

import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { writePrivateJson } from '../../harness/adapters/private-json.ts';
import { CLIENT_PROBE_TEST, clientProbeCases } from '../../harness/families/auth/client-probe-cases.ts';
import { STATIC_SECRETS } from '../../harness/auth/constants.ts';
import { describeHits, scanFiles, scanText, secretKind } from '../../harness/families/auth/probes-secret-scan.ts';
import { SECRETS_FILE_ENV } from '../../harness/auth/run-trust.ts';
import { AUTH_MODES } from '../../harness/config/define-config.ts';
import { fixtureAdapter, prepareChildRun, removeChildRun, runVitestChild, type ChildRun, type ChildRunDirs, HONEST_WATCHDOGS } from './support/child-vitest-run.ts';

const CHILD_TIMEOUT_MS = 180_000;
const MATRIX_REPORTER = './harness/reporters/matrix-reporter.ts';
/** Our temp dirs (run dirs, PKI, server and client work dirs) all start with this. */
const OUR_TEMP_PREFIX = /^(ahp-|server-|client-)/;
/** Third-party caches a child may leave in its TMPDIR (compiled sources, no run data). */
const THIRD_PARTY_CACHE = /^(tsx-\d+|vite|node-compile-cache)/;

let dirs: ChildRunDirs;
let observeDir: string;
let core: ChildRun;
let auth: ChildRun;
const secretsFiles = { core: '', auth: '' };

function childOutput(run: ChildRun): string {
  return `the child's output:\n${run.output.slice(-4000)}`;
}

function readSecrets(file: string): string[] {
  const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string')) throw new Error(`${file}: expected a JSON array of strings`);
  return value as string[];
}

describe('credential hygiene of a whole auth matrix run', () => {
  beforeAll(async () => {
    dirs = prepareChildRun('hygiene', {
      adapters: [fixtureAdapter('weak-observed-reference', 'reference'), fixtureAdapter('weak-client-wrong-bearer', 'wrong-credentials')],
      pairings: [
        { server: 'reference', client: 'reference' },
        { server: 'reference', client: 'wrong-credentials' },
      ],
      transports: ['http', 'stdio'],
      auth: [...AUTH_MODES],
      watchdogs: { ...HONEST_WATCHDOGS, runMs: 60_000 },
      parallelism: 8,
      // One positive and one negative row keep each client run short.
      scenarioIds: ['permission.allow', 'inject.deliver-at-unknown'],
    });
    observeDir = path.join(dirs.dir, 'observed');
    mkdirSync(observeDir);
    secretsFiles.core = path.join(dirs.dir, 'secrets-core.json');
    secretsFiles.auth = path.join(dirs.dir, 'secrets-auth.json');
    // The auth child probes the observed reference adapter only — its server, and its client against the
    // hostile endpoints of the client probes — so the wrong-credentials client is left out of its config.
    const authConfig = path.join(dirs.dir, 'config-auth.json');
    const shared = JSON.parse(readFileSync(dirs.configFile, 'utf8')) as Record<string, unknown>;
    writePrivateJson(authConfig, { ...shared, pairings: [{ server: 'reference', client: 'reference' }] });
    const env = (project: 'core' | 'auth') => ({ [SECRETS_FILE_ENV]: secretsFiles[project], AHP_HYGIENE_OBSERVE_DIR: observeDir, ...(project === 'auth' ? { AHP_CONFIG: authConfig } : {}) });
    [core, auth] = await Promise.all([
      runVitestChild(dirs, 'core', CHILD_TIMEOUT_MS, { env: env('core'), reporters: [MATRIX_REPORTER] }),
      runVitestChild(dirs, 'auth', CHILD_TIMEOUT_MS, { env: env('auth'), reporters: [MATRIX_REPORTER] }),
    ]);
  }, CHILD_TIMEOUT_MS + 15_000);

  afterAll(() => {
    if (dirs) removeChildRun(dirs);
  });

  test('both children ran the whole matrix: core with failing rows and kept logs, auth all green', () => {
    expect(core.timedOut, childOutput(core)).toBe(false);
    expect(auth.timedOut, childOutput(auth)).toBe(false);
    expect(core.rows.length, childOutput(core)).toBeGreaterThan(0);
    expect(auth.rows.length, childOutput(auth)).toBeGreaterThan(0);

    // The reference client passes in every mode; the failing client fails where its credential is refused.
    for (const mode of AUTH_MODES) {
      const rows = core.rows.filter((row) => row.ancestorTitles.at(-1) === `reference→reference http/${mode}`);
      expect(rows.length, `rows of reference→reference http/${mode}`).toBe(2);
      for (const row of rows) expect(row.status, `${row.fullName}: ${row.failureMessages.join('\n')}`).toBe('passed');
    }
    for (const mode of ['bearer', 'oauth', 'workload']) {
      const rows = core.rows.filter((row) => row.ancestorTitles.at(-1) === `reference→wrong-credentials http/${mode}`);
      expect(rows.length).toBe(2);
      for (const row of rows) {
        expect(row.status, row.fullName).toBe('failed');
        expect(row.failureMessages.join('\n'), row.fullName).toContain('logs: ');
      }
    }
    expect(core.exitCode).toBe(1);
    expect(existsSync(path.join(dirs.reportsDir, 'core.json'))).toBe(true);
    expect(existsSync(path.join(dirs.reportsDir, 'core-matrix.md'))).toBe(true);
    expect(readdirSync(path.join(dirs.reportsDir, 'logs')).length, 'kept logs of the failing runs').toBeGreaterThanOrEqual(3);

    // The client probes ran too: every case of every mode for the observed reference client.
    const clientProbes = auth.rows.filter((row) => row.title === CLIENT_PROBE_TEST);
    expect(clientProbes.length).toBe(AUTH_MODES.flatMap((mode) => clientProbeCases(mode)).length);
    const failedProbes = auth.rows.filter((row) => row.status !== 'passed');
    expect(failedProbes.map((row) => `${row.fullName}: ${row.failureMessages.join('\n')}`)).toEqual([]);
    expect(auth.exitCode, childOutput(auth)).toBe(0);
  });

  test('each run wrote its secrets at teardown (0600): static ones, private keys and issued tokens', () => {
    for (const file of Object.values(secretsFiles)) {
      expect(existsSync(file), `${file} (written by the run trust's close() at teardown)`).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const kinds = new Set(readSecrets(file).map(secretKind));
      for (const kind of ['static bearer token', 'OAuth client secret', 'oauth signing key', 'workload signing key', 'private key (PEM)', 'signed token (JWT)']) {
        expect(kinds, `${path.basename(file)} lists a ${kind}`).toContain(kind);
      }
    }
  });

  test('no secret of the run reached any artifact it left', () => {
    const secrets = [...new Set([...STATIC_SECRETS, ...readSecrets(secretsFiles.core), ...readSecrets(secretsFiles.auth)])];
    const ourFiles = new Set([...Object.values(secretsFiles), dirs.configFile, dirs.scenarioFile]);
    const isCache = (file: string): boolean => [core.tmpDir, auth.tmpDir].some((tmp) => path.dirname(file) === tmp && THIRD_PARTY_CACHE.test(path.basename(file)));
    const scan = scanFiles([core.outputFile, auth.outputFile, dirs.reportsDir, observeDir, core.tmpDir, auth.tmpDir], secrets, (file) => ourFiles.has(file) || isCache(file));
    const hits = [...scan.hits, ...scanText('core child terminal output', core.output, secrets), ...scanText('auth child terminal output', auth.output, secrets)];
    expect(describeHits(hits)).toEqual([]);

    // The scan saw what it had to see: both JSON outputs, the reports, kept logs and captured adapter logs.
    const under = (dir: string) => scan.scanned.filter((file) => file.startsWith(`${dir}${path.sep}`));
    expect(scan.scanned).toContain(core.outputFile);
    expect(scan.scanned).toContain(auth.outputFile);
    expect(under(path.join(dirs.reportsDir, 'logs')).length).toBeGreaterThanOrEqual(3);
    expect(under(observeDir).filter((file) => file.endsWith('.log')).length).toBeGreaterThanOrEqual(10);
    // The failure messages are in the scanned JSON output, the refused credentials in the kept logs.
    const failureMessages = core.rows.flatMap((row) => row.failureMessages);
    expect(failureMessages.some((message) => message.includes('reference→wrong-credentials http/bearer'))).toBe(true);
    const keptLogText = under(path.join(dirs.reportsDir, 'logs')).map((file) => readFileSync(file, 'utf8')).join('\n');
    expect(keptLogText.includes('HTTP status 401'), 'a kept client log records the refused bearer (HTTP status 401)').toBe(true);
  });

  test('the children left none of our temp dirs (configs, PKI, logs) in their TMPDIR', () => {
    for (const run of [core, auth]) {
      expect(readdirSync(run.tmpDir).filter((entry) => OUR_TEMP_PREFIX.test(entry)), `${run.project} TMPDIR ${run.tmpDir}`).toEqual([]);
    }
  });

  test('config files holding credentials were 0600 during the run and are gone after teardown', () => {
    const records = readdirSync(observeDir)
      .filter((entry) => entry.endsWith('.json'))
      .map((entry) => JSON.parse(readFileSync(path.join(observeDir, entry), 'utf8')) as { role: string; files: Array<{ file: string; mode: number }> });
    const roles = new Set(records.map((record) => record.role));
    // Every server mode (started by globalSetup, both children) and every client mode were observed.
    for (const mode of AUTH_MODES) {
      expect(roles).toContain(`server-http-${mode}`);
      expect(roles).toContain(`client-http-${mode}`);
    }
    expect(roles).toContain('server-stdio-none');
    expect(roles).toContain('client-wrong-credentials-http-bearer');
    const files = records.flatMap((record) => record.files.map((entry) => ({ ...entry, role: record.role })));
    expect(files.some((entry) => entry.file.endsWith('.key.pem')), 'an mtls private key file was observed').toBe(true);
    for (const entry of files) {
      expect(entry.mode.toString(8), `${entry.role}: ${entry.file}`).toBe('600');
      expect(existsSync(entry.file), `${entry.role}: ${entry.file} still exists after teardown`).toBe(false);
    }
  });
});

describe('writePrivateJson', () => {
  test('writes 0600, also over an existing world-readable file', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ahp-private-json-'));
    try {
      const file = path.join(dir, 'config.json');
      writePrivateJson(file, { auth: { mode: 'none' } });
      expect(statSync(file).mode & 0o777).toBe(0o600);
      // writeFileSync's `mode` applies only to a new file: over an existing one writePrivateJson must chmod.
      chmodSync(file, 0o644);
      writePrivateJson(file, { auth: { mode: 'bearer' } });
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ auth: { mode: 'bearer' } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the secret scan', () => {
  test('finds a planted secret in any form an artifact may hold it, and names only its kind', async () => {
    const { mintToken } = await import('../../harness/auth/jwt.ts');
    const { createTestPki, removeTestPki } = await import('../../harness/auth/pki.ts');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ahp-scan-'));
    const pki = await createTestPki(dir);
    try {
      const token = await mintToken('workload');
      const [pem] = pki.privateKeysPem();
      const secrets = [...STATIC_SECRETS, token, pem!];
      mkdirSync(path.join(dir, 'nested'));
      const plant = (name: string, text: string): string => {
        const file = path.join(dir, 'nested', name);
        writePrivateJson(file, { text });
        return file;
      };
      const clean = plant('clean.json', 'nothing to see');
      const bearer = plant('bearer.json', `Authorization: Bearer ${STATIC_SECRETS[0]}`);
      const jwt = plant('jwt.json', `token=${token}`);
      const key = plant('key.json', pem!); // JSON escapes the PEM's newlines
      const scan = scanFiles([path.join(dir, 'nested')], secrets);
      expect(scan.scanned.sort()).toEqual([bearer, clean, jwt, key].sort());
      const lines = describeHits(scan.hits);
      expect(lines).toEqual([
        `${bearer}: contains a static bearer token (${STATIC_SECRETS[0]!.length} chars)`,
        `${jwt}: contains a signed token (JWT) (${token.length} chars)`,
        `${key}: contains a private key (PEM) (${pem!.length} chars)`,
      ]);
      for (const secret of secrets) expect(lines.join('\n')).not.toContain(secret);
    } finally {
      removeTestPki(pki);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
