// The catalogue machinery against lying catalogue adapters (fixtures/lying-catalogue-*/): the REAL
// `catalogue` vitest project runs once as a child process against a JSON config, and we assert on
// vitest's JSON reporter output that each lie — every upstream negative self-test of
// CATALOGUE-RULES §7 ("Reject"), told by a real adapter, plus a client that discovers twice and the
// classic liar that copies `expected` — fails exactly the rows it touches with the verbatim label(s)
// of the check that catches it (§6) and the party it charges, while every other row of the group
// passes (and a client that dies without a report at its first raw row fails every row with a
// message that names where it stopped); that the honest pairing passes the same rows; that every process the liars recorded is
// gone afterwards; and that the run left no `ahp-catalogue-*` temp dir behind.
//
// Each liar is the REAL reference lifecycle client or server in the catalogue suite with the one
// module that tells the lie swapped (fixtures/lying-lifecycle-common/lie.mjs): receivers pair with the
// reference client, clients with the reference receiver, over http and stdio. A catalogue group runs
// its whole scenario file, so the child's file is a small subset of fixtures/catalogue-scenarios.json
// chosen so that every lie has a row to touch and rows it must leave alone.

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { fixtureAdapter, referenceAdapter, removeChildRun, HONEST_WATCHDOGS } from './support/child-vitest-run.ts';
import { completeChildRun, expectClean, GONE_MS, type CompletedRun } from './support/completed-child-run.ts';
import { allRows, expectRows, type Failing } from './support/expect-labelled-rows.ts';
import { groupRows } from './support/vitest-json-report.ts';

/** Bound for the whole child vitest run (boot + globalSetup + every group + teardown). */
const CHILD_TIMEOUT_MS = 150_000;
const WATCHDOGS = HONEST_WATCHDOGS;
const BOTH = ['http', 'stdio'] as const;

// In file order. The first notify row is what the source-altering client changes; three rows expect a
// rejection (schema, cross-row lineage, self-parent), which the hiding receiver leaves out; the
// registration rows are the first one (reported as `accepted: 1`), the `ask` row the lenient client
// accepts, and a last row the omitting client leaves out. No registration here needs the manifest's
// last event (file.changed), so the receiver that drops it changes no registration outcome.
const FIRST = 'event:tool.before';
const SCHEMA_REJECTED = 'execution:model-error-without-error';
const LINEAGE_PARENT = 'lineage:task-applied-differently';
const LINEAGE_REJECTED = 'lineage:known-parent-other-task';
const SELF_PARENT = 'lineage:self-parent';
const FIRST_REGISTRATION = 'registration:observe-tool-after';
const ASK = 'registration:ask-without-user';
const LAST = 'registration:managed-scope';
const ROWS = [FIRST, SCHEMA_REJECTED, LINEAGE_PARENT, LINEAGE_REJECTED, SELF_PARENT, FIRST_REGISTRATION, ASK, LAST] as const;
/** The rows that send something: the only ones with receiver evidence. */
const SENDING = [FIRST, SCHEMA_REJECTED, LINEAGE_PARENT, LINEAGE_REJECTED, SELF_PARENT] as const;

const SERVER_LIES = ['records-nothing', 'hides-rejections', 'extra-view', 'drops-last-event'];
const CLIENT_LIES = [
  'omits-last-result',
  'duplicates-first-result',
  'exits-1',
  'ask-accepted',
  'empty-discovery-events',
  'alters-source',
  'accepted-one',
  'discovers-twice',
  'copies-expected',
  'dies-at-raw-row',
];

const L = {
  exit1: 'client exit 1', // (1)
  wrongReport: 'wrong report language/type', // (2)
  resultIds: 'result IDs must match exactly once', // (4)
  mismatch: (id: string) => `${id}: actual wire/registration result mismatch`, // (5)
  discoveryCount: 'exactly one real discovery required', // (7)
  discoveryDiffers: 'client discovery differs from actual response', // (9)
  notAdvertised: 'catalogue observation support not advertised', // (11)
  evidence: 'exact actual receiver delivery/rejection evidence mismatch', // (13)
};

/** How the runner words a run failure (every row fails with it) and a row's own finding, with the party charged. */
const runCharge = (label: string, party: string): string => `[${label}] (${party}) `;
const rowCharge = (label: string, party: string): string => `[${label}] ${party} fault: `;

describe('lying catalogue adapters (one catalogue run: receivers with the reference client, clients with the reference receiver, over http and stdio)', () => {
  const run = {} as CompletedRun;
  beforeAll(async () => {
    Object.assign(
      run,
      await completeChildRun({
        name: 'lying-catalogue',
        project: 'catalogue',
        config: {
          adapters: [
            referenceAdapter(),
            ...SERVER_LIES.map((lie) => fixtureAdapter(`lying-catalogue-server-${lie}`, `server-${lie}`)),
            ...CLIENT_LIES.map((lie) => fixtureAdapter(`lying-catalogue-client-${lie}`, `client-${lie}`)),
          ],
          pairings: [
            { server: 'reference', client: 'reference' },
            ...SERVER_LIES.map((lie) => ({ server: `server-${lie}`, client: 'reference' })),
            ...CLIENT_LIES.map((lie) => ({ server: 'reference', client: `client-${lie}` })),
          ],
          transports: [...BOTH],
          watchdogs: WATCHDOGS,
          catalogueScenarioIds: ROWS,
        },
        timeoutMs: CHILD_TIMEOUT_MS,
        // Only the matrix rows (`<server>→<client> …`): the receiver probes have their own self-test.
        options: { args: ['-t', '→'] },
        runDirPrefix: 'ahp-catalogue-',
      }),
    );
  }, CHILD_TIMEOUT_MS + GONE_MS + 10_000);
  afterAll(() => {
    if (run.dirs) removeChildRun(run.dirs);
  });

  test('no recorded process survives the run and no ahp-catalogue-* temp dir is left', () => {
    expectClean(run, [...SERVER_LIES.map((lie) => `server-${lie}`), ...CLIENT_LIES.map((lie) => `client-${lie}`)], CHILD_TIMEOUT_MS);
  });

  test.for(BOTH)('%s: the honest pairing passes every row of the same file (what fails below is the lies, not the file)', (transport) => {
    expectRows(run, `reference→reference ${transport}/none`, ROWS, {});
  });

  describe('lying receivers', () => {
    test.for(BOTH)('%s: receipts with no entries fail the one-discovery check on every row, and the evidence of every row that sends', (transport) => {
      const failing: Record<string, Failing> = allRows(ROWS, { labels: [L.discoveryCount], needles: [runCharge(L.discoveryCount, 'client or server'), 'the receiver recorded no discovery exchange'] });
      for (const id of SENDING) {
        failing[id] = { labels: [L.discoveryCount, L.evidence], needles: [rowCharge(L.evidence, 'client or server'), 'the receiver recorded nothing for sent[0] of this row'] };
      }
      expectRows(run, `server-records-nothing→reference ${transport}/none`, ROWS, failing);
    });

    test.for(BOTH)('%s: receipts without their rejected entries fail exactly the rows that expect a rejection', (transport) => {
      const hidden = (kind: string): Failing => ({
        labels: [L.evidence],
        needles: [rowCharge(L.evidence, 'client or server'), `the receiver recorded nothing for sent[0] of this row (expected rejected (${kind})`],
      });
      expectRows(run, `server-hides-rejections→reference ${transport}/none`, ROWS, {
        [SCHEMA_REJECTED]: hidden('schema'),
        [LINEAGE_REJECTED]: hidden('lineage'),
        [SELF_PARENT]: hidden('lineage'),
      });
    });

    test.for(BOTH)('%s: an extra {kind:"view"} entry is owned by no row, so it fails the run', (transport) => {
      expectRows(
        run,
        `server-extra-view→reference ${transport}/none`,
        ROWS,
        allRows(ROWS, { labels: [L.evidence], needles: [runCharge(L.evidence, 'client or server'), '(view of event null) that no expected entry accounts for'] }),
      );
    });

    test.for(BOTH)('%s: a manifest without its last event fails the run, charged to the server', (transport) => {
      expectRows(
        run,
        `server-drops-last-event→reference ${transport}/none`,
        ROWS,
        allRows(ROWS, { labels: [L.notAdvertised], needles: [`${runCharge(L.notAdvertised, 'server')}the manifest does not advertise observation of file.changed`] }),
      );
    });
  });

  describe('lying clients', () => {
    test.for(BOTH)('%s: a report without the last row\'s result fails exactly that row, on the id count and the result', (transport) => {
      expectRows(run, `reference→client-omits-last-result ${transport}/none`, ROWS, {
        [LAST]: { labels: [L.resultIds, L.mismatch(LAST)], needles: [`${rowCharge(L.resultIds, 'client')}the report has no result for this row`, rowCharge(L.mismatch(LAST), 'client')] },
      });
    });

    test.for(BOTH)('%s: the first result reported twice fails exactly the first row, on the id count only', (transport) => {
      expectRows(run, `reference→client-duplicates-first-result ${transport}/none`, ROWS, {
        [FIRST]: { labels: [L.resultIds], needles: [`${rowCharge(L.resultIds, 'client')}the report has 2 results for this row (results[0], results[1])`] },
      });
    });

    test.for(BOTH)('%s: exit 1 after an otherwise honest run fails every row, charged to the client', (transport) => {
      expectRows(run, `reference→client-exits-1 ${transport}/none`, ROWS, allRows(ROWS, { labels: [L.exit1], needles: [`${runCharge(L.exit1, 'client')}the client exited 1`] }));
    });

    test.for(BOTH)('%s: a client that dies without a report at its first raw row fails every row, and each message names where it stopped', (transport) => {
      const where =
        transport === 'http'
          ? `it stopped on or after row "${SCHEMA_REJECTED}" (row 2 of ${ROWS.length}): the last request server "reference" saw was hooks/observe with event id`
          : "the row it stopped on is unknown: over stdio the receiver's receipt log travels in the report, so the harness saw no request";
      expectRows(run, `reference→client-dies-at-raw-row ${transport}/none`, ROWS, allRows(ROWS, {
        labels: ['report/missing', L.exit1, L.wrongReport],
        needles: [
          `${runCharge('report/missing', 'client')}report: catalogue client "client-dies-at-raw-row"`,
          where,
          ...(transport === 'http' ? [`which belongs to that row; the next row in its file is "${LINEAGE_PARENT}"`] : []),
          "| KeyError: 'outcome'",
          '| debug: upload credential [redacted secret]',
        ],
      }));
      for (const row of groupRows(run.rows, `reference→client-dies-at-raw-row ${transport}/none`)) expect(row.failureMessages.join('\n')).not.toContain('TEST-ONLY-');
    });

    test.for(BOTH)('%s: accepting a registration that needs `ask` without anyone to ask fails exactly that row', (transport) => {
      expectRows(run, `reference→client-ask-accepted ${transport}/none`, ROWS, {
        [ASK]: { labels: [L.mismatch(ASK)], needles: [`${rowCharge(L.mismatch(ASK), 'client')}results[6].actual differs from expected without deliveries: changed registrations[0].accepted from false to true`] },
      });
    });

    test.for(BOTH)('%s: a reported discovery with `events: []` differs from the recorded response: the run fails', (transport) => {
      expectRows(
        run,
        `reference→client-empty-discovery-events ${transport}/none`,
        ROWS,
        allRows(ROWS, { labels: [L.discoveryDiffers], needles: [`${runCharge(L.discoveryDiffers, 'client or server')}report.discovery differs from the response the receiver recorded at entries[0]: removed result.manifest.events[0]`] }),
      );
    });

    // The client reports the message it really sent, so its own result differs from the fixture (5,
    // its fault alone), and the receiver recorded that altered message (13). Nothing later names the
    // altered event as a parent, so no other row is touched.
    test.for(BOTH)('%s: the first observed message sent with source urn:changed fails exactly its row, on the result and the evidence', (transport) => {
      expectRows(run, `reference→client-alters-source ${transport}/none`, ROWS, {
        [FIRST]: {
          labels: [L.mismatch(FIRST), L.evidence],
          needles: [
            `${rowCharge(L.mismatch(FIRST), 'client')}results[0].actual differs from expected without deliveries: changed sent[0].params.event.source from "urn:ahp-conformance:catalogue-host" to "urn:changed"`,
            `${rowCharge(L.evidence, 'client or server')}delivery entry 1 of 6 expected: entries[1] is not the expected observed of event "event:tool.before/event"`,
            'changed message.params.event.source from "urn:ahp-conformance:catalogue-host" to "urn:changed"',
          ],
        },
      });
    });

    test.for(BOTH)('%s: the first registration reported as `accepted: 1` fails exactly that row', (transport) => {
      expectRows(run, `reference→client-accepted-one ${transport}/none`, ROWS, {
        [FIRST_REGISTRATION]: { labels: [L.mismatch(FIRST_REGISTRATION)], needles: [`${rowCharge(L.mismatch(FIRST_REGISTRATION), 'client')}results[5].actual differs from expected without deliveries: changed registrations[0].accepted from true to 1`] },
      });
    });

    test.for(BOTH)('%s: a second discovery (one per SDK instance) fails the run', (transport) => {
      expectRows(
        run,
        `reference→client-discovers-twice ${transport}/none`,
        ROWS,
        allRows(ROWS, { labels: [L.discoveryCount], needles: [`${runCharge(L.discoveryCount, 'client or server')}the receiver recorded 2 discovery exchanges (entries[0], entries[1])`] }),
      );
    });

    // Registration outcomes never touch the wire (§5.1), so copied ones are indistinguishable from
    // evaluated ones: the registration rows pass. Every row that should have sent something fails.
    test.for(BOTH)('%s: expected copied into actual without sending fails every row that sends, on its evidence', (transport) => {
      expectRows(
        run,
        `reference→client-copies-expected ${transport}/none`,
        ROWS,
        allRows(SENDING, { labels: [L.evidence], needles: [rowCharge(L.evidence, 'client or server'), 'the receiver recorded nothing for sent[0] of this row'] }),
      );
    });
  });
});
