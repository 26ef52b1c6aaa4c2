// The catalogue verifier (CATALOGUE-RULES §6) against honest and broken runs of the canonical catalogue
// file and of ours. An honest run passes; every upstream negative self-test of §7 ("Reject", with the
// §6 numbers of the labels it must raise) and the "also observed" cases are their own tests, and so is
// every other check of §6 broken one way at a time. Labels are written out here rather than imported,
// so a typo in the verifier's label table fails.

import { describe, expect, test } from 'vitest';

import type { CatalogueScenario } from '../../harness/families/catalogue/scenario-types.ts';
import { cloneJson, type JsonObject } from '../../harness/protocol/json.ts';
import {
  CANONICAL_ROWS,
  CANONICAL_SKIP,
  OUR_ROWS,
  allLabels,
  catalogueLabels,
  honestCatalogueCase,
  verifyCase,
  type CatalogueCase,
} from './support/catalogue-honest-run.ts';

const L = {
  resultIds: 'result IDs must match exactly once', // (4)
  missingReceipts: 'missing receiver receipts', // (6)
  discoveryCount: 'exactly one real discovery required', // (7)
  discoveryDiffers: 'client discovery differs from actual response', // (9)
  correlation: 'discovery correlation mismatch', // (10)
  notAdvertised: 'catalogue observation support not advertised', // (11)
  hookFailure: 'catalogue fixture requires hook.failure unsupported', // (11)
  scopes: 'catalogue fixture requires user/project scopes only', // (11)
  evidence: 'exact actual receiver delivery/rejection evidence mismatch', // (13)
  mismatch: (id: string) => `${id}: actual wire/registration result mismatch`, // (5)
  notPassed: (id: string) => `${id}: not passed`, // (5)
};

interface FileUnderTest {
  name: string;
  rows: CatalogueScenario[] | undefined;
  /** The row whose registration needs `ask` without an interactive context. */
  askRow: string;
}

const FILES: FileUnderTest[] = [
  { name: CANONICAL_ROWS ? 'canonical catalogue-scenarios.json' : `canonical catalogue-scenarios.json (${CANONICAL_SKIP})`, rows: CANONICAL_ROWS, askRow: 'registration-unenforceable-ask' },
  { name: 'our fixtures/catalogue-scenarios.json', rows: OUR_ROWS, askRow: 'registration:ask-without-user' },
];

const results = (c: CatalogueCase): JsonObject[] => c.report.results as JsonObject[];
const manifestOf = (response: unknown): JsonObject => ((response as JsonObject).result as JsonObject).manifest as JsonObject;
const discoveryEntry = (c: CatalogueCase): JsonObject => c.entries.find((e) => e.kind === 'discovery')!;
/** Both copies of the discovery response: the receiver's and the client's. */
const bothDiscoveries = (c: CatalogueCase): JsonObject[] => [discoveryEntry(c).response as JsonObject, c.report.discovery as JsonObject];
const firstRowWith = (c: CatalogueCase, has: (row: CatalogueScenario) => boolean): CatalogueScenario => c.rows.find(has)!;
/** The row whose sent message the entry carries. */
const ownerOf = (c: CatalogueCase, entry: JsonObject): string => c.rows.find((row) => row.expected.sent.some((m) => JSON.stringify(m) === JSON.stringify(entry.message)))!.id;

for (const file of FILES) {
  describe.skipIf(file.rows === undefined)(file.name, () => {
    const rows = file.rows ?? [];
    const http = (): CatalogueCase => honestCatalogueCase(rows, 'http');

    describe('§7 base: an honest run passes', () => {
      test.each(['http', 'stdio'] as const)('over %s', (transport) => {
        const c = honestCatalogueCase(rows, transport);
        expect(catalogueLabels(verifyCase(c))).toEqual({ run: [], rows: {} });
        // discovery + one entry per sent message
        expect(c.entries.length).toBe(1 + rows.reduce((n, row) => n + row.expected.sent.length, 0));
      });
    });

    describe('§7 Reject', () => {
      test('entries [] → (7), (13) on every row that sends', () => {
        const c = http();
        c.entries.length = 0;
        const v = verifyCase(c);
        expect(allLabels(v)).toEqual([L.evidence, L.discoveryCount].sort());
        const sending = rows.filter((row) => row.expected.sent.length > 0).map((row) => [row.id, [L.evidence]]);
        expect(catalogueLabels(v).rows).toEqual(Object.fromEntries(sending));
      });

      test('last result removed → (4), (5)', () => {
        const c = http();
        results(c).pop();
        const last = rows.at(-1)!.id;
        expect(catalogueLabels(verifyCase(c))).toEqual({ run: [], rows: { [last]: [L.resultIds, L.mismatch(last)] } });
      });

      test('first result duplicated → (4)', () => {
        const c = http();
        results(c).splice(1, 0, cloneJson(results(c)[0]!));
        expect(catalogueLabels(verifyCase(c))).toEqual({ run: [], rows: { [rows[0]!.id]: [L.resultIds] } });
      });

      test('exit 1 → (1)', () => {
        const c = http();
        c.exitCode = 1;
        expect(catalogueLabels(verifyCase(c))).toEqual({ run: ['client exit 1'], rows: {} });
      });

      test(`${file.askRow} claiming accepted:true → (5)`, () => {
        const c = http();
        const result = results(c).find((r) => r.id === file.askRow)!;
        const registrations = (result.actual as JsonObject).registrations as JsonObject[];
        expect(registrations).toEqual([{ accepted: false }]);
        registrations[0]!.accepted = true;
        expect(catalogueLabels(verifyCase(c))).toEqual({ run: [], rows: { [file.askRow]: [L.mismatch(file.askRow)] } });
      });

      test('all rejected entries removed → (13) on exactly the rows that expect a rejection', () => {
        const c = http();
        const owners = [...new Set(c.entries.filter((e) => e.kind === 'rejected').map((e) => ownerOf(c, e)))];
        const kept = c.entries.filter((e) => e.kind !== 'rejected');
        expect(kept.length).toBeLessThan(c.entries.length);
        c.entries.splice(0, c.entries.length, ...kept);
        const v = verifyCase(c);
        expect(allLabels(v)).toEqual([L.evidence]);
        expect(Object.keys(catalogueLabels(v).rows)).toEqual(owners);
        for (const owner of owners) expect(v.rows.get(owner)![0]!.message).toMatch(/the receiver recorded nothing for sent\[\d\] of this row \(expected rejected/);
      });

      test('report discovery with events:[] → (9)', () => {
        const c = http();
        manifestOf(c.report.discovery).events = [];
        expect(catalogueLabels(verifyCase(c))).toEqual({ run: [L.discoveryDiffers], rows: {} });
      });

      test('last event dropped from both discovery copies → (11)', () => {
        const c = http();
        for (const response of bothDiscoveries(c)) (manifestOf(response).events as JsonObject[]).pop();
        const v = verifyCase(c);
        expect(catalogueLabels(v)).toEqual({ run: [L.notAdvertised], rows: {} });
        expect(v.runFailures[0]!.message).toContain('file.changed');
      });

      test('first observed message source → urn:changed → (13)', () => {
        const c = http();
        const observed = c.entries.find((e) => e.kind === 'observed')!;
        const owner = ownerOf(c, observed);
        ((observed.message as JsonObject).params as JsonObject).event = { ...(((observed.message as JsonObject).params as JsonObject).event as JsonObject), source: 'urn:changed' };
        const v = verifyCase(c);
        expect(catalogueLabels(v)).toEqual({ run: [], rows: { [owner]: [L.evidence] } });
        expect(v.rows.get(owner)![0]!.message).toMatch(/urn:changed/);
      });

      test('first registration accepted:1 → (5)', () => {
        const c = http();
        const row = firstRowWith(c, (r) => r.expected.registrations.length > 0);
        const result = results(c).find((r) => r.id === row.id)!;
        ((result.actual as JsonObject).registrations as JsonObject[])[0]!.accepted = 1;
        expect(catalogueLabels(verifyCase(c))).toEqual({ run: [], rows: { [row.id]: [L.mismatch(row.id)] } });
      });

      test('an extra {kind:"view", accepted:true} entry → (13), owned by no row', () => {
        const c = http();
        c.entries.push({ kind: 'view', accepted: true });
        const v = verifyCase(c);
        expect(catalogueLabels(v)).toEqual({ run: [L.evidence], rows: {} });
        expect(v.runFailures[0]!.message).toMatch(/extra entries\[\d+\] \(view/);
      });
    });

    describe('§7 also observed', () => {
      test('results without status pass', () => {
        const c = http();
        for (const result of results(c)) delete result.status;
        expect(catalogueLabels(verifyCase(c))).toEqual({ run: [], rows: {} });
      });

      test('the discovery entry placed last passes', () => {
        const c = http();
        c.entries.push(c.entries.shift()!);
        expect(catalogueLabels(verifyCase(c))).toEqual({ run: [], rows: {} });
      });

      test('actual.deliveries fails → (5)', () => {
        const c = http();
        const first = rows[0]!;
        (results(c)[0]!.actual as JsonObject).deliveries = cloneJson(first.expected.deliveries);
        expect(catalogueLabels(verifyCase(c))).toEqual({ run: [], rows: { [first.id]: [L.mismatch(first.id)] } });
      });
    });
  });
}

// Every other check of §6, on our own file (it is always present).
describe('§6 checks one at a time (our fixture)', () => {
  const http = (): CatalogueCase => honestCatalogueCase(OUR_ROWS, 'http');
  const stdio = (): CatalogueCase => honestCatalogueCase(OUR_ROWS, 'stdio');

  test('(1) a signal exit (no code)', () => {
    const c = http();
    c.exitCode = null;
    expect(catalogueLabels(verifyCase(c)).run).toEqual(['client exit null']);
  });

  test('(2) a report in another language stops the verification', () => {
    const c = http();
    c.report.language = 'typescript';
    c.entries.length = 0;
    expect(catalogueLabels(verifyCase(c))).toEqual({ run: ['wrong report language/type'], rows: {} });
  });

  test('(2) no report at all', () => {
    const c = http();
    const v = verifyCase({ ...c, report: undefined as unknown as JsonObject, exitCode: 1 });
    expect(catalogueLabels(v)).toEqual({ run: ['client exit 1', 'wrong report language/type'], rows: {} });
  });

  test('(3) results that are not a list of objects stop the verification', () => {
    const c = http();
    results(c).push('row' as unknown as JsonObject);
    expect(catalogueLabels(verifyCase(c))).toEqual({ run: ['malformed results'], rows: {} });
    const other = http();
    other.report.results = {};
    expect(catalogueLabels(verifyCase(other))).toEqual({ run: ['malformed results'], rows: {} });
  });

  test('(4) a result for an id of no row is a run failure', () => {
    const c = http();
    results(c).push({ id: 'not-a-row', status: 'passed', actual: { sent: [], registrations: [] } });
    expect(catalogueLabels(verifyCase(c))).toEqual({ run: [L.resultIds], rows: {} });
  });

  test('(5) a failed status fails its row even with the right actual', () => {
    const c = http();
    results(c)[3]!.status = 'unsupported';
    const id = OUR_ROWS[3]!.id;
    expect(catalogueLabels(verifyCase(c))).toEqual({ run: [], rows: { [id]: [L.notPassed(id)] } });
  });

  test('(5) a sent message altered by the client fails its row', () => {
    const c = http();
    const sent = (results(c)[0]!.actual as JsonObject).sent as JsonObject[];
    sent[0] = { ...sent[0]!, id: 'added-by-sdk' };
    const id = OUR_ROWS[0]!.id;
    const v = verifyCase(c);
    expect(catalogueLabels(v)).toEqual({ run: [], rows: { [id]: [L.mismatch(id)] } });
    expect(v.rows.get(id)![0]!.message).toMatch(/added sent\[0\]\.id/);
  });

  test('(6) HTTP receipts that are missing, or entries that are not objects, stop the verification', () => {
    const c = http();
    expect(catalogueLabels(verifyCase({ ...c, receipts: undefined }))).toEqual({ run: [L.missingReceipts], rows: {} });
    expect(catalogueLabels(verifyCase({ ...c, receipts: { entries: {} } }))).toEqual({ run: [L.missingReceipts], rows: {} });
    expect(catalogueLabels(verifyCase({ ...c, receipts: { entries: [...c.entries, 7] } }))).toEqual({ run: [L.missingReceipts], rows: {} });
  });

  test('(6) a stdio report without receipts is the client\'s fault', () => {
    const c = stdio();
    delete c.report.receipts;
    const v = verifyCase({ ...c, receipts: c.report.receipts });
    expect(catalogueLabels(v)).toEqual({ run: [L.missingReceipts], rows: {} });
    expect(v.runFailures[0]!.party).toBe('client');
  });

  test('(7) a second discovery (e.g. one per SDK instance)', () => {
    const c = http();
    c.entries.splice(5, 0, cloneJson(discoveryEntry(c)));
    expect(catalogueLabels(verifyCase(c))).toEqual({ run: [L.discoveryCount], rows: {} });
  });

  test('(8) schema errors of the recorded request and response, as `$.path: ...` labels', () => {
    const c = http();
    const entry = discoveryEntry(c);
    (entry.request as JsonObject).params = { protocolVersion: 'draft', session: { id: 's' } };
    for (const response of bothDiscoveries(c)) delete (response.result as JsonObject).protocolVersion;
    const v = verifyCase(c);
    expect(catalogueLabels(v)).toEqual({ run: ['$.params: must NOT have additional properties ("session")', "$.result: must have required property 'protocolVersion'"], rows: {} });
    expect(v.runFailures.map((f) => f.party)).toEqual(['client', 'server']);
  });

  test('(9) the client altered the discovery response it reports', () => {
    const c = http();
    (c.report.discovery as JsonObject).id = 'other';
    expect(catalogueLabels(verifyCase(c))).toEqual({ run: [L.discoveryDiffers], rows: {} });
  });

  test('(10) a response that answers another id', () => {
    const c = http();
    for (const response of bothDiscoveries(c)) response.id = 'not-the-discovery';
    expect(catalogueLabels(verifyCase(c))).toEqual({ run: [L.correlation], rows: {} });
  });

  test('(10) a request that is not an object', () => {
    const c = http();
    discoveryEntry(c).request = 'hooks/capabilities';
    expect(allLabels(verifyCase(c))).toContain(L.correlation);
  });

  test('(11) hook.failure advertised', () => {
    const c = http();
    for (const response of bothDiscoveries(c)) (manifestOf(response).events as JsonObject[]).push({ event: 'hook.failure', modes: ['observe'] });
    expect(catalogueLabels(verifyCase(c))).toEqual({ run: [L.hookFailure], rows: {} });
  });

  test('(11) scopes in another order', () => {
    const c = http();
    for (const response of bothDiscoveries(c)) (manifestOf(response).managedPolicy as JsonObject).scopes = ['project', 'user'];
    expect(catalogueLabels(verifyCase(c))).toEqual({ run: [L.scopes], rows: {} });
  });

  test('(11) a type advertised for interception only', () => {
    const c = http();
    for (const response of bothDiscoveries(c)) {
      const toolBefore = (manifestOf(response).events as JsonObject[]).find((e) => e.event === 'tool.before')!;
      toolBefore.modes = ['intercept'];
    }
    const v = verifyCase(c);
    expect(catalogueLabels(v)).toEqual({ run: [L.notAdvertised], rows: {} });
    expect(v.runFailures[0]!.message).toContain('tool.before');
  });

  test('(11) a response without a manifest fails the run', () => {
    const c = http();
    for (const response of bothDiscoveries(c)) delete (response.result as JsonObject).manifest;
    const found = allLabels(verifyCase(c));
    expect(found).toContain(L.notAdvertised);
    expect(found).toContain("$.result: must have required property 'manifest'");
  });

  test('(12) a fixture expecting an invalid message to be observed is charged to the fixture, on its row', () => {
    const rows = cloneJson(OUR_ROWS);
    const row = rows[0]!;
    const broken = { jsonrpc: '2.0', method: 'hooks/observe', params: 'not an object' } as unknown as JsonObject;
    row.steps = [{ op: 'notify', message: broken }];
    row.expected.sent = [broken];
    const v = verifyCase(honestCatalogueCase(rows, 'http'));
    const checks = v.rows.get(row.id)!;
    expect(checks.map((check) => check.label)).toContain('observation params missing');
    expect(checks.map((check) => check.label)).toContain('$.params: must be object');
    expect(checks.every((check) => check.party === 'harness')).toBe(true);
    expect(v.runFailures).toEqual([]);
  });

  test('(13) two entries swapped: the entry recorded out of order names its row, and only that row', () => {
    const c = http();
    const [a, b] = [3, 4];
    [c.entries[a], c.entries[b]] = [c.entries[b]!, c.entries[a]!];
    const owner = ownerOf(c, c.entries[b]!);
    const v = verifyCase(c);
    expect(catalogueLabels(v)).toEqual({ run: [], rows: { [owner]: [L.evidence] } });
    expect(v.rows.get(owner)![0]!.message).toMatch(/^delivery entry 3 of \d+ expected: the expected observed of event "[^"]+" for sent\[0\] of this row is recorded out of order, at entries\[4\]$/);
  });

  test('(13) entries dropped from two rows far apart: both rows fail and every row between passes', () => {
    const c = http();
    const deliveries = c.entries.filter((e) => e.kind !== 'discovery');
    const [first, last] = [deliveries[1]!, deliveries.at(-2)!];
    c.entries.splice(0, c.entries.length, ...c.entries.filter((e) => e !== first && e !== last));
    const v = verifyCase(c);
    expect(catalogueLabels(v)).toEqual({ run: [], rows: { [ownerOf(c, first)]: [L.evidence], [ownerOf(c, last)]: [L.evidence] } });
  });

  test('(13) an entry altered in place fails its row with the difference, and no row after it', () => {
    const c = http();
    const observed = c.entries.filter((e) => e.kind === 'observed')[2]!;
    const owner = ownerOf(c, observed);
    observed.eventId = 'not-the-event';
    const v = verifyCase(c);
    expect(catalogueLabels(v)).toEqual({ run: [], rows: { [owner]: [L.evidence] } });
    expect(v.rows.get(owner)![0]!.message).toMatch(/^delivery entry 3 of \d+ expected: entries\[3\] is not the expected observed .*: changed eventId from "[^"]+" to "not-the-event"$/);
  });

  test('(13) a rejection recorded as observed (the receiver skipped its lineage check)', () => {
    const c = http();
    const index = c.entries.findIndex((e) => e.kind === 'rejected' && e.errorKind === 'lineage');
    const rejected = c.entries[index]!;
    const message = rejected.message as JsonObject;
    c.entries[index] = { kind: 'observed', eventId: rejected.eventId ?? null, event: (message.params as JsonObject).event ?? null, message };
    expect(catalogueLabels(verifyCase(c))).toEqual({ run: [], rows: { [ownerOf(c, rejected)]: [L.evidence] } });
  });

  test('(13) a delivery recorded twice at the end is charged to the row whose message it carries', () => {
    const c = http();
    const observed = c.entries.find((e) => e.kind === 'observed')!;
    c.entries.push(cloneJson(observed));
    const v = verifyCase(c);
    expect(catalogueLabels(v)).toEqual({ run: [], rows: { [ownerOf(c, observed)]: [L.evidence] } });
  });

  test('(13) an entry missing at the end', () => {
    const c = http();
    const last = c.entries.pop()!;
    expect(catalogueLabels(verifyCase(c))).toEqual({ run: [], rows: { [ownerOf(c, last)]: [L.evidence] } });
  });
});
