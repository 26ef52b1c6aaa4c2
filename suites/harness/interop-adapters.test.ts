// What real SDK adapters were seen to do, as fake adapters (fixtures/interop-*/) run through the REAL
// core project in a child vitest: each observed behaviour passes or fails exactly as the contract
// says, so none of them can regress.
//
// - The ecosystem's HTTP binding (bare capability set from GET /capabilities, an endpoint ending in
//   /intercept with an extra uploadEndpoint in the readiness file, a client resolving routes against
//   the endpoint's origin): interoperates with the reference adapter both ways, on all five auth modes.
// - A stdio client that starts a fresh server after every negative row: passes, every server process
//   it started is part of the run's evidence and is reaped.
// - A server that re-encodes positive responses (dropping extension members): fails exactly those
//   rows, naming the server, the row and the removed paths — over stdio and over HTTP (the harness
//   proxy), also under mtls.
// - A server that answers an invalid scripted response with its own error: the client "rejects" it,
//   yet the row fails, because the client was not handed the scripted response.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { fixtureAdapter, leftoverRunDirs, prepareChildRun, referenceAdapter, removeChildRun, runVitestChild, SELFTEST_SCENARIO_IDS, type ChildConfig, type ChildRun, type ChildRunDirs, HONEST_WATCHDOGS } from './support/child-vitest-run.ts';
import { expectGroup } from './support/expect-group.ts';
import { killRecorded, recordedPids, survivorsAfter } from './support/recorded-pids.ts';

const WATCHDOGS = { ...HONEST_WATCHDOGS, runMs: 60_000 };
const CHILD_TIMEOUT_MS = 150_000;
const GONE_MS = 5000;
const ALL_MODES = ['none', 'bearer', 'oauth', 'mtls', 'workload'] as const;

interface CompletedRun extends ChildRun {
  dirs: ChildRunDirs;
  pids: Map<number, string>;
  survivors: string[];
  leftover: string[];
}

/** One core child run for the enclosing describe (filled in beforeAll, removed in afterAll). */
function coreRun(name: string, config: () => ChildConfig): CompletedRun {
  const run = {} as CompletedRun;
  beforeAll(async () => {
    const dirs = prepareChildRun(name, config());
    const child = await runVitestChild(dirs, 'core', CHILD_TIMEOUT_MS);
    const pids = recordedPids(dirs.pidDir);
    const survivors = await survivorsAfter(pids, GONE_MS);
    killRecorded([...pids.keys()]); // hygiene only: survivors are asserted
    Object.assign(run, child, { dirs, pids, survivors, leftover: leftoverRunDirs(child.tmpDir) });
  }, CHILD_TIMEOUT_MS + GONE_MS + 10_000);
  afterAll(() => {
    if (run.dirs) removeChildRun(run.dirs);
  });
  return run;
}

function expectFinished(run: CompletedRun, exitCode: 0 | 1): void {
  expect(run.timedOut, `the child vitest run exceeded ${CHILD_TIMEOUT_MS} ms; its output:\n${run.output.slice(-4000)}`).toBe(false);
  expect(run.exitCode, run.output.slice(-4000)).toBe(exitCode);
  expect(run.survivors, 'processes still alive after the child vitest exited').toEqual([]);
  expect(run.leftover, `temp dirs left in the child's TMPDIR ${run.tmpDir}`).toEqual([]);
}

describe('the ecosystem HTTP binding interoperates with the reference adapter both ways, on every auth mode', () => {
  const run = coreRun('interop-binding', () => ({
    adapters: [referenceAdapter(), fixtureAdapter('interop-sdk-style', 'sdk-style'), fixtureAdapter('interop-legacy-envelope-server', 'legacy-envelope')],
    pairings: [
      { server: 'reference', client: 'sdk-style' },
      { server: 'sdk-style', client: 'reference' },
      { server: 'legacy-envelope', client: 'sdk-style' },
    ],
    transports: ['http', 'stdio'],
    auth: [...ALL_MODES],
    watchdogs: WATCHDOGS,
    parallelism: 4,
  }));

  test('the run finishes and leaves nothing behind', () => {
    expectFinished(run, 1); // the legacy-envelope groups fail, by design
  });

  test.each(ALL_MODES.map((mode) => [mode]))('reference server → SDK-style client over http/%s passes', (mode) => {
    expectGroup(run, `reference→sdk-style http/${mode}`, { kind: 'pass' });
  });

  test.each(ALL_MODES.map((mode) => [mode]))('SDK-style server (endpoint …/intercept) → reference client over http/%s passes', (mode) => {
    expectGroup(run, `sdk-style→reference http/${mode}`, { kind: 'pass' });
  });

  test('both directions pass over stdio', () => {
    expectGroup(run, 'reference→sdk-style stdio/none', { kind: 'pass' });
    expectGroup(run, 'sdk-style→reference stdio/none', { kind: 'pass' });
  });

  test('the SDK-style client really is strict: a server answering GET /capabilities with a JSON-RPC envelope fails discovery', () => {
    for (const mode of ALL_MODES) {
      expectGroup(run, `legacy-envelope→sdk-style http/${mode}`, { kind: 'fail-all', needles: ['discovery: GET /capabilities is not a capability set'] });
    }
  });

  test('the matrix reports are written although the child named its own reporter (--reporter=json)', () => {
    const file = path.join(run.dirs.reportsDir, 'core.json');
    expect(existsSync(file), `${file} was not written`).toBe(true);
    const report = JSON.parse(readFileSync(file, 'utf8')) as { groups: Array<{ server: string; client: string; transport: string; auth: string; status: string; evidence?: string }> };
    const group = report.groups.find((g) => g.server === 'sdk-style' && g.client === 'reference' && g.transport === 'http' && g.auth === 'mtls');
    // mtls groups keep full evidence: the harness proxy terminates the client's TLS and re-originates it.
    expect(group).toMatchObject({ status: 'passed', evidence: 'full' });
  });
});

describe('a server that closes kept-alive connections as the next request arrives (an idle timeout at the wrong moment)', () => {
  // Every reused connection to its AHP or control endpoint resets once, unanswered: the proxy, the
  // control client and the stdio relay must send that request again instead of charging the server.
  const run = coreRun('interop-idle-closing', () => ({
    adapters: [referenceAdapter(), fixtureAdapter('interop-idle-closing-server', 'idle-closing')],
    pairings: [{ server: 'idle-closing', client: 'reference' }],
    transports: ['http', 'stdio'],
    auth: ['none', 'mtls'],
    watchdogs: WATCHDOGS,
  }));

  test.for(['http/none', 'http/mtls', 'stdio/none'])('passes over %s: nothing is charged to it', (cell) => {
    expectFinished(run, 0);
    expectGroup(run, `idle-closing→reference ${cell}`, { kind: 'pass' });
  });
});

describe('a stdio client that starts a fresh server after every negative row', () => {
  const run = coreRun('interop-restarts', () => ({
    adapters: [referenceAdapter(), fixtureAdapter('interop-restarting-stdio-client', 'restarting')],
    pairings: [{ server: 'reference', client: 'restarting' }],
    transports: ['stdio'],
    watchdogs: WATCHDOGS,
  }));

  test('passes: every server process is part of the same run', () => {
    expectFinished(run, 0);
    expectGroup(run, 'reference→restarting stdio/none', { kind: 'pass' });
  });

  test('really restarted its server (one process per negative row, plus the first), and every one is reaped', () => {
    const negatives = 2; // of SELFTEST_SCENARIO_IDS
    expect(SELFTEST_SCENARIO_IDS.length).toBe(6);
    const roles = [...run.pids.values()].filter((role) => role.startsWith('restarting-server-'));
    expect(new Set(roles).size).toBe(negatives + 1);
    expect(run.survivors).toEqual([]);
  });
});

describe('servers that alter responses fail exactly the rows they alter', () => {
  const ids = [
    'permission.allow',
    'envelope.extra-top-level-field',
    'envelope.extra-result-field',
    'envelope.result-carries-manifest',
    'inject.deliver-at-unknown',
    'flow.tool.continue-not-advertised',
  ] as const;
  const run = coreRun('interop-altered', () => ({
    adapters: [referenceAdapter(), fixtureAdapter('interop-reencoding-server', 'reencoding'), fixtureAdapter('interop-repairing-server', 'repairing')],
    pairings: [
      { server: 'reencoding', client: 'reference' },
      { server: 'repairing', client: 'reference' },
    ],
    transports: ['http', 'stdio'],
    auth: ['none', 'mtls'],
    watchdogs: WATCHDOGS,
    scenarioIds: ids,
  }));
  const groups = ['http/none', 'http/mtls', 'stdio/none'];

  test('the run finishes and leaves nothing behind', () => {
    expectFinished(run, 1);
  });

  test.each(groups.map((group) => [group]))('re-encoded positive responses fail their rows only, naming the removed members (%s)', (group) => {
    expectGroup(
      run,
      `reencoding→reference ${group}`,
      {
        kind: 'fail-some',
        failing: {
          'envelope.extra-top-level-field': ['[responses/mismatch]', 'server fault: server "reencoding" altered the scripted response of "envelope.extra-top-level-field"', 'removed trace'],
          'envelope.extra-result-field': ['[responses/mismatch]', 'server fault: server "reencoding" altered the scripted response of "envelope.extra-result-field"', 'removed result.note'],
        },
      },
      ids,
    );
  });

  test.each(groups.map((group) => [group]))('a server error in place of an invalid scripted response fails that row although the client rejected it (%s)', (group) => {
    const needles = (id: string) => ['[responses/mismatch]', `server fault: server "repairing" replaced the scripted response of "${id}" with its own error envelope (error -32603 "Internal error: refusing to send an invalid response")`, 'Scripted: {'];
    expectGroup(
      run,
      `repairing→reference ${group}`,
      {
        kind: 'fail-some',
        failing: {
          'envelope.result-carries-manifest': needles('envelope.result-carries-manifest'),
          'inject.deliver-at-unknown': needles('inject.deliver-at-unknown'),
        },
      },
      ids,
    );
  });

  test('core.json keeps each such group failed, with the row fault label among its errors', () => {
    const report = JSON.parse(readFileSync(path.join(run.dirs.reportsDir, 'core.json'), 'utf8')) as {
      groups: Array<{ server: string; transport: string; auth: string; status: string; errors: Array<{ stage: string; kind: string }> }>;
    };
    const altered = report.groups.filter((g) => (g.server === 'reencoding' || g.server === 'repairing') && g.status !== 'inapplicable');
    expect(altered.map((g) => `${g.server} ${g.transport}/${g.auth}`).sort()).toEqual(
      ['reencoding', 'repairing'].flatMap((server) => groups.map((group) => `${server} ${group}`)).sort(),
    );
    for (const group of altered) {
      expect(group.status).toBe('failed');
      expect(group.errors).toContainEqual({ stage: 'responses', kind: 'mismatch' });
    }
  });
});
