// The `auth` project's client probes against deliberately leaky clients (fixtures/leaky-*/): the REAL
// client-probe file runs as a child vitest against a JSON config with the reference client and two
// variants of it, each with careless behaviour swapped in through seams (fixtures/leaky-common/seam.mjs):
//
//   follows-redirects  follows the event endpoint's 307/308 with its Authorization field and client
//                      certificate, and the token endpoint's with its client id and secret
//   lax-checks         skips server certificate verification; takes a 401 challenge for a response it
//                      rejected ({rejected:true})
//
// From vitest's JSON reporter: exactly the probes each behaviour affects fail, with messages naming
// the client and the evidence (what arrived where, by kind and length), every other probe of every
// client passes — the reference client's included — and no secret of the run reaches a failure
// message, the JSON output or the kept logs.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { CLIENT_PROBE_TEST, clientProbeCases, CREDENTIALED_MODES } from '../../harness/families/auth/client-probe-cases.ts';
import { STATIC_SECRETS } from '../../harness/auth/constants.ts';
import { describeHits, scanFiles, scanText } from '../../harness/families/auth/probes-secret-scan.ts';
import { SECRETS_FILE_ENV } from '../../harness/auth/run-trust.ts';
import { fixtureAdapter, prepareChildRun, referenceAdapter, removeChildRun, runVitestChild, type ChildRun, type ChildRunDirs, HONEST_WATCHDOGS } from './support/child-vitest-run.ts';
import type { JsonAssertion } from './support/vitest-json-report.ts';

const CHILD_TIMEOUT_MS = 150_000;
const CLIENTS = ['reference', 'follows-redirects', 'lax-checks'] as const;
type Client = (typeof CLIENTS)[number];

const REDIRECTS = CREDENTIALED_MODES.flatMap((mode) => ['discovery', 'intercept'].flatMap((at) => [307, 308].map((status) => `${mode}/${at}-redirect-${status}`)));

/** The probes each client must fail (`<mode>/<case>`) and the evidence labels their messages carry. */
const MUST_FAIL: Record<Client, Array<{ probes: string[]; labels: string[]; evidence: Record<string, RegExp> }>> = {
  reference: [],
  'follows-redirects': [
    {
      probes: REDIRECTS,
      labels: ['[probe/followed-redirect]', '[report/status]'],
      evidence: {
        bearer: /the second origin received (GET \/capabilities|POST \/intercept) carrying Authorization header \(Bearer, \d+ chars\) carrying a static bearer token \(\d+ chars\)/,
        oauth: /the second origin received (GET \/capabilities|POST \/intercept) carrying Authorization header \(Bearer, \d+ chars\) carrying a signed token \(JWT\) \(\d+ chars\)$/m,
        workload: /the second origin received (GET \/capabilities|POST \/intercept) carrying Authorization header \(Bearer, \d+ chars\) carrying a signed token \(JWT\) \(\d+ chars\)$/m,
        mtls: /the second origin received (GET \/capabilities|POST \/intercept) carrying client certificate \(CN=ahp-interop-client\)/,
      },
    },
    {
      probes: ['oauth/token-redirect-307', 'oauth/token-redirect-308'],
      labels: ['[probe/followed-redirect]', '[report/status]'],
      evidence: { oauth: /the second origin received POST \/token carrying client_id form field \(\d+ chars\), client_secret form field \(\d+ chars\), a body carrying an OAuth client secret/ },
    },
  ],
  'lax-checks': [
    {
      probes: ['mtls/untrusted-server-certificate'],
      labels: ['[probe/untrusted-server]', '[report/status]'],
      evidence: { mtls: /completed a TLS handshake with an endpoint whose certificate the run's CA did not issue, presenting its client certificate \(CN=ahp-interop-client\)/ },
    },
    {
      probes: CREDENTIALED_MODES.map((mode) => `${mode}/challenge-401`),
      labels: ['[report/rejected]'],
      evidence: Object.fromEntries(CREDENTIALED_MODES.map((mode) => [mode, /reported row "inject\.deliver-at-unknown" as "passed"/])),
    },
  ],
};

let dirs: ChildRunDirs;
let run: ChildRun;
let secretsFile: string;

beforeAll(async () => {
  dirs = prepareChildRun('leaky-clients', {
    adapters: [referenceAdapter(), fixtureAdapter('leaky-client-follows-redirects', 'follows-redirects'), fixtureAdapter('leaky-client-lax-checks', 'lax-checks')],
    pairings: CLIENTS.map((client) => ({ server: 'reference', client })),
    transports: ['http'],
    auth: [...CREDENTIALED_MODES],
    watchdogs: { ...HONEST_WATCHDOGS, runMs: 60_000 },
    // Client runs wait on their listeners part of the time: more than one per core keeps the cores busy.
    parallelism: 4,
    // The probes' positive row and their negative row.
    scenarioIds: ['permission.allow', 'inject.deliver-at-unknown'],
  });
  secretsFile = path.join(dirs.dir, 'secrets.json');
  run = await runVitestChild(dirs, 'auth', CHILD_TIMEOUT_MS, { files: ['suites/auth/client-probes.test.ts'], env: { [SECRETS_FILE_ENV]: secretsFile } });
}, CHILD_TIMEOUT_MS + 10_000);

afterAll(() => {
  if (dirs) removeChildRun(dirs);
});

function rowsOf(client: Client): Map<string, JsonAssertion> {
  // describe `<client> <mode>/<case>`, test `client`.
  const rows = new Map<string, JsonAssertion>();
  for (const row of run.rows) {
    const group = row.ancestorTitles.at(-1) ?? '';
    if (group.startsWith(`${client} `) && row.title === CLIENT_PROBE_TEST) rows.set(group.slice(client.length + 1), row);
  }
  return rows;
}

describe('the client probes catch leaky clients', () => {
  test('the child run completed and failed', () => {
    expect(run.timedOut, `the child vitest exceeded ${CHILD_TIMEOUT_MS} ms; its output:\n${run.output.slice(-4000)}`).toBe(false);
    expect(run.rows.length, `no JSON report rows; the child's output:\n${run.output.slice(-4000)}`).toBeGreaterThan(0);
    expect(run.exitCode, 'vitest exits 1 when some test failed').toBe(1);
  });

  test.each(CLIENTS)('%s: exactly the probes its behaviour affects fail, naming the client and the evidence', (client) => {
    const rows = rowsOf(client);
    const expected = CREDENTIALED_MODES.flatMap((mode) => clientProbeCases(mode).map((probe) => `${mode}/${probe.name}`));
    expect([...rows.keys()].sort(), `the probes of ${client}`).toEqual([...expected].sort());

    const families = MUST_FAIL[client];
    const mustFail = new Set(families.flatMap((family) => family.probes));
    for (const [name, row] of rows) {
      const message = row.failureMessages.join('\n');
      const family = families.find((candidate) => candidate.probes.includes(name));
      if (!family) {
        expect(row.status, `${client} ${name} should pass; it failed with:\n${message}`).toBe('passed');
        continue;
      }
      expect(row.status, `${client} ${name} should fail`).toBe('failed');
      expect(message).toContain(`${client} ${name} › ${CLIENT_PROBE_TEST}`);
      expect(message).toContain(`client fault: client "${client}"`);
      for (const label of family.labels) expect(message, `${client} ${name}`).toContain(label);
      const mode = name.split('/')[0]!;
      expect(message, `${client} ${name}: the evidence`).toMatch(family.evidence[mode]!);
    }
    expect([...rows].filter(([, row]) => row.status === 'failed').map(([name]) => name).sort()).toEqual([...mustFail].sort());
  });

  test('no secret of the run reaches a failure message, the JSON output or the kept logs', () => {
    const secrets = [...new Set([...STATIC_SECRETS, ...(JSON.parse(readFileSync(secretsFile, 'utf8')) as string[])])];
    const messages = run.rows.flatMap((row) => row.failureMessages).join('\n');
    expect(messages.length, 'the leaky clients produced failure messages to scan').toBeGreaterThan(0);
    const scan = scanFiles([run.outputFile, dirs.reportsDir], secrets);
    const hits = [...scan.hits, ...scanText('failure messages', messages, secrets), ...scanText('child terminal output', run.output, secrets)];
    expect(describeHits(hits)).toEqual([]);
    expect(scan.scanned.some((file) => file.includes(`${path.sep}auth-client-probes${path.sep}`)), 'kept client logs were scanned').toBe(true);
  });
});
