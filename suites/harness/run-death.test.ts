// Where a client stopped (harness/runs/run-death.ts), the bounded log tail it is shown with
// (log-tail.ts) and the redaction that keeps credentials out of it (redact-secrets.ts). The child
// runs that prove the whole path — a fake client that dies at the first row it cannot run — are in
// broken-adapters.test.ts (core) and catalogue-lying-adapters.test.ts (lifecycle runs).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { OAUTH_CLIENT_SECRET, STATIC_BEARER, UPLOAD_TOKEN } from '../../harness/auth/constants.ts';
import { readLogTail, tailLines } from '../../harness/runs/log-tail.ts';
import { redactSecrets, secretsOfAuthSettings } from '../../harness/runs/redact-secrets.ts';
import { describeRunDeath, rowIndexOfMessage } from '../../harness/runs/run-death.ts';

const request = (id: string, eventId = id) => ({ jsonrpc: '2.0', id, method: 'hooks/intercept', params: { protocolVersion: 'draft', event: { id: eventId, type: 'tool.before' } } });
const notification = (eventId: string | undefined) => ({ jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft', ...(eventId === undefined ? {} : { event: { id: eventId } }) } });

// Core-, lifecycle- and catalogue-shaped rows: the message sits at different places in each.
const rows = [
  { id: 'core.a', request: request('core.a'), response: { jsonrpc: '2.0', id: 'core.a', result: {} } },
  { id: 'life.b', requests: { a: request('life.b:rpc', 'life.b:event') }, steps: [] },
  { id: 'cat.c', steps: [{ op: 'rawNotify', message: notification(undefined) }] },
  { id: 'cat.d', steps: [{ op: 'notify', message: notification('cat.d/event') }] },
];

describe('rowIndexOfMessage: the row a message belongs to, for any family', () => {
  test('by the message itself, by its JSON-RPC id, by its event id', () => {
    expect(rowIndexOfMessage(rows, request('core.a'))).toBe(0);
    expect(rowIndexOfMessage(rows, notification(undefined))).toBe(2);
    // An altered request still belongs to its row by id; an id-less notification by its event id.
    expect(rowIndexOfMessage(rows, { ...request('life.b:rpc', 'other'), params: {} })).toBe(1);
    expect(rowIndexOfMessage(rows, { ...notification('cat.d/event'), params: { event: { id: 'cat.d/event', extra: 1 } } })).toBe(3);
  });

  test('a message of no row, and a response (not a request) never make a row its owner', () => {
    expect(rowIndexOfMessage(rows, request('unknown'))).toBeUndefined();
    expect(rowIndexOfMessage(rows, { jsonrpc: '2.0', id: 'zz', result: {} })).toBeUndefined();
    expect(rowIndexOfMessage(rows, 'not a message')).toBeUndefined();
  });
});

describe('describeRunDeath', () => {
  const base = { rows, logTail: ['Traceback (most recent call last):', "KeyError: 'eventId'"], logFile: '/run/client.log' };

  test('names the row of the last request seen, the row after it, whether it was answered, and the output tail', () => {
    const text = describeRunDeath({
      ...base,
      seen: { messages: [{ jsonrpc: '2.0', id: 'cap-1', method: 'hooks/capabilities' }, request('core.a'), notification(undefined)], source: 'server "s"' },
      answered: () => undefined,
    });
    expect(text).toContain('it stopped on or after row "cat.c" (row 3 of 4): the last request server "s" saw was hooks/observe with no id and no event id, which belongs to that row; the next row in its file is "cat.d"');
    expect(text).toContain('its output ends with (last 2 line(s), secrets redacted):\n      | Traceback (most recent call last):\n      | KeyError: \'eventId\'');
  });

  test('an answered request and the last row of a file', () => {
    const text = describeRunDeath({ ...base, rows: rows.slice(0, 2), seen: { messages: [request('life.b:rpc', 'life.b:event')], source: 'the harness proxy' }, answered: () => true });
    expect(text).toContain('the last request the harness proxy saw was hooks/intercept id "life.b:rpc", and it was answered, which belongs to that row; it was the last row of its file');
    const unanswered = describeRunDeath({ ...base, seen: { messages: [request('core.a')], source: 'the stdio relay' }, answered: () => false });
    expect(unanswered).toContain('hooks/intercept id "core.a", and no answer to it was recorded');
  });

  test('discovery only: it stopped before its first row; no evidence: says why; a request of no row: says so', () => {
    expect(describeRunDeath({ ...base, seen: { messages: [{ jsonrpc: '2.0', id: 1, method: 'hooks/capabilities' }], source: 'the stdio relay' } })).toContain(
      'the stdio relay saw no request of any row, so it stopped before or during its first row "core.a"',
    );
    expect(describeRunDeath({ ...base, seen: undefined, noEvidence: 'over stdio the log travels in the report' })).toContain('the row it stopped on is unknown: over stdio the log travels in the report');
    expect(describeRunDeath({ ...base, seen: { messages: [request('stray')], source: 'server "s"' } })).toContain('which belongs to no row of this run (1 request(s) seen in all)');
  });

  test('an unreadable or empty log says so', () => {
    expect(describeRunDeath({ ...base, seen: undefined, logTail: undefined })).toContain('its output /run/client.log could not be read');
    expect(describeRunDeath({ ...base, seen: undefined, logTail: [] })).toContain('its output /run/client.log is empty');
  });
});

describe('redactSecrets', () => {
  test('every known, static and secret-shaped credential is replaced, in plain and JSON-escaped form', () => {
    const runToken = 'run-secret-"quoted"-value';
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----';
    const text = [
      `token=${runToken} escaped=${JSON.stringify(runToken)}`,
      `upload ${UPLOAD_TOKEN} secret ${OAUTH_CLIENT_SECRET}`,
      'Authorization: Bearer abc.def-ghi',
      `assertion ${jwt}`,
      pem,
      'TEST-ONLY-some-other-fixture-secret',
    ].join('\n');
    const out = redactSecrets(text, [runToken]);
    for (const secret of [runToken, JSON.stringify(runToken).slice(1, -1), UPLOAD_TOKEN, OAUTH_CLIENT_SECRET, 'abc.def-ghi', jwt, 'MIIBVQIBADANBgkqhkiG9w0BAQEFAASC', 'TEST-ONLY-']) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('Authorization: Bearer [redacted]');
    expect(out).toContain('[redacted private key]');
  });

  test('ordinary text is left alone, and only the secret fields of auth settings count as secrets', () => {
    expect(redactSecrets("KeyError: 'eventId' at row execution:observation-without-event")).toBe("KeyError: 'eventId' at row execution:observation-without-event");
    expect(secretsOfAuthSettings({ mode: 'bearer', token: STATIC_BEARER })).toEqual([STATIC_BEARER]);
    expect(secretsOfAuthSettings({ mode: 'mtls', caFile: '/ca.pem', certFile: '/c.pem', keyFile: '/k.pem' })).toEqual([]);
    expect(secretsOfAuthSettings({ mode: 'oauth', signingKey: 'k'.repeat(32), clientSecret: 'cs-value', issuer: 'urn:x', tokenEndpoint: 'http://127.0.0.1/token' }).sort()).toEqual(['cs-value', 'k'.repeat(32)]);
  });
});

describe('readLogTail', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ahp-log-tail-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('reads only the end of a large log, drops the cut first line, bounds lines and their length, redacts', () => {
    const file = path.join(dir, 'client.log');
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i}`);
    lines.push('x'.repeat(1000), `leaked ${UPLOAD_TOKEN}`, '', "KeyError: 'eventId'");
    writeFileSync(file, `${lines.join('\n')}\n`);
    const tail = readLogTail(file, { maxLines: 5, maxLineChars: 50, maxBytes: 2048 })!;
    expect(tail).toHaveLength(5);
    expect(tail.at(-1)).toBe("KeyError: 'eventId'");
    expect(tail.at(-2)).toBe('leaked [redacted secret]');
    expect(tail.at(-3)).toBe(`${'x'.repeat(47)}...`);
    expect(tail.every((line) => line.length <= 50)).toBe(true);
  });

  test('a missing file is undefined; blank lines are not lines', () => {
    expect(readLogTail(path.join(dir, 'missing.log'))).toBeUndefined();
    expect(tailLines('\n\n  \n', 5, 10)).toEqual([]);
  });
});
