// Step planning and the per-step checks of the elicitation family (ELICITATION-RULES §4, §6, §9 items
// 1-6 and 12), reproducing the pure self-tests of §13.1 against PairLedger with hand-made client
// outcomes: what a plan carries, ref rewriting, bypass, content sources, SDK re-uploads, and every
// refusal with its label. Labels are written out here so a typo in the label table fails.

import { describe, expect, test } from 'vitest';

import type { InterceptStep, ProcessOutcome, SenderPlan, UploadStep, WireStep } from '../../harness/families/elicitation/case-types.ts';
import { buildElicitationCaseFile } from '../../harness/families/elicitation/generate.ts';
import { PairLedger } from '../../harness/families/elicitation/pair-ledger.ts';
import { pairNeeds, selectedEntryIds, UnknownElicitationIdError, wireSchedule } from '../../harness/families/elicitation/plan-steps.ts';
import { jsonEqual, type JsonObject } from '../../harness/protocol/json.ts';
import { sha256Hex } from '../../harness/protocol/sha256-hex.ts';
import { SIMULATED_SECRETS, simulatePair } from './support/elicitation-simulated-pair.ts';

const FILE = buildElicitationCaseFile('upload');
const SECRETS = { endpoint: 'http://127.0.0.1:9', token: 'event-token', uploadToken: 'upload-token' };
const BYTES = Buffer.from('data');
const DIGEST = sha256Hex(BYTES);
const ZERO = '0'.repeat(64);

function exited(result: unknown, stdout?: string): ProcessOutcome {
  return { kind: 'exited', exitCode: 0, signal: null, stdout: stdout ?? JSON.stringify([result]), stderrTail: '' };
}

function upload(alias = 'local', bytes = BYTES): UploadStep {
  return { kind: 'upload', alias, bytes: bytes.toString('base64'), expectStatus: 201 };
}

function intercept(body: JsonObject, expectStatus: 200 | 400 = 200, eventId = 'e:request'): InterceptStep {
  return { kind: 'intercept', eventId, stage: 'request', expectStatus, message: { jsonrpc: '2.0', id: eventId, method: 'hooks/intercept', params: { event: { id: eventId, body } } } };
}

function sentMessage(plan: SenderPlan): JsonObject {
  return JSON.parse(Buffer.from(plan.steps[0].bytes, 'base64').toString('utf8')) as JsonObject;
}

function sentBody(plan: SenderPlan): unknown {
  return ((sentMessage(plan).params as JsonObject).event as JsonObject).body;
}

const okAnswer = (id = 'e:request') => JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: 'draft', effects: [] } });
const origin = (step: number, caseId = 'c') => ({ caseId, step });

/** Records `step` with `result`, returning the labels of its failures. */
function record(ledger: PairLedger, at: number, step: WireStep, result: unknown, stdout?: string): string[] {
  return ledger.record(origin(at), step, exited(result, stdout)).map((f) => f.label);
}

describe('JSON equality (rules: Equal)', () => {
  test('booleans never equal numbers, in both directions; 1 equals 1.0', () => {
    expect(jsonEqual(true, 1)).toBe(false);
    expect(jsonEqual(false, 0)).toBe(false);
    expect(jsonEqual({ content: [true] }, { content: [1] })).toBe(false);
    expect(jsonEqual({ content: [1] }, { content: [true] })).toBe(false);
    expect(jsonEqual(JSON.parse('{"a":[1,true]}'), JSON.parse('{"a":[1.0,true]}'))).toBe(true);
  });
});

describe('sender plans', () => {
  test('a plan carries the event token and the distinct upload token, and no step carries an expectation', async () => {
    const ledger = new PairLedger('sim client');
    const plan = ledger.plan(origin(0), upload(), SECRETS);
    expect(plan.token).toBe(SECRETS.token);
    expect(plan.uploadToken).toBe(SECRETS.uploadToken);
    expect(plan.token).not.toBe(plan.uploadToken);
    const { plans } = await simulatePair(FILE);
    for (const each of plans) for (const step of each.steps) expect(Object.keys(step).every((key) => ['path', 'bytes', 'headers', 'bypass'].includes(key))).toBe(true);
    expect(plans.some((each) => each.token === SIMULATED_SECRETS.token)).toBe(true);
  });

  test('the upload probes alone are exactly three /upload steps expecting 201, 201, 401, with no subscription or ref headers', () => {
    const probes = FILE.probes.filter((p) => p.kind === 'upload').map((p) => p.id);
    const schedule = wireSchedule(FILE, selectedEntryIds(FILE, probes), []);
    expect(schedule.map((s) => [s.step.kind, s.step.expectStatus])).toEqual([
      ['upload', 201],
      ['upload', 201],
      ['upload', 401],
    ]);
    const ledger = new PairLedger('sim client');
    for (const { origin: at, step } of schedule) {
      const headers = Object.keys(ledger.plan(at, step, SECRETS).steps[0].headers ?? {});
      expect(headers.filter((h) => /^AHP-(Subscription|Content-Ref)$/i.test(h))).toEqual([]);
    }
  });

  test('two uploads of one alias rebind it: the intercept names the second ref with the original size and hash', () => {
    const ledger = new PairLedger('sim client');
    expect(record(ledger, 0, upload(), { status: 201, body: JSON.stringify({ ref: 'receiver-one', size: 4, sha256: DIGEST }) })).toEqual([]);
    expect(record(ledger, 1, upload(), { status: 201, body: JSON.stringify({ ref: 'receiver-two', size: 4, sha256: DIGEST }) })).toEqual([]);
    const plan = ledger.plan(origin(2), intercept({ ref: 'local', size: 4, sha256: DIGEST }), SECRETS);
    expect(sentBody(plan)).toEqual({ ref: 'receiver-two', size: 4, sha256: DIGEST });
    expect(JSON.stringify(plan)).not.toContain('localRef');
    expect(plan.steps[0].bypass).toBeUndefined();
  });

  test('rewriting a descriptor whose sha256 is zeroed changes only its ref', () => {
    const ledger = new PairLedger('sim client');
    record(ledger, 0, upload(), { status: 201, body: JSON.stringify({ ref: 'receiver-one', size: 4, sha256: DIGEST }) });
    const plan = ledger.plan(origin(1), intercept({ ref: 'local', size: 4, sha256: ZERO }, 400), SECRETS);
    expect(sentBody(plan)).toEqual({ ref: 'receiver-one', size: 4, sha256: ZERO });
  });

  test('an intercept expected 400 goes out raw: bypass, no content sources yet, an unknown alias left literal', () => {
    const ledger = new PairLedger('sim client');
    const step = intercept({ ref: 'never-uploaded', size: 4, sha256: DIGEST }, 400);
    const plan = ledger.plan(origin(0), step, SECRETS);
    expect(plan.steps[0].bypass).toBe(true);
    expect(plan.contentSources).toEqual([]);
    expect(sentMessage(plan)).toEqual(step.message);
  });

  test('a confirmed upload becomes a content source; an SDK re-upload is folded into the delivered envelope, the alias map unchanged', () => {
    const ledger = new PairLedger('sim client');
    const original = { ref: 'receiver-original', size: 4, sha256: DIGEST };
    record(ledger, 0, upload(), { status: 201, body: JSON.stringify(original) });
    const step = intercept({ ref: 'local', size: 4, sha256: DIGEST });
    const plan = ledger.plan(origin(1), step, SECRETS);
    expect(plan.contentSources).toEqual([{ descriptor: original, bytes: BYTES.toString('base64') }]);
    expect(plan.steps[0].bypass).toBeUndefined();
    const stream = { ref: 'receiver-stream', size: 4, sha256: DIGEST };
    expect(record(ledger, 1, step, { status: 200, body: okAnswer(), contentUploads: [{ sourceRef: 'receiver-original', descriptor: stream }] })).toEqual([]);
    const delivered = ledger.records[1]?.delivered;
    expect(((delivered?.params as JsonObject).event as JsonObject).body).toEqual(stream);
    // The alias still names the receiver's original ref.
    expect(sentBody(ledger.plan(origin(2), intercept({ ref: 'local', size: 4, sha256: DIGEST }, 200, 'e2:request'), SECRETS))).toEqual(original);
  });

  test('planning a step of an entry that already failed is refused as a harness bug', () => {
    const ledger = new PairLedger('sim client');
    record(ledger, 0, upload(), { status: 500, body: '' });
    expect(() => ledger.plan(origin(1), intercept({}), SECRETS)).toThrow(/harness bug/);
  });
});

describe('selection', () => {
  test('a wire case runs only its own steps; an atomic row needs the helper; an unknown id is named', () => {
    const one = selectedEntryIds(FILE, ['form-accept-selected-complete-bytes']);
    expect(wireSchedule(FILE, one, []).map((s) => `${s.origin.caseId}#${s.origin.step}`)).toEqual([0, 1, 2, 3].map((i) => `form-accept-selected-complete-bytes#${i}`));
    expect(pairNeeds(FILE, one)).toEqual({ atomicHelper: false, unauthenticatedProbe: false });
    expect(pairNeeds(FILE, selectedEntryIds(FILE, ['atomic/before-return'])).atomicHelper).toBe(true);
    expect(() => selectedEntryIds(FILE, ['no-such-case'])).toThrow(UnknownElicitationIdError);
    expect(() => selectedEntryIds(FILE, ['no-such-case'])).toThrow(/"no-such-case"/);
  });
});

describe('per-step refusals', () => {
  const confirm = (ledger: PairLedger) => record(ledger, 0, upload(), { status: 201, body: JSON.stringify({ ref: 'receiver-original', size: 4, sha256: DIGEST }) });
  const stream = { ref: 'receiver-stream', size: 4, sha256: DIGEST };

  test.each([
    ['an unknown sourceRef', { ref: 'local', size: 4, sha256: DIGEST }, [{ sourceRef: 'nobody', descriptor: stream }], undefined, 'unknown/duplicate content upload source'],
    ['a repeated sourceRef', { ref: 'local', size: 4, sha256: DIGEST }, [{ sourceRef: 'receiver-original', descriptor: stream }, { sourceRef: 'receiver-original', descriptor: stream }], undefined, 'unknown/duplicate content upload source'],
    ['a descriptor for changed bytes', { ref: 'local', size: 4, sha256: DIGEST }, [{ sourceRef: 'receiver-original', descriptor: { ...stream, sha256: sha256Hex('other') } }], undefined, 'content upload descriptor integrity'],
    ['size 4.0', { ref: 'local', size: 4, sha256: DIGEST }, [{ sourceRef: 'receiver-original', descriptor: stream }], (text: string) => text.replace('"size":4', '"size":4.0'), 'content upload descriptor integrity'],
    ['a message whose descriptor has a zeroed sha256 (not selected)', { ref: 'local', size: 4, sha256: ZERO }, [{ sourceRef: 'receiver-original', descriptor: stream }], undefined, 'unselected content upload source'],
    ['a message {body: null}', null, [{ sourceRef: 'receiver-original', descriptor: stream }], undefined, 'unselected content upload source'],
    ['contentUploads that is not a list', { ref: 'local', size: 4, sha256: DIGEST }, { sourceRef: 'receiver-original' }, undefined, 'invalid content upload evidence'],
  ])('an SDK re-upload with %s is refused', (_what, body, contentUploads, editStdout, label) => {
    const ledger = new PairLedger('sim client');
    confirm(ledger);
    const step = intercept(body === null ? ({ body: null } as unknown as JsonObject) : (body as JsonObject));
    if (body === null) step.message = { jsonrpc: '2.0', id: 'e:request', method: 'hooks/intercept', params: { event: { id: 'e:request' }, body: null } };
    const stdout = JSON.stringify([{ status: 200, body: okAnswer(), contentUploads }]);
    expect(record(ledger, 1, step, undefined, editStdout ? editStdout(stdout) : stdout)).toEqual([label]);
  });

  test('content upload evidence on an upload step or a raw intercept is unexpected', () => {
    const ledger = new PairLedger('sim client');
    expect(record(ledger, 0, upload(), { status: 201, body: JSON.stringify({ ref: 'r', size: 4, sha256: DIGEST }), contentUploads: [{ sourceRef: 'r', descriptor: stream }] })).toEqual(['unexpected content upload evidence']);
    const raw = new PairLedger('sim client');
    expect(record(raw, 0, intercept({}, 400), { status: 400, body: '', contentUploads: [{ sourceRef: 'r', descriptor: stream }] })).toEqual(['unexpected content upload evidence']);
  });

  test('a 200 whose body is not exactly the empty-effects answer is a bad wire response', () => {
    const ledger = new PairLedger('sim client');
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 'e:request', result: { protocolVersion: 'draft', effects: [{ type: 'deny', reason: 'x' }] } });
    expect(record(ledger, 0, intercept({}), { status: 200, body: answer })).toEqual(['bad wire response']);
  });

  test('a wrong status is "<path> expected <n>, got <m>" and binds nothing', () => {
    const ledger = new PairLedger('sim client');
    expect(record(ledger, 0, upload(), { status: 400, body: 'no' })).toEqual(['/upload expected 201, got 400']);
    expect(ledger.contentSources()).toEqual([]);
  });

  test('a client that exits non-zero is quoted by its stderr tail; more than one result is "sender response count"; a timeout names the command', () => {
    const ledger = new PairLedger('sim client');
    const tail = `${'y'.repeat(3000)}END`;
    const [failure] = ledger.record(origin(0, 'a'), upload(), { kind: 'exited', exitCode: 3, signal: null, stdout: '', stderrTail: tail });
    expect(failure?.label.endsWith('END')).toBe(true);
    expect(failure?.label.length).toBe(1500);
    expect(failure?.party).toBe('sender');
    expect(ledger.record(origin(0, 'b'), upload(), exited(undefined, '[{"status":201,"body":""},{"status":201,"body":""}]')).map((f) => f.label)).toEqual(['sender response count']);
    expect(ledger.record(origin(0, 'c'), upload(), { kind: 'timeout', timeoutMs: 30_000, stderrTail: '' }).map((f) => f.label)).toEqual(["Command 'sim client' timed out after 30 seconds"]);
  });
});

describe('metadata and omit rows', () => {
  const ids = ['form-metadata-no-upload', 'form-omit-no-upload', 'url-metadata-no-upload', 'url-omit-no-upload'];

  test.each(ids)('%s: two intercepts, no upload, no secret in any wire byte or expected receipt, every receipt without bytes', async (id) => {
    const wire = FILE.cases.find((c) => c.id === id);
    expect(wire?.steps.map((s) => s.kind)).toEqual(['intercept', 'intercept']);
    for (const step of wire?.steps ?? []) {
      const item = step.kind === 'intercept' ? (((step.message.params as JsonObject).event as JsonObject).elicitation as JsonObject)[step.stage] : undefined;
      expect(item === undefined || !('body' in (item as JsonObject))).toBe(true);
    }
    expect(wire?.receipts.map((r) => r.bytes)).toEqual(['', '']);
    expect(JSON.stringify(wire?.receipts)).not.toContain('SECRET-SELECTED');
    const { plans } = await simulatePair(FILE, { selection: [id] });
    const wireBytes = plans.map((plan) => Buffer.from(plan.steps[0].bytes, 'base64').toString('utf8')).join('\n');
    expect(plans.filter((plan) => plan.steps[0].path === '/hooks/intercept')).toHaveLength(2);
    expect(wireBytes).not.toContain('SECRET-SELECTED');
  });

  test('the case ids the rules single out are all there', () => {
    const ids = FILE.cases.map((c) => c.id);
    for (const id of [
      'form-accept-selected-complete-bytes',
      'url-accept-not-completion',
      'form-decline',
      'form-cancel',
      'url-decline',
      'url-cancel',
      'request-not-preuploaded',
      'request-digest-mismatch',
      'bad-action',
      'url-content-forbidden',
      'upstream-default-annotations-preserved',
    ])
      expect(ids).toContain(id);
  });
});
