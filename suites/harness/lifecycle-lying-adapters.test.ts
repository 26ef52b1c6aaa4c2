// The lifecycle machinery against lying lifecycle adapters (fixtures/lying-lifecycle-*/): the REAL
// `lifecycle` vitest project runs as a child process against a JSON config, and we assert on vitest's
// JSON reporter output that each lie fails exactly the rows it touches — with the verbatim label of
// the check that catches it (LIFECYCLE-RULES §7, §10), asserted exactly through each row's recorded
// labels — while every other row of the same group passes; that every process the fakes recorded is
// gone afterwards; and that the run left no `ahp-lifecycle-*` temp dir behind.
//
// Most liars are the REAL reference lifecycle adapter with the one module that tells the lie swapped
// (a seam; see fixtures/lying-lifecycle-common/lie.mjs). The runner's own cleanup self-tests (§11
// "Runner") use cheap fakes that only do what a broken adapter does with its processes and files
// (fixtures/lying-lifecycle-common/fake-client.mjs, fake-server.mjs).

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { fixtureAdapter, referenceAdapter, removeChildRun, type ChildConfig, type ChildRunOptions, HONEST_WATCHDOGS } from './support/child-vitest-run.ts';
import { completeChildRun, expectClean, GONE_MS, type CompletedRun } from './support/completed-child-run.ts';
import { allRows, expectRows, type Failing } from './support/expect-labelled-rows.ts';
import { groupRows } from './support/vitest-json-report.ts';

/** Bound for one whole child vitest run (boot + globalSetup + the group runs + teardown); they run side by side. */
const CHILD_TIMEOUT_MS = 150_000;
/** Only the matrix rows (`<server>→<client> …`): the receiver probes are not what these runs test. */
const MATRIX_ROWS_ONLY = ['-t', '→'];
const WATCHDOGS = HONEST_WATCHDOGS;

/** Each describe's child run, by describe title: started together, awaited by their own describe. */
const starters = new Map<string, () => Promise<CompletedRun>>();
const started = new Map<string, Promise<CompletedRun>>();

function start(title: string): Promise<CompletedRun> {
  let run = started.get(title);
  if (run === undefined) {
    run = starters.get(title)!();
    run.catch(() => undefined); // awaited (and reported) by the describe's own beforeAll
    started.set(title, run);
  }
  return run;
}

// The child runs of every describe with a selected test start at once: the cheap one mostly waits
// on watchdogs and graces while the others work, and each describe then awaits its own.
// eslint-disable-next-line no-empty-pattern -- vitest requires a destructuring pattern for fixtures
beforeAll(({}, file) => {
  for (const suite of (file as unknown as { tasks?: SuiteLike[] }).tasks ?? []) {
    if (suite.type === 'suite' && starters.has(suite.name) && (suite.tasks ?? []).some((task) => task.mode === 'run')) void start(suite.name);
  }
});

interface SuiteLike {
  name: string;
  type: string;
  mode: string;
  tasks?: SuiteLike[];
}

/**
 * The lifecycle run of the describe titled `title` (call it inside that describe): filled by its
 * beforeAll, its folder removed in afterAll.
 */
function lifecycleRun(title: string, name: string, config: ChildConfig, options: ChildRunOptions = {}): CompletedRun {
  starters.set(title, () =>
    completeChildRun({ name, project: 'lifecycle', config, timeoutMs: CHILD_TIMEOUT_MS, options: { ...options, args: MATRIX_ROWS_ONLY }, runDirPrefix: 'ahp-lifecycle-' }),
  );
  const run = {} as CompletedRun;
  beforeAll(async () => {
    Object.assign(run, await start(title));
  }, CHILD_TIMEOUT_MS + GONE_MS + 10_000);
  afterAll(() => {
    if (run.dirs) removeChildRun(run.dirs);
  });
  return run;
}

/** The recorded processes of `role` still alive after the run (`pid (role)`). */
function survivorsOf(run: CompletedRun, role: string): string[] {
  return run.survivors.filter((survivor) => survivor.endsWith(` (${role})`));
}

const BOTH = ['http', 'stdio'] as const;

const CLIENTS = 'lying lifecycle clients (one lifecycle run: each against the reference receiver over http and stdio)';
describe(CLIENTS, () => {
  const ROWS = [
    'cancel.held-before-reply',
    'cancel.staged-before-acceptance',
    'observe.cancelled-while-held',
    'observe.denied-boundary',
    'content.intercept-body-after-upload',
  ] as const;
  const liars = ['no-receipts', 'late-cancel-mark', 'early-observation', 'copies-expected', 'bad-child-json'];
  const run = lifecycleRun(CLIENTS, 'lying-clients', {
    adapters: [referenceAdapter(), ...liars.map((lie) => fixtureAdapter(`lying-lifecycle-client-${lie}`, `client-${lie}`))],
    pairings: liars.map((lie) => ({ server: 'reference', client: `client-${lie}` })),
    transports: [...BOTH],
    watchdogs: WATCHDOGS,
    lifecycleScenarioIds: ROWS,
  });

  test('no recorded process survives the run and no ahp-lifecycle-* temp dir is left', () => {
    expectClean(
      run,
      liars.map((lie) => `client-${lie}`),
      CHILD_TIMEOUT_MS,
    );
  });

  test('a success-shaped stdio report whose receipts are {} fails every row; over http the receiver is asked, so it passes', () => {
    expectRows(run, 'reference→client-no-receipts http/none', ROWS, {});
    expectRows(
      run,
      'reference→client-no-receipts stdio/none',
      ROWS,
      allRows(ROWS, { labels: ['missing/malformed receiver receipts'], needles: ['receipts.entries is nothing (missing), expected an array (report.receipts, forwarded by the stdio client)'] }),
    );
  });

  test.for(BOTH)('%s: a cancelled mark recorded after the reply it precedes fails exactly the rows that cancel before the reply', (transport) => {
    expectRows(run, `reference→client-late-cancel-mark ${transport}/none`, ROWS, {
      'cancel.held-before-reply': { labels: ['cancel/reply barrier order violated'], needles: ['must precede the first reply'] },
      // Its observation goes out after the cancel step, so it now also precedes the (late) mark.
      'observe.cancelled-while-held': {
        labels: ['cancel/reply barrier order violated', 'observation before settlement', 'observation dispatched before planned cancellation'],
      },
    });
  });

  test.for(BOTH)('%s: an observation sent before the acceptance that settles it fails exactly that row', (transport) => {
    expectRows(run, `reference→client-early-observation ${transport}/none`, ROWS, {
      'observe.denied-boundary': { labels: ['observation before settlement'], needles: ['precedes every accepted/cancelled mark'] },
    });
  });

  test.for(BOTH)('%s: expected copied into actual without touching the wire fails every row it skipped, on multiplicity', (transport) => {
    const skipped = ROWS.filter((id) => id !== 'content.intercept-body-after-upload');
    const failing = Object.fromEntries(
      skipped.map((id) => {
        const row = (labels: string[]): [string, Failing] => [id, { labels: ['received: exact attempt multiplicity mismatch', 'replied: exact attempt multiplicity mismatch', ...labels] }];
        // Beyond the attempts, each row misses exactly the marks and observations it obliges.
        if (id === 'cancel.held-before-reply') return row(['cancelled: milestone mismatch']);
        if (id === 'cancel.staged-before-acceptance') return row(['cancelled: milestone mismatch', 'acquired: control proof mismatch']);
        if (id === 'observe.cancelled-while-held') return row(['cancelled: milestone mismatch', 'settled observation payload/identity/subscription mismatch']);
        return row(['accepted: milestone mismatch', 'acquired: control proof mismatch', 'settled observation payload/identity/subscription mismatch']);
      }),
    );
    expectRows(run, `reference→client-copies-expected ${transport}/none`, ROWS, failing);
  });

  test('stdio: a malformed child pid file fails every row even though verification passes; http has none to write', () => {
    expectRows(
      run,
      'reference→client-bad-child-json stdio/none',
      ROWS,
      allRows(ROWS, { labels: ['run/cleanup'], needles: ['[run/cleanup] (client) run: cleanup metadata child.json: not valid JSON'] }),
    );
    for (const row of groupRows(run.rows, 'reference→client-bad-child-json stdio/none')) {
      expect(row.failureMessages.join('\n'), `${row.fullName}: the verifier found nothing of its own`).not.toContain("this row's own findings");
    }
    expectRows(run, 'reference→client-bad-child-json http/none', ROWS, {});
  });
});

const SERVERS = 'lying lifecycle receivers (one lifecycle run: each with the reference client over http and stdio)';
describe(SERVERS, () => {
  // The first row's first intercept is the one the reply-before-receipt receiver lies about.
  const ROWS = ['observe.denied-boundary', 'upload.one-byte-change-new-ref', 'content.intercept-body-after-upload'] as const;
  const liars = ['reply-before-receipt', 'reused-ref', 'leaves-process'];
  const run = lifecycleRun(SERVERS, 'lying-servers', {
    adapters: [
      referenceAdapter(),
      ...[...liars, 'lax-refs'].map((lie) => fixtureAdapter(`lying-lifecycle-server-${lie}`, `server-${lie}`)),
      fixtureAdapter('lying-lifecycle-client-body-before-upload', 'client-body-before-upload'),
    ],
    pairings: [...liars.map((lie) => ({ server: `server-${lie}`, client: 'reference' })), { server: 'server-lax-refs', client: 'client-body-before-upload' }],
    transports: [...BOTH],
    watchdogs: WATCHDOGS,
    lifecycleScenarioIds: ROWS,
  });

  test('no recorded process survives the run (the escaped grandchildren included) and no ahp-lifecycle-* temp dir is left', () => {
    const roles = ['server-reply-before-receipt', 'server-reused-ref', 'server-leaves-process', 'server-leaves-process-grandchild', 'server-lax-refs', 'client-body-before-upload'];
    expectClean(run, roles, CHILD_TIMEOUT_MS);
  });

  test.for(BOTH)('%s: a reply recorded before its receipt fails exactly that row, naming the request id', (transport) => {
    expectRows(run, `server-reply-before-receipt→reference ${transport}/none`, ROWS, {
      'observe.denied-boundary': { labels: ['observe.denied-boundary:a: reply before receipt'], needles: ['server fault', 'reply 1 (entries[0] replied'] },
    });
  });

  test.for(BOTH)('%s: one receiver ref for changed bytes fails exactly the row that uploads them', (transport) => {
    expectRows(run, `server-reused-ref→reference ${transport}/none`, ROWS, {
      'upload.one-byte-change-new-ref': { labels: ['receiver reused immutable reference for changed bytes'], needles: ['server fault', 'alias "sketch-0001"'] },
    });
  });

  test('http: a receiver that leaves a process behind fails every row, charged to the server', () => {
    expectRows(
      run,
      'server-leaves-process→reference http/none',
      ROWS,
      allRows(ROWS, { labels: ['run/leftover-process'], needles: ['[run/leftover-process] (server) run: server "server-leaves-process" left 1 process(es) running after it shut down'] }),
    );
  });

  test('stdio: the same escapee of the spawned receiver fails every row, charged to the client or the server it spawned', () => {
    expectRows(
      run,
      'server-leaves-process→reference stdio/none',
      ROWS,
      allRows(ROWS, { labels: ['run/leftover-process'], needles: ['[run/leftover-process] (client or server)', 'the client (or the stdio server it spawned) left 1 process(es)'] }),
    );
  });

  test.for(BOTH)('%s: bodies dispatched before their upload fail exactly the rows that carry them, even when the receiver does not refuse them', (transport) => {
    expectRows(run, `server-lax-refs→client-body-before-upload ${transport}/none`, ROWS, {
      // The alias goes out as the ref: no receiver ref was bound yet.
      'content.intercept-body-after-upload': {
        labels: ['intercept dispatched before authorized exact upload readiness', 'received canonical request mismatch'],
        needles: ['client fault', 'body ref(s) "intercept-patch" with no earlier 201 upload receipt'],
      },
      'upload.one-byte-change-new-ref': {
        labels: ['body dispatched before authorized exact upload readiness', 'settled observation payload/identity/subscription mismatch'],
        needles: ['client fault', '"sketch-0001", "sketch-0002" with no earlier 201 upload receipt'],
      },
    });
  });
});

const RUNNER = 'the runner cleans up after broken lifecycle adapters (one lifecycle run of cheap fakes, §10 and §11 "Runner")';
describe(RUNNER, () => {
  const ROWS = ['observe.denied-boundary'] as const;
  const clients = ['hangs', 'garbled-report', 'child-json-malformed', 'child-json-empty', 'child-json-pid-true', 'child-json-controller'];
  const readiness = ['ready-json-malformed', 'ready-json-empty', 'ready-json-pid-true'];
  // The hanging client costs one run watchdog. It is sized for the other fakes, which must exit on
  // their own before it: a plain node script took over 5 s to start and exit on a loaded CI machine
  // (two test files at once, nine runs here), so 5 s charged a watchdog to a fake that never hung.
  // The file's other runs take about as long, so the longer watchdog costs little wall.
  const watchdogs = { startupMs: 30_000, runMs: 20_000 };
  // Every client here is a fake that never talks to its receiver, so a cheap stand-in plays the
  // receiver over HTTP (fake-server.mjs idle); nothing in this run starts an SDK process.
  const run = lifecycleRun(
    RUNNER,
    'runner-cleanup',
    {
      adapters: [
        fixtureAdapter('lying-lifecycle-server-idle', 'idle'),
        ...[...clients, 'spawns-server'].map((fake) => fixtureAdapter(`lying-lifecycle-client-${fake}`, `client-${fake}`)),
        ...readiness.map((fake) => fixtureAdapter(`lying-lifecycle-server-${fake}`, `server-${fake}`)),
      ],
      pairings: [
        ...clients.map((fake) => ({ server: 'idle', client: `client-${fake}` })),
        ...readiness.map((fake) => ({ server: `server-${fake}`, client: 'client-spawns-server' })),
      ],
      transports: [...BOTH],
      watchdogs,
      lifecycleScenarioIds: ROWS,
      // Its runs mostly wait (watchdog, graces): more of them at once cost little.
      parallelism: 9,
    },
    // child-json-controller names the child vitest's own process group: should the refusal ever
    // regress, the signal must end that child, not this vitest.
    { ownProcessGroup: true },
  );
  const NO_REPORT = ['report/missing', 'client exit 1', 'wrong report language/type'];

  test('every process the fakes started is gone — registered children reached only through the child pid file too — and no temp dir is left', () => {
    const roles = [
      ...clients.flatMap((fake) => (fake === 'child-json-controller' ? [`client-${fake}`] : [`client-${fake}`, `client-${fake}-child`])),
      'client-spawns-server',
      ...readiness.map((fake) => `server-${fake}`),
      'server-idle',
    ];
    expectClean(run, roles, CHILD_TIMEOUT_MS);
  });

  test.for(BOTH)('%s: a client that times out still has its registered child reaped', (transport) => {
    expectRows(run, `idle→client-hangs ${transport}/none`, ROWS, allRows(ROWS, { labels: ['run/timeout', 'report/missing', 'client exit null', 'wrong report language/type'], needles: [`run watchdog fired after ${watchdogs.runMs} ms`] }));
    expect(survivorsOf(run, 'client-hangs-child'), 'the untagged child, known only from child.json').toEqual([]);
  });

  test.for(BOTH)('%s: a client that writes a malformed report still has its registered child reaped', (transport) => {
    expectRows(run, `idle→client-garbled-report ${transport}/none`, ROWS, allRows(ROWS, { labels: ['report/invalid-json', 'client exit 1', 'wrong report language/type'] }));
    expect(survivorsOf(run, 'client-garbled-report-child'), 'the untagged child, known only from child.json').toEqual([]);
  });

  const badChildJson: Record<string, string> = {
    'child-json-malformed': 'cleanup metadata child.json: not valid JSON',
    'child-json-empty': 'cleanup metadata child.json: field "pid": expected an integer > 1, got null',
    'child-json-pid-true': 'cleanup metadata child.json: field "pid": expected an integer > 1, got true',
  };
  test.for(Object.keys(badChildJson).flatMap((fake) => BOTH.map((transport) => [fake, transport] as const)))(
    '%s over %s: a bad child pid file fails the run, and the direct process and the escaped child are still reaped',
    ([fake, transport]) => {
      expectRows(
        run,
        `idle→client-${fake} ${transport}/none`,
        ROWS,
        allRows(ROWS, { labels: ['run/cleanup', 'run/leftover-process', ...NO_REPORT], needles: [`[run/cleanup] (client) run: ${badChildJson[fake]}`] }),
      );
      expect([...survivorsOf(run, `client-${fake}`), ...survivorsOf(run, `client-${fake}-child`)]).toEqual([]);
    },
  );

  test.for(BOTH)("%s: a child pid file naming the harness's own process group is refused, never signalled", (transport) => {
    expectRows(
      run,
      `idle→client-child-json-controller ${transport}/none`,
      ROWS,
      allRows(ROWS, { labels: ['run/cleanup', ...NO_REPORT], needles: ["[run/cleanup] (client) run: cleanup refused controller process group: child.json names pid", "which leads the harness's own process group"] }),
    );
  });

  const badReadiness: Record<string, { http: Failing; stdio: string }> = {
    'ready-json-malformed': { http: { labels: ['startup/garbled'], needles: ['is not valid JSON'] }, stdio: 'cleanup metadata ready.json: not valid JSON' },
    'ready-json-empty': { http: { labels: ['startup/invalid'], needles: ['controlEndpoint: expected'] }, stdio: 'cleanup metadata ready.json: field "pid": expected an integer > 1, got null' },
    'ready-json-pid-true': { http: { labels: ['startup/invalid'], needles: ['controlEndpoint: expected'] }, stdio: 'cleanup metadata ready.json: field "pid": expected an integer > 1, got true' },
  };
  test.for(readiness)('%s: http fails at startup and the server is reaped; stdio fails the run and the spawned server is reaped', (fake) => {
    const expected = badReadiness[fake]!;
    // A server that never started leaves the client nothing to be charged for.
    expectRows(run, `server-${fake}→client-spawns-server http/none`, ROWS, allRows(ROWS, expected.http));
    expectRows(run, `server-${fake}→client-spawns-server stdio/none`, ROWS, allRows(ROWS, { labels: ['run/cleanup', ...NO_REPORT], needles: [`[run/cleanup] (server) run: ${expected.stdio}`] }));
    expect(survivorsOf(run, `server-${fake}`)).toEqual([]);
  });
});
