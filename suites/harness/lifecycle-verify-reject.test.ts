// The lifecycle verifier rejects every broken step-script run of LIFECYCLE-RULES §11 ("Reject"),
// plus the frauds our brief names. Each test breaks an honest run of the whole canonical file in
// exactly one way and asserts the runner's verbatim label fires on exactly the scenario it touched
// (or as a run failure where no single scenario owns it) while every other scenario stays clean.
// Labels are written out here rather than imported, so a typo in the verifier's label table fails.

import { describe, expect, test } from 'vitest';

import type { StepScenario } from '../../harness/lifecycle-adapters/scenario-types.ts';
import type { JsonObject } from '../../harness/protocol/json.ts';
import {
  CANONICAL_ROWS,
  CANONICAL_SKIP,
  entryAt,
  entryIndex,
  eventIn,
  expectOnRow,
  expectOnRun,
  honestCase,
  labels,
  moveAfter,
  moveBefore,
  resultOf,
  swap,
  verify,
  type RunCase,
} from './support/lifecycle-verify-cases.ts';

const rows = CANONICAL_ROWS ?? [];
const http = (): RunCase => honestCase(rows, 'http');
const stdio = (): RunCase => honestCase(rows, 'stdio');
/** Every row of the case that has a step of `op`. */
const rowsWith = (c: RunCase, op: string): string[] => c.rows.filter((r) => r.chain === undefined && r.steps.some((s) => s.op === op)).map((r) => r.id);

describe.skipIf(CANONICAL_ROWS === undefined)(CANONICAL_ROWS ? '§11 Reject (step scripts)' : `§11 Reject (${CANONICAL_SKIP})`, () => {
  describe('SDK-driven uploads (§7.3)', () => {
    const ROW = 'intercept-content-upload-before-send';
    const OBSERVE_ROW = 'changed-body-new-reference';
    const sdk = (row = ROW): RunCase => honestCase(rows, 'http', { sdkUploadRows: [row] });
    const confirmations = (c: RunCase): JsonObject[] => c.report.contentUploads as JsonObject[];
    /** The SDK's own upload receipt: the 201 whose ref the confirmation names. */
    const sdkUpload = (c: RunCase): JsonObject => entryAt(c.entries, 'upload', { ref: (confirmations(c)[0]!.descriptor as JsonObject).ref! });

    test('an SDK upload without its confirmation', () => {
      const c = sdk();
      (c.report as { contentUploads?: unknown }).contentUploads = [];
      expectOnRun(verify(c), 'upload multiplicity mismatch', [ROW]);
    });

    test('a wrong sourceRef', () => {
      const c = sdk();
      confirmations(c)[0]!.sourceRef = 'immutable-v1-typo';
      expectOnRow(verify(c), ROW, 'unknown/duplicate source or content upload integrity mismatch');
    });

    test('a wrong eventId (no delivery can be identified, so no scenario owns it)', () => {
      const c = sdk();
      confirmations(c)[0]!.eventId = 'some-other-event';
      expectOnRun(verify(c), 'content upload delivery identity mismatch', [ROW]);
    });

    test('a descriptor size one too large', () => {
      const c = sdk();
      const descriptor = confirmations(c)[0]!.descriptor as JsonObject;
      descriptor.size = (descriptor.size as number) + 1;
      const v = verify(c);
      expectOnRow(v, ROW, 'content upload lacks exact prior receiver confirmation', ['upload multiplicity mismatch']);
      expect(labels(v).rows[ROW]).toContain('unknown/duplicate source or content upload integrity mismatch');
    });

    test('a receipt ref that differs from the confirmation', () => {
      const c = sdk();
      sdkUpload(c).ref = 'rcv-something-else';
      expectOnRow(verify(c), ROW, 'content upload lacks exact prior receiver confirmation', ['upload multiplicity mismatch']);
    });

    test('an SDK upload the receiver refused (401)', () => {
      const c = sdk();
      const upload = sdkUpload(c);
      upload.status = 401;
      delete upload.ref;
      expectOnRow(verify(c), ROW, 'content upload lacks exact prior receiver confirmation', ['upload multiplicity mismatch']);
    });

    test('an SDK upload after its delivery', () => {
      const c = sdk(OBSERVE_ROW);
      const ref = (confirmations(c)[0]!.descriptor as JsonObject).ref!;
      moveAfter(c.entries, entryIndex(c.entries, 'upload', { ref }), entryIndex(c.entries, 'observed', { eventId: `${OBSERVE_ROW}:a` }));
      const v = verify(c);
      expectOnRow(v, OBSERVE_ROW, 'content upload lacks exact prior receiver confirmation');
      expect(labels(v).rows[OBSERVE_ROW]).toContain('body dispatched before authorized exact upload readiness');
    });

    test('a duplicated confirmation', () => {
      const c = sdk();
      confirmations(c).push({ ...confirmations(c)[0]! });
      const v = verify(c);
      expectOnRow(v, ROW, 'content upload lacks exact prior receiver confirmation');
      expect(labels(v).rows[ROW]).toContain('unknown/duplicate source or content upload integrity mismatch');
    });

    test('confirmations that are not a list of objects stop the verification', () => {
      const c = sdk();
      c.report.contentUploads = [confirmations(c)[0]!, 'not an object'];
      expectOnRun(verify(c), 'malformed content upload confirmations');
      const d = sdk();
      d.report.contentUploads = { upload: 1 };
      expectOnRun(verify(d), 'malformed content upload confirmations');
    });

    test('a malformed confirmation (descriptor with an extra key, non-integer size)', () => {
      const c = sdk();
      const descriptor = confirmations(c)[0]!.descriptor as JsonObject;
      descriptor.mediaType = 'text/plain';
      descriptor.size = 1.5;
      expectOnRow(verify(c), ROW, 'malformed content upload confirmation', ['upload multiplicity mismatch']);
    });

    test('a confirmation that selects nothing in its delivery', () => {
      const c = sdk();
      confirmations(c)[0]!.method = 'hooks/observe'; // the intercept row has no observe step
      const v = verify(c);
      expectOnRow(v, ROW, 'content upload source not selected exactly once in delivery');
      expect(labels(v).rows[ROW]).toContain('content upload delivery identity mismatch');
    });
  });

  test('all observed entries removed', () => {
    const c = http();
    const observing = rowsWith(c, 'observe');
    // Chain observations are §7.8's; chains.test.ts removes those.
    const kept = c.entries.filter((e) => e.kind !== 'observed' || (e.eventId as string).startsWith('observation-chain-'));
    c.entries.splice(0, c.entries.length, ...kept);
    const v = verify(c);
    expect(labels(v).run).toEqual([]);
    expect(Object.keys(labels(v).rows).sort()).toEqual(observing.sort());
    for (const id of observing) expect(labels(v).rows[id]).toEqual(['settled observation payload/identity/subscription mismatch']);
  });

  test('receipts {} (and a success-shaped report without receipts)', () => {
    const c = http();
    c.receipts = {};
    expectOnRun(verify(c), 'missing/malformed receiver receipts');
    const s = stdio();
    delete (s.report as { receipts?: unknown }).receipts;
    s.receipts = undefined;
    const v = verify(s);
    expectOnRun(v, 'missing/malformed receiver receipts');
    expect(v.runFailures.find((f) => f.label === 'missing/malformed receiver receipts')?.party).toBe('client');
  });

  test('a receipt entry that is not an object', () => {
    const c = http();
    c.entries.push('received' as unknown as JsonObject);
    expectOnRun(verify(c), 'missing/malformed receiver receipts');
  });

  test('a result missing, or duplicated', () => {
    const c = http();
    const results = c.report.results as JsonObject[];
    const missing = results.splice(4, 1)[0]!.id as string;
    expectOnRow(verify(c), missing, 'result IDs must match scenarios exactly once');
    const d = http();
    const again = d.report.results as JsonObject[];
    again.push(again[2]!);
    expectOnRow(verify(d), again[2]!.id as string, 'result IDs must match scenarios exactly once');
  });

  test('a result for no selected scenario', () => {
    const c = http();
    (c.report.results as JsonObject[]).push({ id: 'stdio-unknown-before-live', actual: {} });
    expectOnRun(verify(c), 'result IDs must match scenarios exactly once');
  });

  test('the wrong language, or a report that is not an object', () => {
    const c = http();
    c.report.language = 'python';
    const v = verify(c);
    expect(labels(v).run).toContain('wrong report language/type');
    expect(labels(v).run).toContain('chain client failed or wrong language');
    const d = http();
    d.report = ['not', 'a', 'report'] as unknown as JsonObject;
    expectOnRun(verify(d), 'wrong report language/type');
    const e = http();
    e.report.results = { 0: 'x' };
    expectOnRun(verify(e), 'malformed results');
  });

  test('exit 1', () => {
    const c = http();
    c.exitCode = 1;
    const v = verify(c);
    expectOnRun(v, 'client exit 1');
    expect(labels(v).run).toEqual(['client exit 1', 'chain client failed or wrong language']);
  });

  test("another row's id in published", () => {
    const c = http();
    const actual = resultOf(c, 'denied-boundary-observed').actual as JsonObject;
    actual.published = ['ask-boundary-observed:a'];
    expectOnRow(verify(c), 'denied-boundary-observed', 'denied-boundary-observed: local application result mismatch');
  });

  test("another row's id in an accepted mark", () => {
    const c = http();
    entryAt(c.entries, 'accepted', { scenario: 'denied-boundary-observed' }).id = 'ask-boundary-observed:a';
    expectOnRow(verify(c), 'denied-boundary-observed', 'accepted: milestone mismatch');
  });

  test('no entries', () => {
    const c = http();
    c.entries.splice(0);
    const v = verify(c);
    expect(labels(v).run).toEqual(['upload multiplicity mismatch']);
    const failed = Object.keys(labels(v).rows).sort();
    expect(failed).toEqual(c.rows.filter((r) => r.id !== 'upload-integrity-rejection').map((r) => r.id).sort());
    for (const id of rowsWith(c, 'send')) expect(labels(v).rows[id]).toContain('received: exact attempt multiplicity mismatch');
  });

  test('the first entry duplicated', () => {
    const c = http();
    c.entries.splice(1, 0, { ...c.entries[0]! });
    expectOnRow(verify(c), 'cancel-before-reply', 'received: exact attempt multiplicity mismatch');
  });

  test('the first cancelled and the first replied swapped', () => {
    const c = http();
    swap(c.entries, entryIndex(c.entries, 'cancelled'), entryIndex(c.entries, 'replied'));
    expectOnRow(verify(c), 'cancel-before-reply', 'cancel/reply barrier order violated');
  });

  test("an observation's eventId changed", () => {
    const c = http();
    const observed = entryAt(c.entries, 'observed', { eventId: 'denied-boundary-observed:a' });
    observed.eventId = 'denied-boundary-observed:b';
    expectOnRow(verify(c), 'denied-boundary-observed', 'settled observation payload/identity/subscription mismatch');
  });

  test('an observed input that is the original, not the settled one', () => {
    const c = http();
    const observed = entryAt(c.entries, 'observed', { eventId: 'settled-observer-effects-ignored:a' });
    (eventIn(observed).tool as JsonObject).input = { value: 'original' };
    observed.event = eventIn(observed);
    expectOnRow(verify(c), 'settled-observer-effects-ignored', 'settled observation payload/identity/subscription mismatch');
  });

  test('every upload moved to the end of the log', () => {
    const c = http();
    const uploads = c.entries.filter((e) => e.kind === 'upload');
    c.entries.splice(0, c.entries.length, ...c.entries.filter((e) => e.kind !== 'upload'), ...uploads);
    const v = verify(c);
    const found = labels(v);
    expect(found.run).toEqual([]);
    expect(found.rows['intercept-content-upload-before-send']).toEqual(['intercept dispatched before authorized exact upload readiness']);
    for (const id of ['immutable-upload-and-subscription-views', 'changed-body-new-reference', 'normal-content-kinds', 'arbitrary-binary-and-empty-content']) {
      expect(found.rows[id]).toEqual(['body dispatched before authorized exact upload readiness']);
    }
    expect(Object.keys(found.rows)).toHaveLength(5);
  });

  test("the first upload's hash zeroed", () => {
    const c = http();
    entryAt(c.entries, 'upload').sha256 = '0'.repeat(64);
    expectOnRow(verify(c), 'immutable-upload-and-subscription-views', 'upload integrity/authorization evidence mismatch');
  });

  test('a 401 upload recorded as 201', () => {
    const c = http();
    const upload = entryAt(c.entries, 'upload', { status: 401 });
    upload.status = 201;
    upload.ref = 'rcv-unauthorized';
    expectOnRow(verify(c), 'immutable-upload-and-subscription-views', 'upload integrity/authorization evidence mismatch');
  });

  test('a 201 without a ref', () => {
    const c = http();
    delete entryAt(c.entries, 'upload', { status: 201 }, 4).ref; // changed-body-new-reference's upload
    expectOnRow(verify(c), 'changed-body-new-reference', 'missing receiver-assigned upload reference');
  });

  test('the third 201 reusing the first ref (changed bytes)', () => {
    const c = http();
    const first = entryAt(c.entries, 'upload', { status: 201 }, 0);
    entryAt(c.entries, 'upload', { status: 201 }, 2).ref = first.ref!;
    expectOnRow(verify(c), 'immutable-upload-and-subscription-views', 'receiver reused immutable reference for changed bytes');
  });

  test('identical bytes may share a ref', () => {
    const c = http();
    const first = entryAt(c.entries, 'upload', { status: 201 }, 0);
    entryAt(c.entries, 'upload', { status: 201 }, 1).ref = first.ref!; // immutable-retry: the same bytes
    expect(labels(verify(c))).toEqual({ run: [], rows: {} });
  });

  test('a 201 recorded as 204', () => {
    const c = http();
    entryAt(c.entries, 'upload', { status: 201 }, 1).status = 204;
    expectOnRow(verify(c), 'immutable-upload-and-subscription-views', 'upload integrity/authorization evidence mismatch');
  });

  test('executed: 1 instead of true', () => {
    const c = http();
    const actual = resultOf(c, 'interrupt-after-publication').actual as { states: Record<string, JsonObject> };
    actual.states['interrupt-after-publication:a']!.executed = 1;
    expectOnRow(verify(c), 'interrupt-after-publication', 'interrupt-after-publication: local application result mismatch');
  });

  test('an unsupported result', () => {
    const c = http();
    resultOf(c, 'ask-boundary-observed').status = 'unsupported';
    expectOnRow(verify(c), 'ask-boundary-observed', 'unsupported/inapplicable/failed result is not a pass');
  });

  test('acquired and cancelled swapped in cancel-after-reply-before-acceptance', () => {
    const c = http();
    const scenario = 'cancel-after-reply-before-acceptance';
    swap(c.entries, entryIndex(c.entries, 'acquired', { scenario }), entryIndex(c.entries, 'cancelled', { scenario }));
    expectOnRow(verify(c), scenario, 'cancel-after-reply lacks acquisition proof');
  });

  test('no acquired mark', () => {
    const c = http();
    c.entries.splice(entryIndex(c.entries, 'acquired', { scenario: 'denied-boundary-observed' }), 1);
    const v = verify(c);
    expectOnRow(v, 'denied-boundary-observed', 'acquired: control proof mismatch');
    expect(labels(v).rows['denied-boundary-observed']).toContain('acceptance before acquired response');
  });

  test('an acquired mark before the reply', () => {
    const c = http();
    const scenario = 'ask-boundary-observed';
    moveBefore(c.entries, entryIndex(c.entries, 'acquired', { scenario }), entryIndex(c.entries, 'replied', { id: `${scenario}:a` }));
    expectOnRow(verify(c), scenario, 'acquisition before response');
  });

  test('an observed entry without message', () => {
    const c = http();
    delete entryAt(c.entries, 'observed', { eventId: 'ask-boundary-observed:a' }).message;
    const v = verify(c);
    expectOnRow(v, 'ask-boundary-observed', 'settled observation payload/identity/subscription mismatch');
    expect(labels(v).rows['ask-boundary-observed']).toContain('observation params missing');
  });

  test('states swapped in two-staged-reverse-acceptance', () => {
    const c = http();
    const id = 'two-staged-reverse-acceptance';
    const states = (resultOf(c, id).actual as { states: Record<string, JsonObject> }).states;
    [states[`${id}:a`], states[`${id}:b`]] = [states[`${id}:b`]!, states[`${id}:a`]!];
    expectOnRow(verify(c), id, `${id}: local application result mismatch`);
  });

  test('the staged input replaced in first-staged-response-wins', () => {
    const c = http();
    const id = 'first-staged-response-wins';
    (resultOf(c, id).actual as { states: Record<string, JsonObject> }).states[`${id}:a`]!.input = { value: 'duplicate-must-not-replace' };
    expectOnRow(verify(c), id, `${id}: local application result mismatch`);
  });

  test('no discarded mark (stdio)', () => {
    const c = stdio();
    const id = 'stdio-unknown-before-live';
    c.entries.splice(entryIndex(c.entries, 'discarded', { scenario: id }), 1);
    const v = verify(c);
    expectOnRow(v, id, 'discarded: control proof mismatch');
    expect(labels(v).rows[id]).toContain('stray frame did not rendezvous while live request pending');
  });

  test('a discard before the receiver emitted the frame (stdio)', () => {
    const c = stdio();
    const id = 'stdio-unsolicited-old-before-live';
    swap(c.entries, entryIndex(c.entries, 'emitted', { id: `${id}:a` }), entryIndex(c.entries, 'discarded', { scenario: id }));
    const v = verify(c);
    expectOnRow(v, id, 'stray discard lacks reader rendezvous');
    expect(labels(v).rows[id]).toContain('stray frame did not rendezvous while live request pending');
  });

  test('the live request answered before the stray frame was discarded (stdio)', () => {
    const c = stdio();
    const id = 'stdio-unknown-before-live';
    moveBefore(c.entries, entryIndex(c.entries, 'replied', { id: `${id}:a` }), entryIndex(c.entries, 'emitted', { id: `unknown:${id}` }));
    expectOnRow(verify(c), id, 'stray frame did not rendezvous while live request pending');
  });

  test('an emitted entry the receiver never had to write (stdio)', () => {
    const c = stdio();
    c.entries.push({ kind: 'emitted', id: 'nobody' });
    expectOnRun(verify(c), 'emitted: control proof mismatch');
  });

  test('cancelled after the observation in interrupt-after-publication', () => {
    const c = http();
    const id = 'interrupt-after-publication';
    moveAfter(c.entries, entryIndex(c.entries, 'cancelled', { scenario: id }), entryIndex(c.entries, 'observed', { eventId: `${id}:a` }));
    expectOnRow(verify(c), id, 'observation dispatched before planned cancellation');
  });

  test('{kind:"view"} and {kind:"echo"} entries', () => {
    for (const kind of ['view', 'echo']) {
      const c = http();
      c.entries.push({ kind });
      expectOnRun(verify(c), 'unknown receipt kind');
    }
  });

  test('an unknown kind that names a scenario is that scenario’s fault', () => {
    const c = http();
    c.entries.push({ kind: 'view', id: 'ask-boundary-observed:a', scenario: 'ask-boundary-observed' });
    expectOnRow(verify(c), 'ask-boundary-observed', 'unknown receipt kind');
  });

  test('params.disposition on an observation', () => {
    const c = http();
    const observed = entryAt(c.entries, 'observed', { eventId: 'stopped-boundary-observed:a' });
    ((observed.message as JsonObject).params as JsonObject).disposition = 'stopped';
    expectOnRow(verify(c), 'stopped-boundary-observed', 'settled observation payload/identity/subscription mismatch');
  });

  test('an observation carrying a JSON-RPC id', () => {
    const c = http();
    (entryAt(c.entries, 'observed', { eventId: 'stopped-boundary-observed:a' }).message as JsonObject).id = 'stopped-boundary-observed:a';
    expectOnRow(verify(c), 'stopped-boundary-observed', 'settled observation payload/identity/subscription mismatch');
  });

  test('an observation from source urn:other', () => {
    const c = http();
    const observed = entryAt(c.entries, 'observed', { eventId: 'cancelled-boundary-observed:a' });
    eventIn(observed).source = 'urn:other';
    observed.event = eventIn(observed);
    const v = verify(c);
    expectOnRow(v, 'cancelled-boundary-observed', 'settled observation payload/identity/subscription mismatch');
  });

  test('a received entry without message', () => {
    const c = http();
    delete entryAt(c.entries, 'received', { id: 'request-specific-acceptance:b' }).message;
    expectOnRow(verify(c), 'request-specific-acceptance', 'received canonical request mismatch');
  });

  test('the intercept-body upload moved to the end of the log', () => {
    const c = http();
    moveAfter(c.entries, entryIndex(c.entries, 'upload', { sha256: 'edf00354a955a65bb62f5ceb32c356e028761b5113eb7d00eadafdfe365d93a7' }), c.entries.length - 1);
    expectOnRow(verify(c), 'intercept-content-upload-before-send', 'intercept dispatched before authorized exact upload readiness');
  });

  test('a body sent with the fixture alias instead of the receiver ref', () => {
    const c = http();
    const received = entryAt(c.entries, 'received', { id: 'intercept-content-upload-before-send:a' });
    ((eventIn(received).items as JsonObject[])[0]!.body as JsonObject).ref = 'intercept-body';
    const v = verify(c);
    expectOnRow(v, 'intercept-content-upload-before-send', 'received canonical request mismatch');
    expect(labels(v).rows['intercept-content-upload-before-send']).toContain('intercept dispatched before authorized exact upload readiness');
  });

  describe('more frauds', () => {
    test('a reply before its receipt', () => {
      const c = http();
      const id = 'ask-boundary-observed:a';
      swap(c.entries, entryIndex(c.entries, 'received', { id }), entryIndex(c.entries, 'replied', { id }));
      expectOnRow(verify(c), 'ask-boundary-observed', 'ask-boundary-observed:a: reply before receipt');
    });

    test('a cancel recorded after the reply it should precede', () => {
      const c = http();
      const id = 'cancelled-boundary-observed';
      moveAfter(c.entries, entryIndex(c.entries, 'cancelled', { scenario: id }), entryIndex(c.entries, 'replied', { id: `${id}:a` }));
      const v = verify(c);
      expectOnRow(v, id, 'cancel/reply barrier order violated');
    });

    test('a cancel recorded before the receiver held the attempt', () => {
      const c = http();
      const id = 'cancel-before-reply';
      moveBefore(c.entries, entryIndex(c.entries, 'cancelled', { scenario: id }), entryIndex(c.entries, 'received', { id: `${id}:a` }));
      expectOnRow(verify(c), id, 'cancel not rendezvoused after receipt');
    });

    test('an observation before settlement', () => {
      const c = http();
      const id = 'denied-boundary-observed';
      moveBefore(c.entries, entryIndex(c.entries, 'observed', { eventId: `${id}:a` }), entryIndex(c.entries, 'accepted', { scenario: id }));
      expectOnRow(verify(c), id, 'observation before settlement');
    });

    test('an acceptance before the acquisition', () => {
      const c = http();
      const id = 'two-staged-reverse-acceptance';
      moveBefore(c.entries, entryIndex(c.entries, 'accepted', { scenario: id }), entryIndex(c.entries, 'acquired', { scenario: id }));
      expectOnRow(verify(c), id, 'acceptance before acquired response');
    });

    test('the old reply of late-old-while-next-pending before the next request was pending', () => {
      const c = http();
      const id = 'late-old-while-next-pending';
      moveBefore(c.entries, entryIndex(c.entries, 'replied', { id: `${id}:a` }), entryIndex(c.entries, 'received', { id: `${id}:b` }));
      expectOnRow(verify(c), id, 'old reply did not race next pending request');
    });

    test('a cancelled mark the row never expects', () => {
      const c = http();
      c.entries.push({ kind: 'cancelled', id: 'ask-boundary-observed:a', scenario: 'ask-boundary-observed' });
      expectOnRow(verify(c), 'ask-boundary-observed', 'cancelled: milestone mismatch');
    });

    test('an acquired mark with an extra key', () => {
      const c = http();
      entryAt(c.entries, 'acquired', { scenario: 'ask-boundary-observed' }).slot = 'a';
      expectOnRow(verify(c), 'ask-boundary-observed', 'acquired: control proof mismatch');
    });

    test('an intercept request with a changed input', () => {
      const c = http();
      (eventIn(entryAt(c.entries, 'received', { id: 'duplicate-reply-ignored:a' }, 1)).tool as JsonObject).input = { value: 'replayed' };
      expectOnRow(verify(c), 'duplicate-reply-ignored', 'received canonical request mismatch');
    });

    test('a replied entry missing', () => {
      const c = http();
      c.entries.splice(entryIndex(c.entries, 'replied', { id: 'duplicate-reply-ignored:a' }, 1), 1);
      expectOnRow(verify(c), 'duplicate-reply-ignored', 'replied: exact attempt multiplicity mismatch');
    });

    test('a received entry for no selected request', () => {
      const c = http();
      c.entries.push({ kind: 'received', id: 'not-a-request', message: {} });
      expectOnRun(verify(c), 'received: exact attempt multiplicity mismatch');
    });

    test('a client that copies expected into actual and skips the wire', () => {
      const c = http();
      const marks = c.entries.filter((e) => !['received', 'replied', 'upload', 'observed'].includes(e.kind as string));
      c.entries.splice(0, c.entries.length, ...marks);
      const v = verify(c);
      const found = labels(v);
      expect(found.run).toEqual(['upload multiplicity mismatch']);
      expect(Object.keys(found.rows).sort()).toEqual(c.rows.map((r) => r.id).filter((id) => id !== 'upload-integrity-rejection').sort());
      for (const row of c.rows) {
        if (row.chain !== undefined) continue;
        if ((row as StepScenario).steps.some((s) => s.op === 'send')) {
          expect(found.rows[row.id]).toContain('received: exact attempt multiplicity mismatch');
          expect(found.rows[row.id]).toContain('replied: exact attempt multiplicity mismatch');
        }
      }
      expect(found.rows['denied-boundary-observed']).toContain('acquisition before response');
    });
  });

  test('every failure names a party and says which entries are involved', () => {
    const c = http();
    swap(c.entries, entryIndex(c.entries, 'cancelled'), entryIndex(c.entries, 'replied'));
    const [check] = verify(c).rows.get('cancel-before-reply')!;
    expect(check).toMatchObject({ label: 'cancel/reply barrier order violated', party: 'client or server' });
    expect(check!.message).toMatch(/entries\[\d+\] replied "cancel-before-reply:a"/);
  });
});

describe.skipIf(CANONICAL_ROWS === undefined)(CANONICAL_ROWS ? 'every entry of an honest log is load-bearing' : `every entry is load-bearing (${CANONICAL_SKIP})`, () => {
  /** Request id, event id or stray frame id → the row that owns it. */
  const ownerIds = new Map<string, string>();
  for (const row of rows) {
    for (const request of Object.values(row.requests)) {
      ownerIds.set(String(request.id), row.id);
      ownerIds.set(request.params.event.id, row.id);
    }
    for (const step of row.steps) if (step.op === 'emit') ownerIds.set(String(step.response.id), row.id);
  }
  const ownerOf = (entry: JsonObject): string | undefined => (typeof entry.scenario === 'string' ? entry.scenario : ownerIds.get(String(entry.id ?? entry.eventId)));

  for (const transport of ['http', 'stdio'] as const) {
    for (const [name, change] of [
      ['removing', (entries: JsonObject[], i: number) => void entries.splice(i, 1)],
      ['duplicating', (entries: JsonObject[], i: number) => void entries.splice(i, 0, entries[i]!)],
    ] as const) {
      test(`${name} any one entry fails the entry's scenario, or the run for an upload (${transport})`, () => {
        const size = honestCase(rows, transport).entries.length;
        const missed: string[] = [];
        for (let i = 0; i < size; i++) {
          const c = honestCase(rows, transport);
          const entry = c.entries[i]!;
          change(c.entries, i);
          const found = labels(verify(c));
          const owner = ownerOf(entry);
          const caught = owner === undefined ? found.run.length > 0 : found.rows[owner] !== undefined;
          if (!caught) missed.push(`entries[${i}] ${JSON.stringify(entry).slice(0, 80)} → ${JSON.stringify(found)}`);
        }
        expect(missed).toEqual([]);
      });
    }
  }
});
