// The lying elicitation adapters (fixtures/elicitation-fakes/, README there) each carry exactly the
// flaw their name says, shown at the adapter itself: the one duty the reference keeps and the fake
// breaks, plus a neighbouring duty the fake still keeps, so a fake that broke more (or nothing)
// fails here before the family's integration tests rely on it. The family's verdicts on them are
// the elicitation run's own self-tests.

import { randomBytes } from 'node:crypto';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import type { JsonObject } from '../../harness/protocol/json.ts';
import { atomicRows } from './support/elicitation-atomic-rows.ts';
import { elicitationCommand, runMode, startReceiver, stopReceivers } from './support/elicitation-processes.ts';
import { ReceiverClient } from './support/elicitation-receiver-client.ts';
import { bodyBytes, envelope, eventOf, FORM_ACCEPT, FORM_REQUEST, itemOf } from './support/elicitation-wire.ts';
import { PROJECT_ROOT } from './support/reference-processes.ts';

const FAKES = path.join(PROJECT_ROOT, 'suites', 'harness', 'fixtures', 'elicitation-fakes');
const SCHEMAS = path.join(PROJECT_ROOT, 'schemas');
const PRINCIPAL = 'authenticated:typescript';
const tokens = { token: randomBytes(24).toString('base64url'), uploadToken: randomBytes(24).toString('base64url') };
const ENV = { AHP_ELICITATION_TOKEN: tokens.token, AHP_ELICITATION_UPLOAD_TOKEN: tokens.uploadToken, AHP_ELICITATION_BINDING: 'upload' };

afterAll(stopReceivers);

const command = (fake: string) => elicitationCommand(path.join(FAKES, fake), fake);

async function fakeReceiver(fake: string): Promise<ReceiverClient> {
  const start = await startReceiver(command(fake), [SCHEMAS, PRINCIPAL], ENV);
  if (!start.ok) throw new Error(`${fake} did not start (${start.kind}): ${start.detail}`);
  return new ReceiverClient(start.receiver.endpoint, tokens);
}

let names = 0;
const fresh = (label: string): string => `${label}-${++names}`;

async function openRequest(receiver: ReceiverClient, name: string, request: JsonObject = FORM_REQUEST): Promise<JsonObject> {
  const body = await receiver.uploaded(request);
  const answer = await receiver.intercept(envelope({ binding: 'upload', stage: 'request', name, body }));
  expect(answer.status).toBe(200);
  return envelope({ binding: 'upload', stage: 'result', name, body: await receiver.uploaded(FORM_ACCEPT) });
}

// Each fake is its own process, so the blocks run their tests side by side.
describe.concurrent('lying receivers', () => {
  test('gap-accepted: a selected gap is accepted; a zeroed digest is still refused', async () => {
    const receiver = await fakeReceiver('gap-accepted');
    const gap = envelope({ binding: 'upload', stage: 'request', name: fresh('gap'), body: await receiver.uploaded(FORM_REQUEST) });
    delete itemOf(gap, 'request')['body'];
    itemOf(gap, 'request')['gap'] = { reason: 'Unavailable selected body' };
    expect((await receiver.intercept(gap)).status).toBe(200);
    const digest = envelope({ binding: 'upload', stage: 'request', name: fresh('digest'), body: await receiver.uploaded(FORM_REQUEST) });
    (itemOf(digest, 'request')['body'] as JsonObject)['sha256'] = '0'.repeat(64);
    expect((await receiver.intercept(digest)).status).toBe(400);
  });

  test('default-mode-injected: a request without mode is recorded with mode form; one with a mode verbatim', async () => {
    const receiver = await fakeReceiver('default-mode-injected');
    const { mode: _mode, ...withoutMode } = FORM_REQUEST;
    await openRequest(receiver, fresh('default'), withoutMode);
    expect((await receiver.receipts()).at(-1)!['summary']).toEqual({ request: { mode: 'form', ...withoutMode } });
    await openRequest(receiver, fresh('explicit'));
    expect((await receiver.receipts()).at(-1)!['summary']).toEqual({ request: FORM_REQUEST });
  });

  test('form-default-applied: a field the answer left out is recorded with its default; a submitted one as sent', async () => {
    const receiver = await fakeReceiver('form-default-applied');
    const schema = FORM_REQUEST['requestedSchema'] as JsonObject;
    const properties = schema['properties'] as JsonObject;
    const request = { ...FORM_REQUEST, requestedSchema: { ...schema, properties: { ...properties, tags: { ...(properties['tags'] as JsonObject), default: ['b'] } } } };
    const name = fresh('field-default');
    await openRequest(receiver, name, request);
    const answer = { action: 'accept', content: { answer: 'explicit' } };
    const body = await receiver.uploaded(answer);
    expect((await receiver.intercept(envelope({ binding: 'upload', stage: 'result', name, body }))).status).toBe(200);
    const recorded = ((await receiver.receipts()).at(-1)!['summary'] as JsonObject)['result'];
    expect(recorded).toEqual({ action: 'accept', content: { answer: 'explicit', tags: ['b'] } });
    const complete = await openRequest(receiver, fresh('submitted'), request);
    expect((await receiver.intercept(complete)).status).toBe(200);
    expect(((await receiver.receipts()).at(-1)!['summary'] as JsonObject)['result']).toEqual(FORM_ACCEPT);
  });

  test('principal-from-source: a result names the event source as its principal', async () => {
    const receiver = await fakeReceiver('principal-from-source');
    const result = await openRequest(receiver, fresh('principal'));
    expect((await receiver.intercept(result)).status).toBe(200);
    const summary = (await receiver.receipts()).at(-1)!['summary'] as JsonObject;
    expect(summary['provenance']).toEqual({ kind: 'mcp', authenticatedSource: 'urn:spoofed:human' });
  });

  test('failed-result-consumes-pending: after a refused result, the correct one finds no request', async () => {
    const receiver = await fakeReceiver('failed-result-consumes-pending');
    const result = await openRequest(receiver, fresh('consumed'));
    const wrongSession = structuredClone(result);
    eventOf(wrongSession)['session'] = { id: 'wrong-session' };
    expect((await receiver.intercept(wrongSession)).status).toBe(400);
    expect((await receiver.intercept(result)).status).toBe(400);
  });

  test('duplicate-replaces-pending: a duplicate live request is accepted; its result still settles', async () => {
    const receiver = await fakeReceiver('duplicate-replaces-pending');
    const name = fresh('duplicate');
    const result = await openRequest(receiver, name);
    const again = envelope({ binding: 'upload', stage: 'request', name, body: await receiver.uploaded(FORM_REQUEST) });
    expect((await receiver.intercept(again)).status).toBe(200);
    expect((await receiver.intercept(result)).status).toBe(200);
  });

  test('receipts-without-bearer: /receipts answers a wrong token; intercepts still need the bearer', async () => {
    const receiver = await fakeReceiver('receipts-without-bearer');
    expect((await receiver.post('/receipts', '', { authorization: 'Bearer wrong' })).status).toBe(200);
    expect((await receiver.intercept(envelope({ binding: 'upload', stage: 'request', name: fresh('bearer'), selection: 'omit' }), 'wrong')).status).toBe(401);
  });
});

describe('lying senders (against the honest reference receiver)', () => {
  let receiver: ReceiverClient;
  beforeAll(async () => {
    const start = await startReceiver(elicitationCommand(path.join(PROJECT_ROOT, 'adapters', 'reference')), [SCHEMAS, PRINCIPAL], ENV);
    if (!start.ok) throw new Error(`reference receiver did not start: ${start.detail}`);
    receiver = new ReceiverClient(start.receiver.endpoint, tokens);
  });

  const plan = (step: JsonObject, contentSources: JsonObject[] = []): JsonObject => ({ endpoint: receiver.endpoint, ...tokens, steps: [step], contentSources });

  async function send(fake: string, input: JsonObject): Promise<JsonObject> {
    const run = await runMode(command(fake), ['client'], input, ENV);
    expect(run.exitCode, run.log).toBe(0);
    return (JSON.parse(run.stdout) as JsonObject[])[0]!;
  }

  test('sender-repairs-digest: a bypass intercept with a zeroed digest reaches the receiver repaired', async () => {
    const bytes = bodyBytes(FORM_REQUEST);
    const confirmed = await receiver.uploaded(FORM_REQUEST);
    const message = envelope({ binding: 'upload', stage: 'request', name: fresh('repaired'), body: { ...confirmed, sha256: '0'.repeat(64) } });
    const step = { path: '/hooks/intercept', bytes: Buffer.from(JSON.stringify(message)).toString('base64'), bypass: true };
    const result = await send('sender-repairs-digest', plan(step, [{ descriptor: { ...confirmed }, bytes: bytes.toString('base64') }]));
    expect(result['status']).toBe(200);
  });

  test('sender-rewrites-envelope: a delivered result carries a restamped time; a request goes out as planned', async () => {
    const name = fresh('restamped');
    const request = envelope({ binding: 'upload', stage: 'request', name, body: await receiver.uploaded(FORM_REQUEST) });
    const result = envelope({ binding: 'upload', stage: 'result', name, body: await receiver.uploaded(FORM_ACCEPT) });
    for (const message of [request, result]) {
      const sent = await send('sender-rewrites-envelope', plan({ path: '/hooks/intercept', bytes: Buffer.from(JSON.stringify(message)).toString('base64') }));
      expect(sent['status']).toBe(200);
    }
    const [requestReceipt, resultReceipt] = (await receiver.receipts()).slice(-2);
    expect(requestReceipt!['message']).toEqual(request);
    expect(eventOf(resultReceipt!['message'] as JsonObject)['time']).toBe('2026-09-15T12:00:00.000Z');
  });
});

describe.concurrent('lying atomic helpers', () => {
  const rows = atomicRows('upload');
  async function outputs(fake: string): Promise<JsonObject[]> {
    const run = await runMode(command(fake), ['check', SCHEMAS, PRINCIPAL], rows.map((row) => row.row), ENV);
    expect(run.exitCode, run.log).toBe(0);
    return JSON.parse(run.stdout) as JsonObject[];
  }

  test('atomic-partial-publication: exactly the rows rejected after a staged effect carry a summary', async () => {
    const published = (await outputs('atomic-partial-publication')).flatMap((output, i) => (output['accepted'] === false && output['summary'] !== undefined ? [rows[i]!.name] : []));
    expect(published).toEqual(['atomic-invalid-second-effect-rollback', 'atomic-ungranted-second-effect-rollback', 'atomic-conflicting-terminal-effects']);
  });

  test('atomic-mutates-input: exactly the row whose later effect writes into an earlier one reports a changed input', async () => {
    const changed = (await outputs('atomic-mutates-input')).flatMap((output, i) => (output['inputUnchanged'] === true ? [] : [rows[i]!.name]));
    expect(changed).toEqual(['atomic-invalid-second-effect-rollback']);
  });
});
