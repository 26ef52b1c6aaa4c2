// The `auth` project against deliberately weakened servers (fixtures/weak-*/, fixtures/contract-auth-only/):
// the REAL project runs as a child vitest against a JSON config with the reference server and variants of
// it, each with one endpoint-authentication check disabled through a seam (fixtures/weak-common/seam.mjs):
//
//   weak-duplicate-authorization  several Authorization fields are not refused (any valid one passes)
//   weak-no-audience-check        a signed token's audience is not checked
//   contract-auth-only            no allow-list of principals is applied: the contract's checks only,
//                                 run twice — as "contract-auth-only" (adapter.json declares no
//                                 `authAllowList`, like a real SDK) and as "ignores-allow-list" (it
//                                 declares one, so the harness hands it the list, and ignores it)
//
// From vitest's JSON reporter: exactly the probes that the disabled check guards fail for each
// variant — with a message naming the refusal that did not happen and the receipt it left — the
// probes a server is given no policy for are skipped with the reason, and every other probe of every
// server passes, the reference server's included.

import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { PROBE_ENDPOINTS, probeCases } from '../../harness/families/auth/probes.ts';
import { AUTH_MODES } from '../../harness/config/define-config.ts';
import { fixtureAdapter, prepareChildRun, referenceAdapter, removeChildRun, runVitestChild, type ChildRun, type ChildRunDirs, HONEST_WATCHDOGS } from './support/child-vitest-run.ts';
import type { JsonAssertion } from './support/vitest-json-report.ts';

const CHILD_TIMEOUT_MS = 150_000;
const SERVERS = ['reference', 'duplicate-authorization', 'no-audience-check', 'contract-auth-only', 'ignores-allow-list'] as const;

/** The probes that need the allow-list the contract's server config does not carry. */
const ALLOW_LIST_PROBES = ['oauth/unauthorised-subject', 'workload/unauthorised-subject', 'mtls/unauthorised-principal'];

/** The probes each server must fail (`<mode>/<case>`); every other probe must pass. */
const MUST_FAIL: Record<(typeof SERVERS)[number], string[]> = {
  reference: [],
  'duplicate-authorization': [
    ...['bearer', 'oauth', 'workload'].flatMap((mode) => ['duplicate-valid+valid', 'duplicate-valid+wrong', 'duplicate-wrong+valid'].map((name) => `${mode}/${name}`)),
    'mtls/duplicate-authorization',
  ],
  'no-audience-check': ['oauth/wrong-audience', 'workload/wrong-audience'],
  'contract-auth-only': [],
  'ignores-allow-list': ALLOW_LIST_PROBES,
};

/** The probes each server must see skipped (`<mode>/<case>`), with the reason. */
const MUST_SKIP: Record<(typeof SERVERS)[number], string[]> = {
  reference: [],
  'duplicate-authorization': [],
  'no-audience-check': [],
  'contract-auth-only': ALLOW_LIST_PROBES,
  'ignores-allow-list': [],
};
const CONTRACT_ONLY = fixtureAdapter('contract-auth-only');

let dirs: ChildRunDirs;
let run: ChildRun;

beforeAll(async () => {
  dirs = prepareChildRun('weak-servers', {
    adapters: [
      referenceAdapter(),
      fixtureAdapter('weak-duplicate-authorization', 'duplicate-authorization'),
      fixtureAdapter('weak-no-audience-check', 'no-audience-check'),
      CONTRACT_ONLY,
      { name: 'ignores-allow-list', cwd: CONTRACT_ONLY.cwd, adapterFile: path.join(CONTRACT_ONLY.cwd, 'interop', 'declares-allow-list.json') },
    ],
    transports: ['http'],
    auth: [...AUTH_MODES],
    watchdogs: { ...HONEST_WATCHDOGS, runMs: 60_000 },
    parallelism: 8,
  });
  // The server probes only: the client probes (harness/families/auth/client-probes-suite.ts) have their own self-test.
  run = await runVitestChild(dirs, 'auth', CHILD_TIMEOUT_MS, { files: ['suites/auth/probes.test.ts'] });
}, CHILD_TIMEOUT_MS + 10_000);

afterAll(() => {
  if (dirs) removeChildRun(dirs);
});

function rowsOf(server: string): Map<string, JsonAssertion> {
  // describe `<server> <mode>/<case>`, test `<endpoint>`.
  const rows = new Map<string, JsonAssertion>();
  for (const row of run.rows) {
    const group = row.ancestorTitles.at(-1) ?? '';
    if (group.startsWith(`${server} `)) rows.set(`${group.slice(server.length + 1)} › ${row.title}`, row);
  }
  return rows;
}

describe('the auth project catches weakened servers', () => {
  test('the child run completed and failed', () => {
    expect(run.timedOut, `the child vitest exceeded ${CHILD_TIMEOUT_MS} ms; its output:\n${run.output.slice(-4000)}`).toBe(false);
    expect(run.rows.length, `no JSON report rows; the child's output:\n${run.output.slice(-4000)}`).toBeGreaterThan(0);
    expect(run.exitCode, 'vitest exits 1 when some test failed').toBe(1);
  });

  test.each(SERVERS)('%s: exactly the probes its weakness affects fail, with a precise message', (server) => {
    const rows = rowsOf(server);
    const expected = AUTH_MODES.flatMap((mode) => probeCases(mode).flatMap((probe) => PROBE_ENDPOINTS.map((endpoint) => `${mode}/${probe.name} › ${endpoint}`)));
    expect([...rows.keys()].sort(), `the probes of ${server}`).toEqual([...expected].sort());

    const mustFail = new Set(MUST_FAIL[server]);
    const mustSkip = new Set(MUST_SKIP[server]);
    const failed: string[] = [];
    const skipped: string[] = [];
    for (const [name, row] of rows) {
      const probe = name.split(' › ')[0]!;
      const message = row.failureMessages.join('\n');
      if (mustSkip.has(probe)) {
        skipped.push(probe);
        expect(row.status, `${server} ${name} should be skipped (the server is given no allow-list); it ${row.status}:\n${message}`).toBe('skipped');
        const mode = probe.split('/')[0];
        expect(row.meta?.ahpAuthProbe?.skipReason).toBe(
          `unsupported: adapter "${server}" does not declare auth mode "${mode}" in interop/adapter.json authAllowList, ` +
            `so its server is given no allow-list of principals (the contract's server config names none) and is not required to refuse an authenticated one`,
        );
        continue;
      }
      if (!mustFail.has(probe)) {
        expect(row.status, `${server} ${name} should pass; it failed with:\n${message}`).toBe('passed');
        continue;
      }
      failed.push(probe);
      expect(row.status, `${server} ${name} should fail`).toBe('failed');
      expect(message).toContain(`${server} ${name}`);
      expect(message).toMatch(/expected an explicit HTTP (401 or HTTP )?403 refusal, got HTTP 200/);
      if (name.endsWith('POST /intercept')) expect(message).toContain('expected no new receipt after a refused request, got 1');
      // Failure messages never carry a credential (the probes name statuses and counts only).
      expect(message).not.toMatch(/Bearer|eyJ|TEST-ONLY/);
    }
    expect(skipped.sort()).toEqual([...mustSkip].flatMap((probe) => [probe, probe]).sort());
    // Each affected probe fails on both endpoints.
    expect(failed.sort()).toEqual([...mustFail].flatMap((probe) => [probe, probe]).sort());
  });
});
