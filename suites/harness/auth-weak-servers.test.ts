// The `auth` project against deliberately weakened servers (fixtures/weak-*/): the REAL project runs as
// a child vitest against a JSON config with the reference server and two variants of it, each with one
// endpoint-authentication check disabled through a seam (fixtures/weak-common/seam.mjs):
//
//   weak-duplicate-authorization  several Authorization fields are not refused (any valid one passes)
//   weak-no-audience-check        a signed token's audience is not checked
//
// From vitest's JSON reporter: exactly the probes that the disabled check guards fail for each
// variant — with a message naming the refusal that did not happen and the receipt it left — and every
// other probe of every server passes, the reference server's included.

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { PROBE_ENDPOINTS, probeCases } from '../../harness/auth/probes.ts';
import { AUTH_MODES } from '../../harness/config/define-config.ts';
import {
  fixtureAdapter,
  prepareChildRun,
  referenceAdapter,
  removeChildRun,
  runVitestChild,
  type ChildRun,
  type ChildRunDirs,
} from './support/child-vitest-run.ts';
import type { JsonAssertion } from './support/vitest-json-report.ts';

const CHILD_TIMEOUT_MS = 90_000;
const SERVERS = ['reference', 'duplicate-authorization', 'no-audience-check'] as const;

/** The probes each server must fail (`<mode>/<case>`); every other probe must pass. */
const MUST_FAIL: Record<(typeof SERVERS)[number], string[]> = {
  reference: [],
  'duplicate-authorization': [
    ...['bearer', 'oauth', 'workload'].flatMap((mode) => ['duplicate-valid+valid', 'duplicate-valid+wrong', 'duplicate-wrong+valid'].map((name) => `${mode}/${name}`)),
    'mtls/duplicate-authorization',
  ],
  'no-audience-check': ['oauth/wrong-audience', 'workload/wrong-audience'],
};

let dirs: ChildRunDirs;
let run: ChildRun;

beforeAll(async () => {
  dirs = prepareChildRun('weak-servers', {
    adapters: [referenceAdapter(), fixtureAdapter('weak-duplicate-authorization', 'duplicate-authorization'), fixtureAdapter('weak-no-audience-check', 'no-audience-check')],
    transports: ['http'],
    auth: [...AUTH_MODES],
    watchdogs: { startupMs: 20_000, runMs: 20_000 },
    parallelism: 8,
  });
  // The server probes only: the client probes (suites/auth/client-probes.test.ts) have their own self-test.
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
    const failed: string[] = [];
    for (const [name, row] of rows) {
      const probe = name.split(' › ')[0]!;
      const message = row.failureMessages.join('\n');
      if (!mustFail.has(probe)) {
        expect(row.status, `${server} ${name} should pass; it failed with:\n${message}`).toBe('passed');
        continue;
      }
      failed.push(probe);
      expect(row.status, `${server} ${name} should fail`).toBe('failed');
      expect(message).toContain(`${server} ${name}`);
      expect(message).toContain('expected an explicit HTTP 401 or HTTP 403 refusal, got HTTP 200');
      if (name.endsWith('POST /intercept')) expect(message).toContain('expected no new receipt after a refused request, got 1');
      // Failure messages never carry a credential (the probes name statuses and counts only).
      expect(message).not.toMatch(/Bearer|eyJ|TEST-ONLY/);
    }
    // Each affected probe fails on both endpoints.
    expect(failed.sort()).toEqual([...mustFail].flatMap((probe) => [probe, probe]).sort());
  });
});
