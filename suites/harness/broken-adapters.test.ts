// The core machinery against deliberately broken adapters (fixtures/broken-*/): the REAL `core` vitest
// project runs as a child process against a JSON config, and we assert on vitest's JSON reporter output
// that every row of a broken pairing fails with the precise label/text of what is broken, that the
// reference→reference pairing of the same run still passes, that every process the fixtures recorded
// is gone afterwards, and that the run left no `ahp-core-*` temp dir behind — also after Ctrl-C.

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { fixtureAdapter, leftoverRunDirs, prepareChildRun, referenceAdapter, removeChildRun, startVitestChild, type ChildConfig, type ChildRunDirs } from './support/child-vitest-run.ts';
import { completeChildRun, expectClean, GONE_MS, type CompletedRun } from './support/completed-child-run.ts';
import { killRecorded, recordedPids, survivorsAfter, waitForRoles } from './support/recorded-pids.ts';
import { expectGroup } from './support/expect-group.ts';

// Every reference process here starts through tsx, and the working fakes must start, exit or answer
// within these on a loaded 2-core CI machine (a plain node start has taken over 5 s there); the
// silent and hanging fakes cost one of each, so they stay well below the child timeout.
const WATCHDOGS = { startupMs: 15_000, runMs: 25_000 };
/** Bound for one whole child vitest run (boot + globalSetup + the run-watchdog cases + teardown). */
const CHILD_TIMEOUT_MS = 150_000;
/**
 * One core run for the enclosing describe: the reference adapter and `broken-<role>-<name>` for each
 * name, each paired with the reference adapter in the other role, plus reference→reference. It runs in
 * beforeAll (which fills the returned object) and its folder is removed in afterAll.
 */
function brokenRun(role: 'server' | 'client', names: string[], transports: ChildConfig['transports'], watchdogs = WATCHDOGS): CompletedRun {
  const run = {} as CompletedRun;
  beforeAll(async () => {
    const pairWithReference = (name: string) =>
      role === 'server' ? { server: `server-${name}`, client: 'reference' } : { server: 'reference', client: `client-${name}` };
    const completed = await completeChildRun({
      name: `${role}s`,
      project: 'core',
      timeoutMs: CHILD_TIMEOUT_MS,
      config: {
        adapters: [referenceAdapter(), ...names.map((name) => fixtureAdapter(`broken-${role}-${name}`))],
        pairings: [{ server: 'reference', client: 'reference' }, ...names.map(pairWithReference)],
        transports,
        watchdogs,
      },
    });
    Object.assign(run, completed);
  }, CHILD_TIMEOUT_MS + GONE_MS + 10_000);
  afterAll(() => {
    if (run.dirs) removeChildRun(run.dirs);
  });
  return run;
}


describe('broken servers (one core run: each paired with the reference client over http and stdio)', () => {
  const run = brokenRun('server', ['silent', 'exit', 'garbled', 'hang', 'prints-text'], ['http', 'stdio']);

  test('no recorded process survives the run and no ahp-core-* temp dir is left', () => {
    // Each broken server runs once per transport (http by globalSetup, stdio by the client through the
    // relay), so a role may have several pids: every one of them must be gone.
    expectClean(run, [
      'server-silent',
      'server-exit',
      'server-garbled',
      'server-hang',
      'server-hang-inner',
      'server-prints-text',
      'server-prints-text-inner',
    ], CHILD_TIMEOUT_MS);
  });

  test('reference→reference still passes over http and stdio', () => {
    expectGroup(run, 'reference→reference http/none', { kind: 'pass' });
    expectGroup(run, 'reference→reference stdio/none', { kind: 'pass' });
  });

  test('http: a server that never writes readiness fails every row at startup, naming the watchdog', () => {
    expectGroup(run, 'server-silent→reference http/none', {
      kind: 'fail-all',
      needles: ['[startup/timeout]', 'server adapter "server-silent"', `watchdog fired after ${WATCHDOGS.startupMs} ms`, 'was not written'],
    });
  });

  test('http: a server that exits at start fails every row at startup, with its exit code', () => {
    expectGroup(run, 'server-exit→reference http/none', {
      kind: 'fail-all',
      needles: ['[startup/exited]', 'server adapter "server-exit"', 'exited with code 3 before writing readiness file'],
    });
  });

  test('http: a server with a garbled readiness file fails every row at startup, saying it is not JSON', () => {
    expectGroup(run, 'server-garbled→reference http/none', {
      kind: 'fail-all',
      needles: ['[startup/garbled]', 'server adapter "server-garbled"', 'readiness file', 'is not valid JSON at line 1'],
    });
  });

  test('http: a server that hangs on /intercept fails every row by the run watchdog', () => {
    expectGroup(run, 'server-hang→reference http/none', {
      kind: 'fail-all',
      needles: ['[run/timeout]', `run watchdog fired after ${WATCHDOGS.runMs} ms`, "the client's process tree was killed"],
    });
  });

  test('stdio: a server that hangs on hooks/intercept fails every row by the run watchdog', () => {
    expectGroup(run, 'server-hang→reference stdio/none', {
      kind: 'fail-all',
      needles: ['[run/timeout]', `run watchdog fired after ${WATCHDOGS.runMs} ms`],
    });
  });

  test('stdio: non-AHP text on stdout fails every row, saying a stdout line is not JSON', () => {
    // The banner comes before the first JSON line, so discovery already fails and no intercept is sent:
    // the precise diagnosis is the non-JSON line, not (only) the missing receipts/responses it causes.
    expectGroup(run, 'server-prints-text→reference stdio/none', {
      kind: 'fail-all',
      needles: ['stdout', /not (valid )?JSON|non-JSON/i],
    });
  });

  test('http: the same stdout text is only a log line over http, so that server passes', () => {
    expectGroup(run, 'server-prints-text→reference http/none', { kind: 'pass' });
  });

  // Over stdio the reference client spawns the server (through the harness's relay), so a server that
  // cannot start shows up differently: these ask for the same startup diagnosis as over http.
  test('stdio: a server that never writes readiness fails every row at startup, naming the watchdog', () => {
    expectGroup(run, 'server-silent→reference stdio/none', {
      kind: 'fail-all',
      needles: ['[startup/', 'readiness file', `${WATCHDOGS.startupMs} ms`],
    });
  });

  test('stdio: a server that exits at start fails every row at startup, with its exit code', () => {
    expectGroup(run, 'server-exit→reference stdio/none', { kind: 'fail-all', needles: ['[startup/', 'code 3'] });
  });

  test('stdio: a server with a garbled readiness file fails every row at startup, naming the readiness file', () => {
    expectGroup(run, 'server-garbled→reference stdio/none', { kind: 'fail-all', needles: ['[startup/', 'readiness file'] });
  });
});

describe('broken clients (one core run: each paired with the reference server over http)', () => {
  const run = brokenRun('client', ['no-report', 'no-contact', 'rejects-all', 'leaks-result', 'duplicate-row'], ['http']);

  test('no recorded process survives the run and no ahp-core-* temp dir is left', () => {
    expectClean(run, [
      'client-no-report',
      'client-no-report-inner',
      'client-no-contact',
      'client-rejects-all',
      'client-leaks-result',
      'client-leaks-result-inner',
      'client-duplicate-row',
      'client-duplicate-row-inner',
    ], CHILD_TIMEOUT_MS);
  });

  test('reference→reference still passes', () => {
    expectGroup(run, 'reference→reference http/none', { kind: 'pass' });
  });

  test('a client that writes no report (and exits 0) fails every row', () => {
    expectGroup(run, 'reference→client-no-report http/none', {
      kind: 'fail-all',
      needles: ['[report/missing]', 'client "client-no-report"', 'report file', 'was not written'],
    });
  });

  test('a client that reports passed without contacting the server fails every row on the receipts', () => {
    expectGroup(run, 'reference→client-no-contact http/none', {
      kind: 'fail-all',
      // The harness proxy saw the client send nothing, so the fault is the client's, row by row.
      needles: ['[receipts/count]', 'client fault: client "client-no-contact" sent no request for', 'the exact canonical request never went on the wire'],
    });
  });

  test('a client that reports {rejected:true} for everything fails every positive row', () => {
    // The two negative rows do expect a rejection, so for them {rejected:true} is the right answer.
    expectGroup(run, 'reference→client-rejects-all http/none', {
      kind: 'fail-some',
      failing: {
        'permission.allow': ['client fault: client "client-rejects-all" reported an actual result that differs from expected', 'decision: expected "allow" but the key is missing'],
        'permission.deny-discards-candidate': ['client fault: client "client-rejects-all" reported an actual result that differs from expected', 'decision: expected "deny" but the key is missing'],
        'return.structured-value': ['client fault: client "client-rejects-all" reported an actual result that differs from expected', 'decision: expected "allow" but the key is missing'],
        'permission.ask-stays-pending': ['client fault: client "client-rejects-all" reported an actual result that differs from expected', 'decision: expected "ask" but the key is missing'],
      },
    });
  });

  test('a client that leaks a discarded return value through a deny fails that row: result not asserted', () => {
    expectGroup(run, 'reference→client-leaks-result http/none', {
      kind: 'fail-some',
      failing: {
        'permission.deny-discards-candidate': ['result: not asserted by the scenario, yet present as {"cached":true}'],
      },
    });
  });

  test('a client that reports one row twice fails every row', () => {
    expectGroup(run, 'reference→client-duplicate-row http/none', {
      kind: 'fail-all',
      needles: ['[report/duplicate]', 'scenario "permission.allow" is reported more than once'],
    });
  });
});

describe('a client that stops at the first row it cannot run (one core run over http and stdio)', () => {
  // It runs the real reference client over five rows before it dies: no watchdog may cut that short.
  const run = brokenRun('client', ['dies-at-row'], ['http', 'stdio'], { startupMs: 15_000, runMs: 45_000 });
  // SELFTEST_SCENARIO_IDS: four positive rows, then the first negative row, whose missing `expected` kills it.
  const KILLER = 'inject.deliver-at-unknown';

  test('no recorded process survives the run and no ahp-core-* temp dir is left', () => {
    expectClean(run, ['client-dies-at-row', 'client-dies-at-row-inner'], CHILD_TIMEOUT_MS);
  });

  test.each([
    ['http', 'the harness proxy'],
    ['stdio', 'the stdio relay'],
  ])('%s: every row fails, and every message names the row it died on and the tail of its output, credentials redacted', (transport, source) => {
    expectGroup(run, `reference→client-dies-at-row ${transport}/none`, {
      kind: 'fail-all',
      needles: [
        '[report/missing]',
        'was not written',
        `it stopped on or after row "${KILLER}" (row 5 of 6): the last request ${source} saw was hooks/intercept id "${KILLER}", and it was answered, which belongs to that row; the next row in its file is "flow.tool.continue-not-advertised"`,
        "KeyError: 'expected'",
        '| Traceback (most recent call last):',
        'Authorization: Bearer [redacted]',
        /^(?![\s\S]*TEST-ONLY-dies-at-row-credential)/,
      ],
    });
  });
});

describe('SIGINT to a core run with a hanging server and a client run in flight', () => {
  const roles = ['server-hang', 'server-hang-inner', 'client-leaks-result', 'client-leaks-result-inner'];
  let dirs: ChildRunDirs;
  let tmpDir = '';
  let exitedInTime = false;
  let pids = new Map<number, string>();
  let survivors: string[] = [];
  let leftover: string[] = [];

  beforeAll(async () => {
    dirs = prepareChildRun('sigint', {
      adapters: [fixtureAdapter('broken-server-hang'), fixtureAdapter('broken-client-leaks-result')],
      pairings: [{ server: 'server-hang', client: 'client-leaks-result' }],
      transports: ['http'],
      watchdogs: { startupMs: 15_000, runMs: 60_000 },
    });
    const { subprocess: child, tmpDir: childTmpDir } = startVitestChild(dirs, 'core', CHILD_TIMEOUT_MS);
    tmpDir = childTmpDir;
    try {
      // The hanging server (and the reference server behind it) is up and the client run has started.
      await waitForRoles(dirs.pidDir, roles, 90_000);
      child.kill('SIGINT');
      exitedInTime = await Promise.race([
        child.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 30_000).unref()),
      ]);
      pids = recordedPids(dirs.pidDir);
      survivors = await survivorsAfter(pids, GONE_MS);
      leftover = leftoverRunDirs(tmpDir);
    } finally {
      child.kill('SIGKILL'); // no-op once it exited
      await child.catch(() => undefined);
      killRecorded([...recordedPids(dirs.pidDir).keys()]); // hygiene only: survivors are recorded above
    }
  }, 150_000);
  afterAll(() => {
    if (dirs) removeChildRun(dirs);
  });

  test('vitest exits and no recorded process survives', () => {
    expect(exitedInTime, 'the child vitest did not exit within 30 s of SIGINT').toBe(true);
    expect(new Set(pids.values())).toEqual(new Set(roles));
    expect(survivors, `processes still alive ${GONE_MS} ms after the interrupted vitest exited`).toEqual([]);
  });

  test('no ahp-core-* temp dir is left', () => {
    expect(leftover, `temp dirs left in the child's TMPDIR ${tmpDir}`).toEqual([]);
  });
});
