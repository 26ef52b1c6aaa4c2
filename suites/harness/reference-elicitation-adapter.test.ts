// The reference adapter's elicitation modes (ELICITATION-RULES §2-§5), started through its
// adapter.json `elicitation` command under the supervisor, in both bindings:
// - the receiver (`server`): its endpoint line, the three routes with their credentials, and the
//   validation duties, driven directly over HTTP so each duty costs one request: exact receipts with
//   the argv principal, no default mode injected, gaps and digest mismatches fail closed, a duplicate
//   live request is refused and left unchanged, a refused result leaves its request pending;
// - the atomic helper (`check`) on the 16 published rows;
// - the sender (`client`), one process per step as the family runs it: SDK uploads, SDK delivery with
//   re-uploaded content sources reported as contentUploads, bypass sending the exact bytes, raw
//   uploads keeping a foreign Authorization header, the wrong-token probe, and bad plans.

import { randomBytes } from 'node:crypto';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import type { FamilyCommand } from '../../harness/adapters/family-command.ts';
import type { JsonObject } from '../../harness/protocol/json.ts';
import { ReceiverClient } from './support/elicitation-receiver-client.ts';
import { atomicRows } from './support/elicitation-atomic-rows.ts';
import { elicitationCommand, runMode, startReceiver, stopReceivers, type Receiver } from './support/elicitation-processes.ts';
import {
  acceptedResponse,
  bodyBytes,
  descriptorOf,
  envelope,
  eventOf,
  FORM_ACCEPT,
  FORM_REQUEST,
  itemOf,
  sha256,
  URL_REQUEST,
  type Binding,
  type Descriptor,
} from './support/elicitation-wire.ts';
import { PROJECT_ROOT, REFERENCE_DIR } from './support/reference-processes.ts';

const SCHEMAS = path.join(PROJECT_ROOT, 'schemas');
const PRINCIPAL = 'authenticated:go';
const TOKEN = randomBytes(24).toString('base64url');
const UPLOAD_TOKEN = randomBytes(24).toString('base64url');
const COMMAND: FamilyCommand = elicitationCommand(REFERENCE_DIR);

function environment(binding: Binding): Record<string, string> {
  return { AHP_ELICITATION_TOKEN: TOKEN, AHP_ELICITATION_UPLOAD_TOKEN: UPLOAD_TOKEN, AHP_ELICITATION_BINDING: binding };
}

afterAll(stopReceivers);

async function started(binding: Binding): Promise<Receiver> {
  const start = await startReceiver(COMMAND, [SCHEMAS, PRINCIPAL], environment(binding));
  if (!start.ok) throw new Error(`receiver did not start (${start.kind}): ${start.detail}`);
  return start.receiver;
}

const clientOf = (receiver: Receiver): ReceiverClient => new ReceiverClient(receiver.endpoint, { token: TOKEN, uploadToken: UPLOAD_TOKEN });

let names = 0;
/** A fresh case name per test, so tests sharing a receiver never collide on event ids. */
const fresh = (label: string): string => `${label}-${++names}`;

describe('receiver startup', () => {
  test('the adapter declares its elicitation command, and the receiver prints one endpoint line with the origin only', async () => {
    expect(COMMAND.origin).toBe('declared');
    const receiver = await started('upload');
    expect(receiver.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await receiver.process.stop();
  });

  test.each([
    ['no event token', { AHP_ELICITATION_TOKEN: undefined }, [SCHEMAS, PRINCIPAL], 'Missing auth'],
    ['no principal', {}, [SCHEMAS], 'Missing auth'],
    ['a principal that is not authenticated:<language>', {}, [SCHEMAS, 'urn:spoofed:human'], 'Missing auth'],
    ['an unknown binding', { AHP_ELICITATION_BINDING: 'attachment' }, [SCHEMAS, PRINCIPAL], 'AHP_ELICITATION_BINDING is "attachment"'],
    ['a schema directory without the MCP bodies', {}, [path.join(PROJECT_ROOT, 'fixtures'), PRINCIPAL], 'mcp-elicitation.schema.json does not exist'],
  ])('%s: exit 2 before any endpoint line, saying why', async (_label, env, args, message) => {
    const start = await startReceiver(COMMAND, args, { ...environment('upload'), ...env });
    expect(start.ok).toBe(false);
    if (start.ok) return;
    expect(start.kind).toBe('eof');
    expect(start.detail).toContain(message);
    expect((await start.process.exited).code).toBe(2);
  });
});

describe('receiver, upload binding', () => {
  let receiver: ReceiverClient;
  beforeAll(async () => {
    receiver = clientOf(await started('upload'));
  });

  /** Uploads F and A and sends the request, which must be accepted. */
  async function openRequest(name: string, request: JsonObject = FORM_REQUEST): Promise<{ result: Descriptor }> {
    const requestBody = await receiver.uploaded(request);
    const result = await receiver.uploaded(FORM_ACCEPT);
    expect(await receiver.intercept(envelope({ binding: 'upload', stage: 'request', name, body: requestBody }))).toEqual({ status: 200, text: JSON.stringify(acceptedResponse(`${name}:request`)) });
    return { result };
  }

  test('upload answers 201 with exactly {ref,size,sha256}; bytes uploaded again get a ref of their own', async () => {
    const bytes = Buffer.from('one');
    const first = JSON.parse((await receiver.upload(bytes)).text) as Descriptor;
    expect(first).toEqual({ ref: first.ref, size: 3, sha256: sha256(bytes) });
    expect(Object.keys(first).sort()).toEqual(['ref', 'sha256', 'size']);
    const second = JSON.parse((await receiver.upload(Buffer.from('two'))).text) as Descriptor;
    expect(second.ref).not.toBe(first.ref);
  });

  test('upload refuses the event bearer and a wrong one with 401, and a digest that is not the body with 400', async () => {
    expect((await receiver.upload(Buffer.from('x'), 'unauthorized-upload')).status).toBe(401);
    expect((await receiver.upload(Buffer.from('x'), TOKEN)).status).toBe(401);
    const lying = await receiver.post('/upload', Buffer.from('x'), { authorization: `Bearer ${UPLOAD_TOKEN}`, 'content-type': 'application/octet-stream', 'ahp-content-sha256': '0'.repeat(64) });
    expect(lying.status).toBe(400);
  });

  test('an accepted form request and result leave exact receipts: envelope, body bytes, summary with the argv principal', async () => {
    const name = fresh('form-accept');
    const before = (await receiver.receipts()).length;
    const { result } = await openRequest(name);
    const resultMessage = envelope({ binding: 'upload', stage: 'result', name, body: result });
    expect(await receiver.intercept(resultMessage)).toEqual({ status: 200, text: JSON.stringify(acceptedResponse(`${name}:result`)) });
    const added = (await receiver.receipts()).slice(before);
    expect(added).toHaveLength(2);
    expect(added[0]!['bytes']).toBe(bodyBytes(FORM_REQUEST).toString('base64'));
    expect(added[0]!['summary']).toEqual({ request: FORM_REQUEST });
    expect(added[1]).toEqual({
      message: resultMessage,
      bytes: bodyBytes(FORM_ACCEPT).toString('base64'),
      summary: { request: FORM_REQUEST, result: FORM_ACCEPT, provenance: { kind: 'mcp', authenticatedSource: PRINCIPAL }, externalCompletion: false },
    });
  });

  test('a form request without mode is recorded without one (no default injected)', async () => {
    const name = fresh('form-default-mode');
    const { mode: _mode, ...withoutMode } = FORM_REQUEST;
    await openRequest(name, withoutMode);
    const last = (await receiver.receipts()).at(-1)!;
    expect(last['summary']).toEqual({ request: withoutMode });
  });

  test.each([
    ['a selected request gap', (message: JsonObject) => {
      const item = itemOf(message, 'request');
      delete item['body'];
      item['gap'] = { reason: 'Unavailable selected body' };
    }],
    ['a zeroed digest', (message: JsonObject) => {
      (itemOf(message, 'request')['body'] as JsonObject)['sha256'] = '0'.repeat(64);
    }],
    ['a ref that was never uploaded', (message: JsonObject) => {
      (itemOf(message, 'request')['body'] as JsonObject)['ref'] = 'form:request';
    }],
    ['a JSON-RPC id that is not the event id', (message: JsonObject) => {
      message['id'] = 'another-id';
    }],
    ['metadata mode url for a form body', (message: JsonObject) => {
      (eventOf(message)['elicitation'] as JsonObject)['mode'] = 'url';
    }],
    ['an inline text part in the upload binding', (message: JsonObject) => {
      (eventOf(message)['elicitation'] as JsonObject)['request'] = { id: 'x', kind: 'text', mediaType: 'text/plain', selection: 'body', text: '{}' };
    }],
  ])('%s: 400 and nothing recorded', async (_label, mutate) => {
    const name = fresh('refused');
    const body = await receiver.uploaded(FORM_REQUEST);
    const message = envelope({ binding: 'upload', stage: 'request', name, body });
    mutate(message);
    const before = await receiver.receipts();
    expect((await receiver.intercept(message)).status).toBe(400);
    expect(await receiver.receipts()).toEqual(before);
  });

  test('a body that breaks the MCP request schema (a nested form field) is refused', async () => {
    const name = fresh('nonprimitive');
    const schema = FORM_REQUEST['requestedSchema'] as JsonObject;
    const nested = { ...FORM_REQUEST, requestedSchema: { ...schema, properties: { ...(schema['properties'] as JsonObject), nested: { type: 'object' } } } };
    const body = await receiver.uploaded(nested);
    expect((await receiver.intercept(envelope({ binding: 'upload', stage: 'request', name, body }))).status).toBe(400);
  });

  test('a live request is never replaced: the duplicate is refused and the first one still settles', async () => {
    const name = fresh('duplicate');
    const { result } = await openRequest(name);
    const other = { ...FORM_REQUEST, requestedSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] } };
    const otherBody = await receiver.uploaded(other);
    expect((await receiver.intercept(envelope({ binding: 'upload', stage: 'request', name, body: otherBody }))).status).toBe(400);
    // A's content satisfies the first request's schema, not the duplicate's.
    expect((await receiver.intercept(envelope({ binding: 'upload', stage: 'result', name, body: result }))).status).toBe(200);
  });

  test('a refused result leaves its request pending: the corrected result is accepted afterwards', async () => {
    const name = fresh('failed-result');
    const { result } = await openRequest(name);
    const wrongSession = envelope({ binding: 'upload', stage: 'result', name, body: result });
    eventOf(wrongSession)['session'] = { id: 'wrong-session' };
    expect((await receiver.intercept(wrongSession)).status).toBe(400);
    const before = (await receiver.receipts()).length;
    expect((await receiver.intercept(envelope({ binding: 'upload', stage: 'result', name, body: result }))).status).toBe(200);
    const last = (await receiver.receipts()).slice(before);
    expect(last).toHaveLength(1);
    // The principal is the argv one, never the event's source.
    expect((last[0]!['summary'] as JsonObject)['provenance']).toEqual({ kind: 'mcp', authenticatedSource: PRINCIPAL });
  });

  test.each([
    ['missing required answer', { action: 'accept', content: {} }],
    ['absent content for a required answer', { action: 'accept' }],
    ['a number for a string field', { action: 'accept', content: { answer: 4 } }],
    ['content on a decline', { action: 'decline', content: {} }],
  ])('a form result with %s is refused against the requested schema', async (_label, value) => {
    const name = fresh('form-content');
    await openRequest(name);
    const body = await receiver.uploaded(value);
    expect((await receiver.intercept(envelope({ binding: 'upload', stage: 'result', name, body, action: value.action as 'accept' | 'decline' }))).status).toBe(400);
  });

  test('submitted values are validated as sent: a default is neither applied nor checked', async () => {
    const name = fresh('defaults');
    const request = {
      ...FORM_REQUEST,
      requestedSchema: { type: 'object', properties: { answer: { type: 'string', default: 'unchanged default' }, amount: { type: 'integer', default: 1.25 } }, required: ['answer'] },
    };
    await openRequest(name, request);
    const result = { action: 'accept', content: { answer: 'explicit', amount: 2 } };
    const body = await receiver.uploaded(result);
    expect((await receiver.intercept(envelope({ binding: 'upload', stage: 'result', name, body }))).status).toBe(200);
    expect(((await receiver.receipts()).at(-1)!['summary'] as JsonObject)['result']).toEqual(result);
  });

  test('metadata selection reads no body: receipts carry empty bytes and the selections', async () => {
    const name = fresh('metadata');
    const before = (await receiver.receipts()).length;
    expect((await receiver.intercept(envelope({ binding: 'upload', stage: 'request', name, selection: 'metadata' }))).status).toBe(200);
    expect((await receiver.intercept(envelope({ binding: 'upload', stage: 'result', name, selection: 'omit' }))).status).toBe(200);
    const added = (await receiver.receipts()).slice(before);
    expect(added.map((receipt) => receipt['bytes'])).toEqual(['', '']);
    expect(added.map((receipt) => receipt['summary'])).toEqual([
      { selection: 'metadata' },
      { selection: { request: 'metadata', result: 'omit' }, bodyValidation: 'not-selected', provenance: { kind: 'mcp', authenticatedSource: PRINCIPAL }, externalCompletion: false },
    ]);
  });

  test('the event routes need the event bearer: 401 for a wrong or missing one, nothing recorded', async () => {
    const name = fresh('bearer');
    const before = await receiver.receipts();
    expect((await receiver.intercept(envelope({ binding: 'upload', stage: 'request', name, selection: 'omit' }), UPLOAD_TOKEN)).status).toBe(401);
    expect((await receiver.post('/receipts', '', { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await receiver.post('/receipts', '', {})).status).toBe(401);
    expect(await receiver.receipts()).toEqual(before);
  });
});

describe('receiver, inline binding', () => {
  let receiver: ReceiverClient;
  beforeAll(async () => {
    receiver = clientOf(await started('inline'));
  });

  test('a text part carries the MCP JSON: accepted, and the receipt bytes are the text bytes', async () => {
    const name = fresh('inline-url');
    const requestText = bodyBytes(URL_REQUEST).toString('utf8');
    const resultText = bodyBytes({ action: 'accept', _meta: { keep: true } }).toString('utf8');
    expect((await receiver.intercept(envelope({ binding: 'inline', stage: 'request', name, mode: 'url', text: requestText }))).status).toBe(200);
    const resultMessage = envelope({ binding: 'inline', stage: 'result', name, mode: 'url', text: resultText });
    expect((await receiver.intercept(resultMessage)).status).toBe(200);
    const last = (await receiver.receipts()).slice(-2);
    expect(last.map((receipt) => receipt['bytes'])).toEqual([Buffer.from(requestText).toString('base64'), Buffer.from(resultText).toString('base64')]);
    expect(last[1]!['message']).toEqual(resultMessage);
    expect((last[1]!['summary'] as JsonObject)['externalCompletion']).toBe(false);
  });

  test.each<[string, (message: JsonObject) => void]>([
    ['text that is not JSON', (message: JsonObject) => {
      itemOf(message, 'request')['text'] = '{"mode": "form",';
    }],
    ['text that repeats a key', (message: JsonObject) => {
      itemOf(message, 'request')['text'] = '{"message":"a","message":"b","requestedSchema":{"type":"object","properties":{}}}';
    }],
    ['a legacy body:{ref} on a text part', (message: JsonObject) => {
      itemOf(message, 'request')['body'] = { ref: 'x' };
    }],
    ['an upload-binding item', (message: JsonObject) => {
      const item = itemOf(message, 'request');
      item['kind'] = 'elicitation.request';
      item['mediaType'] = 'application/json';
    }],
    ['a gap instead of the text', (message: JsonObject) => {
      const item = itemOf(message, 'request');
      delete item['text'];
      item['gap'] = { reason: 'Unavailable selected body' };
    }],
    // Absent modes are unsupported (interaction-payloads.md), and an empty AHP elicitation object grants neither.
    ...(
      [
        ['no elicitation capability', undefined],
        ['an empty elicitation capability', {}],
        ['only the other mode granted', { url: {} }],
      ] as const
    ).map(([label, granted]): [string, (message: JsonObject) => void] => [
      `a form request with ${label}`,
      (message: JsonObject) => {
        const capabilities = (message['params'] as JsonObject)['capabilities'] as JsonObject;
        if (granted === undefined) delete capabilities['elicitation'];
        else capabilities['elicitation'] = { ...granted };
      },
    ]),
  ])('%s: 400', async (_label, mutate) => {
    const message = envelope({ binding: 'inline', stage: 'request', name: fresh('inline-refused'), text: bodyBytes(FORM_REQUEST).toString('utf8') });
    // The unmutated message is accepted (under another name), so each 400 is the mutation's.
    const control = envelope({ binding: 'inline', stage: 'request', name: fresh('inline-control'), text: bodyBytes(FORM_REQUEST).toString('utf8') });
    expect((await receiver.intercept(control)).status).toBe(200);
    mutate(message);
    expect((await receiver.intercept(message)).status).toBe(400);
  });
});

describe.each(['upload', 'inline'] as const)('atomic helper, %s binding', (binding) => {
  const rows = atomicRows(binding);
  let outputs: JsonObject[];
  beforeAll(async () => {
    const run = await runMode(COMMAND, ['check', SCHEMAS, PRINCIPAL], rows.map((row) => row.row), environment(binding));
    expect(run.exitCode, run.log).toBe(0);
    outputs = JSON.parse(run.stdout) as JsonObject[];
  });

  test('a row that stages on a mode its boundary does not grant is rejected whole (absent modes are unsupported)', async () => {
    const positive = rows.find((row) => row.name === 'atomic-before-return')!;
    const ungranted = JSON.parse(JSON.stringify(positive.row)) as JsonObject;
    delete (((ungranted['request'] as JsonObject)['params'] as JsonObject)['capabilities'] as JsonObject)['elicitation'];
    const run = await runMode(COMMAND, ['check', SCHEMAS, PRINCIPAL], [positive.row, ungranted], environment(binding));
    expect(run.exitCode, run.log).toBe(0);
    expect((JSON.parse(run.stdout) as JsonObject[]).map((output) => output['accepted'])).toEqual([true, false]);
  });

  test('one output per row, in order, none mutating its input', () => {
    expect(outputs).toHaveLength(16);
    expect(outputs.map((output) => output['inputUnchanged'])).toEqual(rows.map(() => true));
  });

  test.each(atomicRows(binding).map((row) => [row.name, row] as const))('%s', (_name, row) => {
    const output = outputs[rows.findIndex((candidate) => candidate.name === row.name)]!;
    if (row.expected === null) {
      expect(output).toEqual({ accepted: false, inputUnchanged: true });
      return;
    }
    expect(output['accepted']).toBe(true);
    const summary = output['summary'] as JsonObject;
    expect(summary['result']).toEqual(row.expected);
    expect(summary['provenance']).toEqual({ kind: 'hook', authenticatedSource: PRINCIPAL, effects: row.effectTypes });
    expect(summary['externalCompletion']).toBe(false);
  });
});

describe('sender, one process per step', () => {
  let receiver: ReceiverClient;
  beforeAll(async () => {
    receiver = clientOf(await started('upload'));
  });

  const plan = (step: JsonObject, extra: JsonObject = {}): JsonObject => ({ endpoint: receiver.endpoint, token: TOKEN, uploadToken: UPLOAD_TOKEN, steps: [step], contentSources: [], ...extra });

  async function send(input: JsonObject, binding: Binding = 'upload'): Promise<JsonObject> {
    const run = await runMode(COMMAND, ['client'], input, environment(binding));
    expect(run.exitCode, run.log).toBe(0);
    const results = JSON.parse(run.stdout) as JsonObject[];
    expect(results).toHaveLength(1);
    return results[0]!;
  }

  test('upload, then SDK delivery that streams the confirmed source again and reports it; bypass sends the exact bytes', async () => {
    const name = fresh('sender');
    const bytes = bodyBytes(FORM_REQUEST);
    const uploadResult = await send(plan({ path: '/upload', bytes: bytes.toString('base64'), headers: { 'AHP-Content-SHA256': sha256(bytes) } }));
    expect(uploadResult['status']).toBe(201);
    const confirmed = JSON.parse(uploadResult['body'] as string) as Descriptor;
    expect(confirmed).toEqual(descriptorOf(confirmed.ref, bytes));

    const message = envelope({ binding: 'upload', stage: 'request', name, body: confirmed });
    const delivered = await send(plan({ path: '/hooks/intercept', bytes: Buffer.from(JSON.stringify(message)).toString('base64') }, { contentSources: [{ descriptor: { ...confirmed }, bytes: bytes.toString('base64') }] }));
    expect(delivered['status']).toBe(200);
    expect(JSON.parse(delivered['body'] as string)).toEqual(acceptedResponse(`${name}:request`));
    const uploads = delivered['contentUploads'] as unknown as Array<{ sourceRef: string; descriptor: Descriptor }>;
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.sourceRef).toBe(confirmed.ref);
    expect(uploads[0]!.descriptor).toEqual(descriptorOf(uploads[0]!.descriptor.ref, bytes));
    // The receiver got the planned envelope with only the re-uploaded ref changed.
    const expectedMessage = envelope({ binding: 'upload', stage: 'request', name, body: uploads[0]!.descriptor });
    expect((await receiver.receipts()).at(-1)!['message']).toEqual(expectedMessage);

    const duplicate = Buffer.from(JSON.stringify(message));
    const bypassed = await send(plan({ path: '/hooks/intercept', bytes: duplicate.toString('base64'), bypass: true }));
    expect(bypassed['status']).toBe(400);
    expect(bypassed['contentUploads']).toBeUndefined();
  });

  test('an upload step with a foreign Authorization header keeps it (401); the wrong-token probe gets 401 and exits 0', async () => {
    const bytes = Buffer.from('x');
    const foreign = await send(plan({ path: '/upload', bytes: bytes.toString('base64'), headers: { 'AHP-Content-SHA256': sha256(bytes), Authorization: 'Bearer unauthorized-upload' } }));
    expect(foreign['status']).toBe(401);
    const probe = await send({ endpoint: receiver.endpoint, token: 'wrong', steps: [{ path: '/receipts', bytes: '' }] });
    expect(probe['status']).toBe(401);
  });

  test('an inline intercept goes out through the SDK without uploads', async () => {
    const inline = await started('inline');
    const message = envelope({ binding: 'inline', stage: 'request', name: fresh('sender-inline'), text: bodyBytes(FORM_REQUEST).toString('utf8') });
    const result = await send({ endpoint: inline.endpoint, token: TOKEN, steps: [{ path: '/hooks/intercept', bytes: Buffer.from(JSON.stringify(message)).toString('base64') }] }, 'inline');
    expect(result['status']).toBe(200);
    expect(result['contentUploads']).toBeUndefined();
  });

  test.each([
    ['two steps', { steps: [{ path: '/receipts', bytes: '' }, { path: '/receipts', bytes: '' }] }, 'plan: steps: expected an array with exactly one step'],
    ['an unknown path', { steps: [{ path: '/intercept', bytes: '' }] }, 'plan: steps[0].path: expected /upload, /hooks/intercept or /receipts'],
    ['a bypass that is not a boolean', { steps: [{ path: '/receipts', bytes: '', bypass: 'yes' }] }, 'plan: steps[0].bypass: expected a boolean'],
  ])('a plan with %s: exit 2 naming the field', async (_label, extra, message) => {
    const run = await runMode(COMMAND, ['client'], { endpoint: receiver.endpoint, token: TOKEN, ...extra }, environment('upload'));
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.log).toContain(message);
    expect(run.log).not.toContain(TOKEN);
  });
});
