// The sender-isolation machinery against lying senders (fixtures/lying-sender-*/): the REAL
// `isolation` vitest project runs once as a child process with every liar as an adapter (each paired
// with itself, its lifecycle server the honest reference one), and we assert on vitest's JSON
// reporter output and on the child's reports/isolation.json that each lie fails exactly the cases it
// touches with the verbatim labels of SENDER-ISOLATION-RULES §6 — each charged to the client — and
// is never credited with credential isolation, while the honest cases of the same run pass and are
// credited; that every process the fixtures recorded is gone afterwards; and that the run left no
// `ahp-isolation-*` temp dir behind.
//
// Each liar is the REAL reference lifecycle client with the one module that tells the lie swapped
// (a seam; see fixtures/lying-lifecycle-common/lie.mjs). Six cases per adapter would cost too much
// here, so `-t` selects only the cases each lie needs.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { STATIC_BEARER, UPLOAD_TOKEN } from '../../harness/auth/constants.ts';
import { LABELS } from '../../harness/families/isolation/verify-isolation.ts';
import { ISOLATION_CASES } from '../../harness/families/isolation/isolation-cases.ts';
import { fixtureAdapter, referenceAdapter, removeChildRun, HONEST_WATCHDOGS } from './support/child-vitest-run.ts';
import { completeChildRun, expectClean, GONE_MS, type CompletedRun } from './support/completed-child-run.ts';
import { groupRows } from './support/vitest-json-report.ts';

/** Bound for the whole child vitest run (boot + globalSetup + the cases + teardown). */
const CHILD_TIMEOUT_MS = 150_000;
const WATCHDOGS = HONEST_WATCHDOGS;
const ROW = 'sender-isolation';

type Case = 'http/bearer' | 'http/oauth' | 'http/workload' | 'http/mtls' | 'http/none' | 'stdio/none';
const CREDENTIALED: Case[] = ['http/bearer', 'http/oauth', 'http/workload'];

/** The lies (fixture `lying-sender-<lie>`, adapter `sender-<lie>`) and the cases each runs. */
const LIES: Record<string, Case[]> = {
  'event-auth': [...CREDENTIALED, 'http/mtls', 'http/none'],
  'env-token': ['http/none', 'stdio/none'],
  twice: ['http/none'],
  cookie: ['http/none'],
  'ahp-headers': ['http/none'],
  chunked: ['http/none'],
  'upper-hash': ['http/none'],
  'base64-body': ['http/none'],
  'appends-route': ['http/none'],
  'claims-201': ['http/none'],
  'reports-204': ['http/none'],
  'own-server': ['stdio/none'],
  'no-results': ['http/none'],
};
/** The honest reference sender in the same run: a credentialed case and the stdio control. */
const HONEST: Case[] = ['http/bearer', 'stdio/none'];

const SELECTED: Array<[adapter: string, cases: Case[]]> = [['reference', HONEST], ...Object.entries(LIES).map(([lie, cases]): [string, Case[]] => [`sender-${lie}`, cases])];

const groupOf = (adapter: string, which: Case): string => `${adapter}→${adapter} ${which}`;
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** vitest's `-t` matches a test's full name (`… <group> <row>`): exactly the selected groups' rows. */
const SELECTION = `(?:^| )(?:${SELECTED.flatMap(([adapter, cases]) => cases.map((which) => escape(groupOf(adapter, which)))).join('|')}) ${ROW}$`;

/** One case's row of the child's reports/isolation.json (SENDER-ISOLATION-RULES §7). */
interface IsolationResult {
  group: string;
  passed: boolean;
  independentUploads: number;
  credentialIsolationVerified: boolean;
  errors: string[];
}

const run = {} as CompletedRun;
let isolationJson: IsolationResult[] = [];

beforeAll(async () => {
  Object.assign(
    run,
    await completeChildRun({
      name: 'lying-senders',
      project: 'isolation',
      config: {
        adapters: [referenceAdapter(), ...Object.keys(LIES).map((lie) => fixtureAdapter(`lying-sender-${lie}`, `sender-${lie}`))],
        transports: ['http', 'stdio'],
        watchdogs: WATCHDOGS,
      },
      timeoutMs: CHILD_TIMEOUT_MS,
      options: { args: ['-t', SELECTION] },
      runDirPrefix: 'ahp-isolation-',
    }),
  );
  try {
    isolationJson = (JSON.parse(readFileSync(path.join(run.dirs.reportsDir, 'isolation.json'), 'utf8')) as { results: IsolationResult[] }).results;
  } catch {
    // asserted by the tests, with the child's output
  }
}, CHILD_TIMEOUT_MS + GONE_MS + 10_000);

afterAll(() => {
  if (run.dirs) removeChildRun(run.dirs);
});

/** What a lying case must show: exactly these labels, each `[label] (client)`, the needles, and its upload count. */
interface Caught {
  labels: string[];
  needles: string[];
  independentUploads: number;
}

/** The one row of the case: failing exactly as `caught` says (charged to the client), or passing; and its isolation.json row. */
function expectCase(adapter: string, which: Case, caught: Caught | 'passes'): void {
  expect(run.rows.length, `the child wrote no JSON report rows; its output:\n${run.output.slice(-4000)}`).toBeGreaterThan(0);
  const group = groupOf(adapter, which);
  const rows = groupRows(run.rows, group);
  expect(rows.map((row) => row.title), `rows of ${group}`).toEqual([ROW]);
  const row = rows[0]!;
  const message = row.failureMessages.join('\n');
  const [transport, auth] = which.split('/');
  const reported = isolationJson.find((result) => result.group === `${adapter}->${adapter}/${transport}/${auth}`);
  expect(reported, `reports/isolation.json has no row for ${group}`).toBeDefined();
  if (caught === 'passes') {
    expect(row.status, `${group} should pass; it failed with:\n${message}`).toBe('passed');
    expect(reported).toMatchObject({ passed: true, independentUploads: 1, credentialIsolationVerified: true });
    return;
  }
  expect(row.status, `${group} should fail`).toBe('failed');
  expect(new Set(row.meta?.ahpMatrix?.errors ?? []), `${group}: its labels; the message:\n${message}`).toEqual(new Set(caught.labels));
  for (const needle of [...caught.labels.map((label) => `[${label}] (client)`), ...caught.needles]) {
    expect(message, `${group}: the failure message should contain ${JSON.stringify(needle)}`).toContain(needle);
  }
  expect(reported).toMatchObject({ passed: false, independentUploads: caught.independentUploads, credentialIsolationVerified: false });
  expect(new Set(reported!.errors), `${group}: the labels reports/isolation.json carries`).toEqual(new Set(caught.labels));
}

/**
 * An upload the origin captured and then refused (400): the capture differs from the clean one (the
 * offending field, and no descriptor), a refused capture has no receiver-assigned descriptor, and the
 * sender truthfully reports the 400 it got instead of a 201.
 */
const REFUSED = [LABELS.capture, LABELS.descriptor, LABELS.confirmed];

describe('lying senders (one isolation run: each liar as sender against its own honest reference server)', () => {
  test('no recorded process survives the run, no ahp-isolation-* temp dir is left, and only the selected cases ran', () => {
    expectClean(
      run,
      Object.keys(LIES).flatMap((lie) => [`sender-${lie}`, `sender-${lie}-server`]),
      CHILD_TIMEOUT_MS,
    );
    const ran = run.rows.filter((row) => row.status !== 'skipped').map((row) => row.ancestorTitles.at(-1));
    expect(new Set(ran)).toEqual(new Set(SELECTED.flatMap(([adapter, cases]) => cases.map((which) => groupOf(adapter, which)))));
  });

  test('no credential the liars sent shows in the failure messages, the child output, the reports or the kept logs', () => {
    const files = readdirSync(run.dirs.reportsDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    expect(files.map((entry) => entry.name)).toContain('client.log'); // the failing cases kept their logs
    const texts = [run.output, ...run.rows.flatMap((row) => row.failureMessages), ...files.map((entry) => readFileSync(path.join(entry.parentPath, entry.name), 'utf8'))];
    for (const text of texts) {
      for (const secret of [STATIC_BEARER, UPLOAD_TOKEN, 'TEST-ONLY-sender-session', 'VEVTVC1PTkxZOnByb3h5']) expect(text).not.toContain(secret);
      expect(text, 'an OAuth access token or workload assertion (a JWT)').not.toMatch(/eyJ[\w-]+\.eyJ[\w-]+\./);
    }
  });

  test("isolation.json lists the cases in the planner's order (adapter by adapter, the fixed case order), whatever the config's auth modes", () => {
    const planned = ['reference', ...Object.keys(LIES).map((lie) => `sender-${lie}`)].flatMap((adapter) =>
      ISOLATION_CASES.map(({ transport, auth }) => `${adapter}->${adapter}/${transport}/${auth}`),
    );
    const reported = isolationJson.map((row) => row.group);
    expect(reported.length, run.output.slice(-3000)).toBeGreaterThan(0);
    expect(reported).toEqual(planned.filter((group) => reported.includes(group)));
  });

  test.for(HONEST)('the honest reference sender passes %s and is credited', (which) => {
    expectCase('reference', which, 'passes');
  });

  test.for(CREDENTIALED)('%s: a sender that copies the event Authorization onto its upload fails, its capture naming the header', (which) => {
    expectCase('sender-event-auth', which, { labels: REFUSED, needles: ['sensitive headers [authorization]', 'refused 400', 'reports uploadStatuses [400]'], independentUploads: 1 });
  });

  test.for(['http/mtls', 'http/none'] as const)('%s: the same sender has no event header to copy there, so it passes', (which) => {
    expectCase('sender-event-auth', which, 'passes');
  });

  test.for(LIES['env-token']!)('%s: a sender that falls back to the environment upload token fails', (which) => {
    expectCase('sender-env-token', which, { labels: REFUSED, needles: ['sensitive headers [authorization]'], independentUploads: 1 });
  });

  test('two clean POSTs fail on the count alone', () => {
    expectCase('sender-twice', 'http/none', { labels: [LABELS.count], needles: ['capture 1: /capture, 274 bytes', 'capture 2: /capture, 274 bytes', 'answered 201'], independentUploads: 2 });
  });

  test('Cookie and Proxy-Authorization are captured by name and refused', () => {
    expectCase('sender-cookie', 'http/none', { labels: REFUSED, needles: ['sensitive headers [cookie, proxy-authorization]'], independentUploads: 1 });
  });

  test('AHP-Subscription and AHP-Content-Ref on the upload are captured and refused', () => {
    expectCase('sender-ahp-headers', 'http/none', { labels: REFUSED, needles: ['subscription set, ref set'], independentUploads: 1 });
  });

  test('a chunked body is refused before capture: nothing captured, nothing confirmed', () => {
    expectCase('sender-chunked', 'http/none', {
      labels: [LABELS.count, LABELS.confirmed],
      needles: ['the independent upload origin received no upload', 'reports uploadStatuses [400]'],
      independentUploads: 0,
    });
  });

  test('an upper-case AHP-Content-SHA256 is refused: the right octets under a non-matching hash', () => {
    expectCase('sender-upper-hash', 'http/none', { labels: REFUSED, needles: ['capture 1: /capture, 274 bytes', 'hash not matching'], independentUploads: 1 });
  });

  test('a base64-encoded body is refused: other octets than the 274 raw ones', () => {
    expectCase('sender-base64-body', 'http/none', { labels: REFUSED, needles: ['capture 1: /capture, 368 bytes', 'hash not matching'], independentUploads: 1 });
  });

  test('a route appended to the configured URL is answered 201 and still fails on the capture', () => {
    expectCase('sender-appends-route', 'http/none', { labels: [LABELS.capture], needles: ['capture 1: /capture/upload, 274 bytes', 'answered 201'], independentUploads: 1 });
  });

  test('reporting 201 without uploading fails on the count (§9 f)', () => {
    expectCase('sender-claims-201', 'http/none', { labels: [LABELS.count], needles: ['the independent upload origin received no upload'], independentUploads: 0 });
  });

  test('a clean upload reported as 204 is not confirmed (§9 e)', () => {
    expectCase('sender-reports-204', 'http/none', { labels: [LABELS.confirmed], needles: ['reports uploadStatuses [204], expected [201]'], independentUploads: 1 });
  });

  test("stdio: also uploading to its own server's uploadEndpoint fails the event path, charged to the sender", () => {
    expectCase('sender-own-server', 'stdio/none', {
      labels: ['upload multiplicity mismatch'],
      needles: ['1 upload receipt(s) not consumed', "the sender also uploaded to its own server's uploadEndpoint"],
      independentUploads: 1,
    });
  });

  test('results keyed by id instead of listed: no client result, and no event verification', () => {
    expectCase('sender-no-results', 'http/none', { labels: [LABELS.result], needles: ['the report is not an object with a results list'], independentUploads: 1 });
  });
});
