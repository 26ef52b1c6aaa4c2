import { describe, expect, test } from 'vitest';
import { compareExact, compareExpected, formatDifferences } from '../../harness/verify/compare-result.ts';
import { verifyRun } from '../../harness/verify/verify-run.ts';
import type { ClientRunOutcome } from '../../harness/runs/types.ts';
import type { Scenario } from '../../harness/scenarios/types.ts';

describe('compareExpected: the seed comparison rules', () => {
  test('partial at the top level, exact below it', () => {
    expect(compareExpected({ decision: 'allow' }, { decision: 'allow', executed: true, messages: [] })).toEqual([]);
    expect(compareExpected({ input: { a: 1 } }, { input: { a: 1, b: 2 } })).toMatchObject([{ key: 'input', problem: 'mismatch' }]);
  });
  test('arrays compare by length and order', () => {
    expect(compareExpected({ messages: ['a', 'b'] }, { messages: ['b', 'a'] })).toHaveLength(1);
    expect(compareExpected({ messages: ['a'] }, { messages: ['a', 'a'] })).toHaveLength(1);
  });
  test('object key order is irrelevant, types are strict', () => {
    expect(compareExpected({ input: { a: 1, b: 2 } }, { input: { b: 2, a: 1 } })).toEqual([]);
    expect(compareExpected({ continuationRemaining: 1 }, { continuationRemaining: true })).toHaveLength(1);
    expect(compareExpected({ result: 0 }, { result: false })).toHaveLength(1);
  });
  test('explicit null is an assertion and a missing key fails it', () => {
    expect(compareExpected({ result: null }, { decision: 'allow' })).toMatchObject([{ key: 'result', problem: 'missing' }]);
    expect(compareExpected({ result: null }, { result: null })).toEqual([]);
  });
  test.each(['result', 'flow', 'injections', 'continuationInstructions', 'continuationRemaining', 'rejected'])(
    'an unasserted %s fails even when null or empty',
    (key) => {
      expect(compareExpected({ decision: 'deny' }, { decision: 'deny', [key]: null })).toMatchObject([{ key, problem: 'unasserted' }]);
    },
  );
  test('other unasserted keys are tolerated (e.g. input at a finish boundary)', () => {
    expect(compareExpected({ decision: 'allow' }, { decision: 'allow', input: {}, diagnostics: 1 })).toEqual([]);
  });
  test('compareExact requires the very same key set', () => {
    expect(compareExact({ a: 1 }, { a: 1, b: 2 })).toMatchObject([{ key: 'b', problem: 'unasserted' }]);
    expect(compareExact({ a: 1, b: 2 }, { a: 1 })).toMatchObject([{ key: 'b', problem: 'missing' }]);
  });
  test('the rendering names each key and both sides', () => {
    const text = formatDifferences(compareExpected({ decision: 'allow', flow: 'stop' }, { decision: 'deny', result: 1 }));
    expect(text).toContain('decision');
    expect(text).toContain('"allow"');
    expect(text).toContain('"deny"');
    expect(text).toContain('flow: expected "stop" but the key is missing');
    expect(text).toContain('result: not asserted');
  });
});

const positive: Scenario = {
  id: 'p',
  request: { jsonrpc: '2.0', id: 'p', method: 'hooks/intercept', params: { protocolVersion: 'draft', event: { id: 'p', type: 'tool.before' }, capabilities: { effects: [] } } },
  response: { jsonrpc: '2.0', id: 'p', result: { protocolVersion: 'draft', effects: [] } },
  expected: { decision: 'allow', executed: true, messages: [] },
};
const negative: Scenario = {
  id: 'n',
  request: { jsonrpc: '2.0', id: 'n', method: 'hooks/intercept', params: { protocolVersion: 'draft', event: { id: 'n', type: 'tool.before' }, capabilities: { effects: [] } } },
  response: { jsonrpc: '2.0', id: 'x', result: { protocolVersion: 'draft', effects: [] } },
  expectError: true,
};
const hostRow: Scenario = {
  id: 'h',
  request: { jsonrpc: '2.0', id: 'h', method: 'hooks/intercept', params: { protocolVersion: 'draft', event: { id: 'h', type: 'tool.before' }, capabilities: { effects: [] } } },
  response: {},
  expectError: true,
  hostExpected: { decision: 'allow', executed: false, input: { task: 0 }, messages: ['m'] },
};

function outcome(report: unknown, overrides: Partial<ClientRunOutcome> = {}): ClientRunOutcome {
  return {
    spec: { server: 's', client: 'c', transport: 'http', auth: 'none' },
    report,
    receipts: [positive.request, negative.request, hostRow.request],
    exitCode: 0,
    signal: null,
    timedOut: false,
    failures: [],
    logFiles: [],
    durationMs: 1,
    ...overrides,
  };
}

const goodRows = [
  { id: 'p', status: 'passed', actual: { decision: 'allow', executed: true, input: { task: 1 }, messages: [] } },
  { id: 'n', status: 'passed', actual: { rejected: true } },
  { id: 'h', status: 'passed', actual: { rejected: true } },
];
const all = [positive, negative, hostRow];

describe('verifyRun: the harness re-derives every verdict', () => {
  test('an honest report with matching receipts passes every row', () => {
    const verification = verifyRun(outcome({ language: 'ts', results: goodRows }), all, 'ts');
    expect(verification.integrity).toEqual([]);
    expect([...verification.rows.values()].map((r) => r.verdict)).toEqual(['passed', 'passed', 'passed']);
  });
  test('a lying client that reports passed without contacting the server fails on receipts', () => {
    const verification = verifyRun(outcome({ language: 'ts', results: goodRows }, { receipts: [] }), all, 'ts');
    expect(verification.integrity.join('\n')).toContain('[receipts/count]');
    expect(verification.rows.get('p')?.verdict).toBe('failed');
  });
  test('a receipt with only the id (reduced evidence) does not count', () => {
    const reduced = [{ jsonrpc: '2.0', id: 'p', method: 'hooks/intercept' }, negative.request, hostRow.request];
    const verification = verifyRun(outcome({ language: 'ts', results: goodRows }, { receipts: reduced }), all, 'ts');
    expect(verification.integrity.join('\n')).toContain('[receipts/unexpected]');
  });
  test('a message-wrapped receipt counts as the request', () => {
    const wrapped = [{ message: positive.request, route: 'x' }, negative.request, hostRow.request];
    expect(verifyRun(outcome({ language: 'ts', results: goodRows }, { receipts: wrapped }), all, 'ts').integrity).toEqual([]);
  });
  test('rejected-for-everything fails the positive rows', () => {
    const rows = all.map((s) => ({ id: s.id, status: 'passed', actual: { rejected: true } }));
    const verification = verifyRun(outcome({ language: 'ts', results: rows }), all, 'ts');
    expect(verification.rows.get('p')).toMatchObject({ verdict: 'failed' });
    expect(verification.rows.get('n')?.verdict).toBe('passed');
  });
  test('a leaked result on a positive row fails as unasserted', () => {
    const rows = [{ ...goodRows[0], actual: { decision: 'allow', executed: true, messages: [], result: 'leak' } }, goodRows[1], goodRows[2]];
    expect(verifyRun(outcome({ language: 'ts', results: rows }), all, 'ts').rows.get('p')?.reason).toContain('result: not asserted');
  });
  test('a row reported twice fails the whole run', () => {
    const verification = verifyRun(outcome({ language: 'ts', results: [...goodRows, goodRows[1]] }), all, 'ts');
    expect(verification.integrity.join('\n')).toContain('[report/duplicate]');
    expect([...verification.rows.values()].every((r) => r.verdict === 'failed')).toBe(true);
  });
  test('the wrong language, an unknown id and a missing row are integrity failures', () => {
    const verification = verifyRun(outcome({ language: 'go', results: [goodRows[0], { id: 'zzz', status: 'passed', actual: {} }] }), all, 'ts');
    const text = verification.integrity.join('\n');
    expect(text).toContain('[report/language]');
    expect(text).toContain('[report/unknown-id]');
    expect(text).toContain('[report/missing]');
  });
  test('a transport failure is never a passed negative', () => {
    const rows = [goodRows[0], { id: 'n', status: 'failed', actual: null, error: 'transport: timeout' }, goodRows[2]];
    const verification = verifyRun(outcome({ language: 'ts', results: rows }, { exitCode: 1 }), all, 'ts');
    expect(verification.rows.get('n')?.verdict).toBe('failed');
  });
  test('the host-rejection alternative needs every diagnostic and the exact SDK result', () => {
    const good = { id: 'h', status: 'passed', actual: hostRow.hostExpected, sdkAccepted: true, hostAccepted: false, rejectionLayer: 'host-input-schema' };
    expect(verifyRun(outcome({ language: 'ts', results: [goodRows[0], goodRows[1], good] }), all, 'ts').rows.get('h')?.verdict).toBe('passed');
    const noLayer = { ...good, rejectionLayer: 'sdk' };
    expect(verifyRun(outcome({ language: 'ts', results: [goodRows[0], goodRows[1], noLayer] }), all, 'ts').rows.get('h')?.verdict).toBe('failed');
    const invented = { ...good, actual: { ...hostRow.hostExpected, input: { task: 1 } } };
    expect(verifyRun(outcome({ language: 'ts', results: [goodRows[0], goodRows[1], invented] }), all, 'ts').rows.get('h')?.verdict).toBe('failed');
    // The alternative never applies to protocol negatives.
    const onProtocolRow = { ...good, id: 'n' };
    expect(verifyRun(outcome({ language: 'ts', results: [goodRows[0], onProtocolRow, goodRows[2]] }), all, 'ts').rows.get('n')?.verdict).toBe('failed');
  });
  test('unsupported rows are skipped with the reason and need no receipts', () => {
    const rows = all.map((s) => ({ id: s.id, status: 'unsupported', actual: null, error: 'auth mode oauth' }));
    const verification = verifyRun(outcome({ language: 'ts', results: rows }, { receipts: [] }), all, 'ts');
    expect(verification.integrity).toEqual([]);
    expect(verification.rows.get('p')).toMatchObject({ verdict: 'skipped', reason: 'unsupported: auth mode oauth' });
  });
  test('exit codes must agree with the report, and a signal exit is never success', () => {
    expect(verifyRun(outcome({ language: 'ts', results: goodRows }, { exitCode: 3 }), all, 'ts').integrity.join()).toContain('[run/exit]');
    expect(verifyRun(outcome({ language: 'ts', results: goodRows }, { signal: 'SIGKILL', exitCode: null }), all, 'ts').integrity.join()).toContain('[run/signal]');
  });
  test('run failures fail every row with their stage label', () => {
    const failures = [{ stage: 'report' as const, kind: 'missing', message: 'no report file' }];
    const verification = verifyRun(outcome(undefined, { failures }), all, 'ts');
    expect(verification.rows.get('p')?.reason).toContain('[report/missing] no report file');
  });
});

describe('verifyRun: over stdio the client must have seen the scripted responses', () => {
  const discovery = {
    requestId: 'capabilities-1',
    method: 'hooks/capabilities',
    response: { jsonrpc: '2.0', id: 'capabilities-1', result: { protocolVersion: 'draft', manifest: {} } },
  };
  /** What the relay records for an honest server: each scripted response, paired with its request. */
  const honest = [discovery, ...all.map((s) => ({ requestId: s.request.id, method: s.request.method, response: s.response }))];
  const stdio = (responses: unknown[], overrides: Partial<ClientRunOutcome> = {}): ClientRunOutcome =>
    outcome({ language: 'ts', results: goodRows }, { spec: { server: 's', client: 'c', transport: 'stdio', auth: 'none' }, responses, ...overrides });
  const integrity = (responses: unknown[], overrides: Partial<ClientRunOutcome> = {}): string[] =>
    verifyRun(stdio(responses, overrides), all, 'ts').integrity;

  test('an honest run passes, although a scripted response carries a deliberately wrong id', () => {
    expect((negative.response as { id: string }).id).not.toBe(negative.request.id);
    const verification = verifyRun(stdio(honest), all, 'ts');
    expect(verification.integrity).toEqual([]);
    expect([...verification.rows.values()].map((r) => r.verdict)).toEqual(['passed', 'passed', 'passed']);
  });

  test('a server error in place of the scripted response fails every row, even the "rejected" negative', () => {
    const replaced = honest.map((r) =>
      r.requestId === 'n' ? { ...r, response: { jsonrpc: '2.0', id: 'n', error: { code: -32603, message: 'internal error' } } } : r,
    );
    const verification = verifyRun(stdio(replaced), all, 'ts');
    expect(verification.integrity).toEqual([`[responses/mismatch] the server's response to "n" is not the scenario's scripted response`]);
    expect(verification.rows.get('n')?.verdict).toBe('failed');
    expect(verification.rows.get('p')?.verdict).toBe('failed');
  });

  test('a repaired response (the wrong id corrected) and a line that is not JSON are mismatches', () => {
    const repaired = honest.map((r) => (r.requestId === 'n' ? { ...r, response: { ...(negative.response as object), id: 'n' } } : r));
    expect(integrity(repaired)).toEqual([`[responses/mismatch] the server's response to "n" is not the scenario's scripted response`]);
    const garbled = honest.map((r) => (r.requestId === 'h' ? { requestId: 'h', method: 'hooks/intercept', invalidJson: true } : r));
    expect(integrity(garbled)).toEqual([`[responses/mismatch] the server's response to "h" is not the scenario's scripted response`]);
  });

  test('a response that was never forwarded fails the run', () => {
    const missing = honest.filter((r) => r.requestId !== 'h');
    expect(integrity(missing)).toEqual(['[responses/missing] no response from the server to "h" was forwarded to the client']);
    expect(integrity([...missing, { overflow: true }])).toEqual([
      '[responses/missing] no response from the server to "h" was forwarded to the client (the relay stopped recording at its size bound)',
    ]);
    // A server that answered nothing at all gets one line, not one per scenario.
    expect(integrity([discovery])).toEqual([
      '[responses/missing] no response from the server to any of the 3 selected scenarios was forwarded to the client',
    ]);
  });

  test('responses are matched by the request they answer, never by their own id', () => {
    // The server answered "p" with the scripted response of "n", whose id is not "p" either.
    const swapped = honest.map((r) => (r.requestId === 'p' ? { ...r, response: negative.response } : r));
    expect(integrity(swapped)).toEqual([`[responses/mismatch] the server's response to "p" is not the scenario's scripted response`]);
  });

  test('a request answered twice and a response nobody asked for are integrity failures', () => {
    const twice = [...honest, honest[2]!];
    expect(integrity(twice)).toEqual([`[responses/count] the server's response to "n" was forwarded 2 times, expected exactly once`]);
    const unsolicited = [...honest, { unsolicited: true, response: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } } }];
    expect(integrity(unsolicited)).toEqual(['[responses/unexpected] the server wrote 1 stdout line(s) while no request was waiting for a response']);
    const banner = [{ unsolicited: true, invalidJson: true }, ...honest];
    expect(integrity(banner)).toEqual([
      '[responses/unexpected] the server wrote 1 stdout line(s) while no request was waiting for a response (1 of them not valid JSON)',
    ]);
    expect(integrity([...honest, { something: 1 }])).toEqual([
      "[responses/shape] 1 record(s) of the stdio relay's response record are not in its format",
    ]);
  });

  test('capability discovery is left out, and rows the client could not run need no response', () => {
    const oddDiscovery = [{ ...discovery, response: { jsonrpc: '2.0', id: 'capabilities-1', error: { code: 1, message: 'x' } } }, ...honest.slice(1)];
    expect(integrity(oddDiscovery)).toEqual([]);
    const rows = all.map((s) => ({ id: s.id, status: 'inapplicable', actual: null, error: 'stdio has no bearer auth' }));
    const verification = verifyRun(stdio([discovery], { report: { language: 'ts', results: rows }, receipts: [] }), all, 'ts');
    expect(verification.integrity).toEqual([]);
  });

  test('without a response record (HTTP) nothing is checked', () => {
    expect(verifyRun(outcome({ language: 'ts', results: goodRows }), all, 'ts').integrity).toEqual([]);
  });
});
