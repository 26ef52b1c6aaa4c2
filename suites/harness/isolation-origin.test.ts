// The sender-isolation capture origin and verifier (harness/families/isolation/): the protocol runner's own
// self-tests (SENDER-ISOLATION-RULES §9) — a clean anonymous upload is credited; every credential,
// caller header, wrong framing, doubled or missing upload, redirect and wrong descriptor is refused.

import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterEach, describe, expect, test } from 'vitest';

import { rawRequest } from '../../harness/families/auth/probes-raw-http.ts';
import { startCaptureOrigin, type Capture, type CaptureOrigin } from '../../harness/families/isolation/capture-origin.ts';
import { isolationBody, isolationHash, isolationScenario } from '../../harness/families/isolation/isolation-scenario.ts';
import { captureErrors, isolationVerifier, LABELS } from '../../harness/families/isolation/verify-isolation.ts';
import { loadValidators, PROJECT_ROOT } from '../../harness/protocol/load-validators.ts';
import type { ScriptVerifier } from '../../harness/lifecycle-adapters/runner.ts';
import type { StepScenario } from '../../harness/lifecycle-adapters/scenario-types.ts';
import net from 'node:net';
import path from 'node:path';

const BODY = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from([0x00, 0xff])]);
const HASH = createHash('sha256').update(BODY).digest('hex');

let origin: CaptureOrigin | undefined;
afterEach(async () => {
  await origin?.close();
  origin = undefined;
});

/** One raw HTTP/1.1 POST with exactly these header lines and body (so duplicate and odd headers go out as written). */
function post(endpoint: string, headerLines: string[], body: Buffer): Promise<{ status: number; headers: string; body: string }> {
  const url = new URL(endpoint);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port) }, () => {
      socket.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n${headerLines.map((line) => `${line}\r\n`).join('')}\r\n`);
      socket.end(body);
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0), headers: text.slice(0, split), body: text.slice(split + 4) });
    });
  });
}

const clean = (body: Buffer = BODY, hash = HASH): string[] => ['Content-Type: application/octet-stream', `Content-Length: ${body.length}`, `AHP-Content-SHA256: ${hash}`];

describe('the capture origin', () => {
  test('(a) a clean anonymous upload gets 201 with a urn:uuid descriptor, and the verifier credits it', async () => {
    origin = await startCaptureOrigin();
    const answer = await post(origin.endpoint, clean(), BODY);
    expect(answer.status).toBe(201);
    expect(answer.headers.toLowerCase()).toContain('content-type: application/json');
    expect(answer.headers.toLowerCase()).toContain(`content-length: ${Buffer.byteLength(answer.body)}`);
    const descriptor = JSON.parse(answer.body) as { ref: string; size: number; sha256: string };
    expect(Object.keys(descriptor)).toEqual(['ref', 'size', 'sha256']);
    expect(descriptor.ref).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);
    const captures = origin.captures();
    expect(captures).toEqual([{ path: '/capture', size: 258, sha256: HASH, subscription: null, ref: null, declaredHash: HASH, contentType: 'application/octet-stream', sensitiveHeaders: [], transferEncoding: null, descriptor }]);
    expect(captureErrors(captures, { size: 258, sha256: HASH })).toEqual([]);
  });

  test.each([
    ['AHP-Subscription: body', true],
    ['AHP-Content-Ref: caller-ref', true],
    ['Authorization: Bearer secret', true],
    ['Proxy-Authorization: Basic eDp5', true],
    ['Cookie: session=1', true],
  ])('(b) %s: refused with 400 after the capture, and the verifier fails it', async (line) => {
    origin = await startCaptureOrigin();
    const answer = await post(origin.endpoint, [...clean(), line], BODY);
    expect(answer.status).toBe(400);
    expect(answer.body).toBe('');
    expect(captureErrors(origin.captures(), { size: 258, sha256: HASH })).toContain(LABELS.capture);
  });

  test.each([
    ['a hash of zeros', clean(BODY, '0'.repeat(64))],
    ['an uppercase hash', clean(BODY, HASH.toUpperCase())],
    ['Content-Type: application/json', ['Content-Type: application/json', `Content-Length: ${BODY.length}`, `AHP-Content-SHA256: ${HASH}`]],
  ])('(b) %s: refused with 400 and failed by the verifier', async (_name, lines) => {
    origin = await startCaptureOrigin();
    expect((await post(origin.endpoint, lines, BODY)).status).toBe(400);
    expect(captureErrors(origin.captures(), { size: 258, sha256: HASH })).not.toEqual([]);
  });

  test.each([
    ['Content-Length: 1048577', ['Content-Type: application/octet-stream', 'Content-Length: 1048577', `AHP-Content-SHA256: ${HASH}`]],
    ['Content-Length: +4', ['Content-Type: application/octet-stream', 'Content-Length: +4', `AHP-Content-SHA256: ${HASH}`]],
    ['Content-Length: 04', ['Content-Type: application/octet-stream', 'Content-Length: 04', `AHP-Content-SHA256: ${HASH}`]],
    ['Transfer-Encoding: chunked', ['Content-Type: application/octet-stream', 'Transfer-Encoding: chunked', `AHP-Content-SHA256: ${HASH}`]],
    ['Content-Encoding: gzip', [...clean(), 'Content-Encoding: gzip']],
    ['a second Content-Type', [...clean(), 'Content-Type: application/octet-stream']],
    ['no AHP-Content-SHA256', ['Content-Type: application/octet-stream', `Content-Length: ${BODY.length}`]],
  ])('(b) %s: refused with 400 before any capture, so the verifier finds none', async (_name, lines) => {
    origin = await startCaptureOrigin();
    const body = lines.some((line) => line.startsWith('Transfer-Encoding')) ? Buffer.from(`${BODY.length.toString(16)}\r\n${BODY.toString('latin1')}\r\n0\r\n\r\n`, 'latin1') : lines.some((line) => /Content-Length: (\+4|04)$/.test(line)) ? BODY.subarray(0, 4) : BODY;
    const answer = await post(origin.endpoint, lines, body).catch(() => ({ status: 400, headers: '', body: '' }));
    expect(answer.status).toBe(400);
    expect(origin.captures()).toEqual([]);
    expect(captureErrors(origin.captures(), { size: 258, sha256: HASH })).toEqual([LABELS.count]);
  });

  test('(c) an empty body gets 201 and a clean descriptor', async () => {
    origin = await startCaptureOrigin();
    const empty = Buffer.alloc(0);
    const hash = createHash('sha256').update(empty).digest('hex');
    expect(hash.startsWith('e3b0c442')).toBe(true);
    const answer = await post(origin.endpoint, clean(empty, hash), empty);
    expect(answer.status).toBe(201);
    expect(captureErrors(origin.captures(), { size: 0, sha256: hash })).toEqual([]);
  });

  test('(d) a 307 in front of the origin is not followed by the harness, and nothing is captured', async () => {
    origin = await startCaptureOrigin();
    const redirector: Server = createServer((request, response) => {
      request.resume();
      response.writeHead(307, { location: origin!.endpoint, 'content-length': '0' });
      response.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    try {
      const answer = await rawRequest(`http://127.0.0.1:${(redirector.address() as AddressInfo).port}`, { method: 'POST', route: '/intercept', body: '{}' });
      expect(answer).toMatchObject({ kind: 'response', status: 307 });
      expect(origin.captures()).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => redirector.close(() => resolve()));
    }
  });

  test('other methods are not implemented and never captured', async () => {
    origin = await startCaptureOrigin();
    expect(await rawRequest(origin.endpoint.replace(/\/capture$/, ''), { method: 'GET', route: '/capabilities' })).toMatchObject({ status: 501 });
    expect(origin.captures()).toEqual([]);
  });
});

describe('captureErrors: each wrong capture is named', () => {
  const good: Capture = { path: '/capture', size: 258, sha256: HASH, subscription: null, ref: null, declaredHash: HASH, contentType: 'application/octet-stream', sensitiveHeaders: [], transferEncoding: null, descriptor: { ref: 'urn:uuid:00000000-0000-4000-8000-000000000000', size: 258, sha256: HASH } };
  const body = { size: 258, sha256: HASH };
  test('the clean capture passes', () => {
    expect(captureErrors([good], body)).toEqual([]);
  });
  test.each([
    ['authorization', { sensitiveHeaders: ['authorization'] }, [LABELS.capture]],
    ['proxy-authorization', { sensitiveHeaders: ['proxy-authorization'] }, [LABELS.capture]],
    ['cookie', { sensitiveHeaders: ['cookie'] }, [LABELS.capture]],
    ['a subscription', { subscription: 'body' }, [LABELS.capture]],
    ['a caller ref', { ref: 'caller-ref' }, [LABELS.capture]],
    ['chunked', { transferEncoding: 'chunked' as unknown as null }, [LABELS.capture]],
    ['a zero declared hash', { declaredHash: '0'.repeat(64) }, [LABELS.capture]],
    ['a caller descriptor ref', { descriptor: { ref: 'caller-ref', size: 258, sha256: HASH } }, [LABELS.descriptor]],
    ['a wrong descriptor size', { descriptor: { ref: 'urn:uuid:x', size: 0, sha256: HASH } }, [LABELS.descriptor]],
    ['a wrong descriptor hash', { descriptor: { ref: 'urn:uuid:x', size: 258, sha256: '0'.repeat(64) } }, [LABELS.descriptor]],
    ['a wrong body', { size: 10, sha256: createHash('sha256').update('wrong body').digest('hex') }, [LABELS.capture]],
    ['no descriptor (refused, so the capture is not the clean one either)', { descriptor: undefined }, [LABELS.capture, LABELS.descriptor]],
  ])('%s', (_name, change, labels) => {
    const capture = { ...good, ...change } as Capture;
    if ('descriptor' in change && change.descriptor === undefined) delete capture.descriptor;
    expect(captureErrors([capture], body)).toEqual(labels);
  });
  test('(f) none, or two clean ones, is the one count error', () => {
    expect(captureErrors([], body)).toEqual([LABELS.count]);
    expect(captureErrors([good, good], body)).toEqual([LABELS.count]);
  });
});

describe('the isolation verifier around the lifecycle verifier', () => {
  const validators = loadValidators(path.join(PROJECT_ROOT, 'schemas'));
  const row = isolationScenario(validators);
  const good: Capture = { path: '/capture', size: 274, sha256: isolationHash(), subscription: null, ref: null, declaredHash: isolationHash(), contentType: 'application/octet-stream', sensitiveHeaders: [], transferEncoding: null, descriptor: { ref: 'urn:uuid:1', size: 274, sha256: isolationHash() } };
  let seen: { rows: StepScenario[]; report: unknown } | undefined;
  const lifecycle: ScriptVerifier<StepScenario> = (evidence) => {
    seen = { rows: evidence.rows, report: evidence.report };
    return { runFailures: [], rows: new Map([[row.id, []]]) };
  };
  const report = (uploadStatuses: unknown) => ({ language: 'typescript', results: [{ id: row.id, actual: { ...row.expected, uploadStatuses } }] });
  const run = (captures: Capture[], reportValue: unknown) =>
    isolationVerifier(() => captures, { size: 274, sha256: isolationHash() }, lifecycle)({ rows: [row], transport: 'http', report: reportValue, receipts: { entries: [] }, exitCode: 0, clientLanguage: 'typescript' });

  test('the derived row: body B of 274 bytes, its hash, the alias, no items, [201] expected', () => {
    expect(isolationBody().length).toBe(274);
    expect(isolationHash()).toBe('080c705a104dd01d75f01df1da2efe08ed4e9415b92df41d9edcda7185d230ef');
    const upload = row.steps[0]!;
    expect(upload).toMatchObject({ op: 'upload', ref: 'sender-isolation', size: 274, sha256: isolationHash(), subscription: 'body' });
    expect((row.requests.a as { params: { event: object } }).params.event).not.toHaveProperty('items');
    expect(row.expected.uploadStatuses).toEqual([201]);
  });
  test('(e) a passing case: the lifecycle verifier runs once, on copies without the upload step and statuses', () => {
    seen = undefined;
    expect(run([good], report([201])).runFailures).toEqual([]);
    expect(seen!.rows[0]!.steps.some((step) => step.op === 'upload')).toBe(false);
    expect(seen!.rows[0]!.expected.uploadStatuses).toEqual([]);
    expect((seen!.report as { results: Array<{ actual: { uploadStatuses: unknown } }> }).results[0]!.actual.uploadStatuses).toEqual([]);
    expect(row.steps[0]!.op).toBe('upload'); // the input is not changed
  });
  test('(e) an unconfirmed upload (204) fails; a missing report fails', () => {
    expect(run([good], report([204])).runFailures.map((check) => check.label)).toEqual([LABELS.confirmed]);
    expect(run([good], undefined).runFailures.map((check) => check.label)).toEqual([LABELS.result]);
  });
  test("an upload receipt of the sender's own receiver is charged to the sender (§5); other event findings keep their party", () => {
    const events: ScriptVerifier<StepScenario> = () => ({
      runFailures: [
        { label: 'upload multiplicity mismatch', party: 'client or server', message: '1 upload receipt(s) not consumed by a content upload confirmation, but the selected scenarios have 0 upload step(s)' },
        { label: 'received: exact attempt multiplicity mismatch', party: 'client or server', message: 'two receipts' },
      ],
      rows: new Map([[row.id, []]]),
    });
    const verified = isolationVerifier(() => [good], { size: 274, sha256: isolationHash() }, events)({ rows: [row], transport: 'stdio', report: report([201]), receipts: { entries: [] }, exitCode: 0, clientLanguage: 'typescript' });
    expect(verified.runFailures.map((check) => [check.label, check.party])).toEqual([
      ['upload multiplicity mismatch', 'client'],
      ['received: exact attempt multiplicity mismatch', 'client or server'],
    ]);
    expect(verified.runFailures[0]!.message).toContain("the sender also uploaded to its own server's uploadEndpoint");
  });
  test('(f) no capture fails the case, without quoting any header value', () => {
    const failures = run([], report([201])).runFailures;
    expect(failures.map((check) => check.label)).toEqual([LABELS.count]);
    expect(failures[0]!.message).toBe('the independent upload origin received no upload');
  });
});
