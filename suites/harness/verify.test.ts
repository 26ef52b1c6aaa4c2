import { describe, expect, test } from 'vitest';
import { compareExact, compareExpected, formatDifferences } from '../../harness/oracle/compare-result.ts';
import { verifyRun } from '../../harness/families/core/verify/verify-run.ts';
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
  test('a lying client that reports passed without contacting the server fails each row on its receipt', () => {
    const verification = verifyRun(outcome({ language: 'ts', results: goodRows }, { receipts: [] }), all, 'ts');
    expect(verification.integrity).toEqual([]);
    for (const id of ['p', 'n', 'h']) {
      expect(verification.rows.get(id)?.verdict).toBe('failed');
      expect(verification.rows.get(id)?.reason).toContain(`[receipts/count] client or server fault: server "s" received the exact request of "${id}" 0 time(s)`);
    }
  });
  test('a receipt with only the id (reduced evidence) fails its own row, naming what differs', () => {
    const reduced = [{ jsonrpc: '2.0', id: 'p', method: 'hooks/intercept' }, negative.request, hostRow.request];
    const verification = verifyRun(outcome({ language: 'ts', results: goodRows }, { receipts: reduced }), all, 'ts');
    expect(verification.integrity).toEqual([]);
    const reason = verification.rows.get('p')?.reason ?? '';
    expect(reason).toContain('[receipts/inexact]');
    expect(reason).toContain('removed params');
    expect(verification.rows.get('n')?.verdict).toBe('passed');
  });
  test('a receipt nobody can attribute to a row fails the whole run', () => {
    const stray = [...all.map((s) => s.request), { jsonrpc: '2.0', id: 'zzz', method: 'hooks/intercept', params: {} }];
    const verification = verifyRun(outcome({ language: 'ts', results: goodRows }, { receipts: stray }), all, 'ts');
    expect(verification.integrity.join('\n')).toContain('[receipts/unexpected]');
    expect([...verification.rows.values()].every((r) => r.verdict === 'failed')).toBe(true);
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
    expect(verification.rows.get('p')?.reason).toContain('[report/missing] (client) no report file');
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

  const reasonOf = (responses: unknown[], id: string, overrides: Partial<ClientRunOutcome> = {}): string => verifyRun(stdio(responses, overrides), all, 'ts').rows.get(id)?.reason ?? '';

  test('a server error in place of the scripted response fails that row only, even the "rejected" negative', () => {
    const replaced = honest.map((r) =>
      r.requestId === 'n' ? { ...r, response: { jsonrpc: '2.0', id: 'n', error: { code: -32603, message: 'internal error' } } } : r,
    );
    const verification = verifyRun(stdio(replaced), all, 'ts');
    expect(verification.integrity).toEqual([]);
    expect(verification.rows.get('n')?.verdict).toBe('failed');
    const reason = verification.rows.get('n')?.reason ?? '';
    expect(reason).toContain('[responses/mismatch] server fault: server "s" replaced the scripted response of "n" with its own error envelope (error -32603 "internal error")');
    expect(reason).toContain('a server must hand every scripted response through unchanged, invalid ones included');
    // The evidence: both responses, as JSON.
    expect(reason).toContain(`Scripted: ${JSON.stringify(negative.response)}; handed: {"jsonrpc":"2.0","id":"n","error":{"code":-32603,"message":"internal error"}}`);
    // The other negative row ("h") went through unchanged: the server tells rows apart, and the message says so.
    expect(reason).toContain('in the same run it handed 1 other invalid scripted response(s) through unchanged, so it treats invalid rows differently');
    expect(reason).toContain('AHP_BLIND=1');
    expect(verification.rows.get('p')?.verdict).toBe('passed');
    expect(verification.rows.get('h')?.verdict).toBe('passed');
  });

  test('a server that replaces every invalid scripted response is not said to tell rows apart', () => {
    const error = { code: -32603, message: 'internal error' };
    const replaced = honest.map((r) => (r.requestId === 'n' || r.requestId === 'h' ? { ...r, response: { jsonrpc: '2.0', id: r.requestId, error } } : r));
    for (const id of ['n', 'h']) {
      const reason = reasonOf(replaced, id);
      expect(reason).toContain(`replaced the scripted response of "${id}" with its own error envelope (error -32603 "internal error")`);
      expect(reason).not.toContain('treats invalid rows differently');
    }
  });

  test('an error envelope that IS the scripted response passes; an altered result is still "altered", not "replaced"', () => {
    const scriptedError: Scenario = { ...negative, id: 'e', request: { ...negative.request, id: 'e' }, response: { jsonrpc: '2.0', id: 'e', error: { code: -32603, message: 'internal error' } } };
    const rows = [...goodRows, { id: 'e', status: 'passed', actual: { rejected: true } }];
    const records = [...honest, { requestId: 'e', method: 'hooks/intercept', response: scriptedError.response }];
    const passed = verifyRun(outcome({ language: 'ts', results: rows }, { spec: { server: 's', client: 'c', transport: 'stdio', auth: 'none' }, receipts: [...all, scriptedError].map((s) => s.request), responses: records }), [...all, scriptedError], 'ts');
    expect(passed.rows.get('e')?.verdict).toBe('passed');
    const altered = honest.map((r) => (r.requestId === 'p' ? { ...r, response: { jsonrpc: '2.0', id: 'p', result: { protocolVersion: 'draft', effects: [], note: 1 } } } : r));
    const reason = reasonOf(altered, 'p');
    expect(reason).toContain('altered the scripted response of "p"');
    expect(reason).not.toContain('error envelope');
  });

  test('a repaired response names the path that changed; a line that is not JSON says so', () => {
    const repaired = honest.map((r) => (r.requestId === 'n' ? { ...r, response: { ...(negative.response as object), id: 'n' } } : r));
    expect(reasonOf(repaired, 'n')).toContain('changed id from "x" to "n"');
    const garbled = honest.map((r) => (r.requestId === 'h' ? { requestId: 'h', method: 'hooks/intercept', invalidJson: true } : r));
    expect(reasonOf(garbled, 'h')).toContain('[responses/mismatch] server fault: server "s" answered "h" with a body that is not JSON');
  });

  test('dropped extension members fail the row and are named one by one', () => {
    const extended: Scenario = { ...positive, response: { jsonrpc: '2.0', id: 'p', vendor: { trace: 1 }, result: { protocolVersion: 'draft', effects: [], futureMetadata: { a: 1 } } } };
    const scenarios = [extended, negative, hostRow];
    const reencoded = [discovery, { requestId: 'p', method: 'hooks/intercept', response: positive.response }, ...honest.slice(2)];
    const verification = verifyRun(stdio(reencoded), scenarios, 'ts');
    const reason = verification.rows.get('p')?.reason ?? '';
    expect(reason).toContain('removed vendor');
    expect(reason).toContain('removed result.futureMetadata');
    expect(verification.rows.get('n')?.verdict).toBe('passed');
  });

  test('a response that was never handed to the client fails its row', () => {
    const missing = honest.filter((r) => r.requestId !== 'h');
    expect(reasonOf(missing, 'h')).toContain('[responses/missing] server fault: server "s" handed the client no response to "h"');
    expect(reasonOf([...missing, { overflow: true }], 'h')).toContain('(the harness stopped recording at its size bound)');
    expect(verifyRun(stdio(missing), all, 'ts').rows.get('p')?.verdict).toBe('passed');
  });

  test('responses are matched by the request they answer, never by their own id', () => {
    // The server answered "p" with the scripted response of "n", whose id is not "p" either.
    const swapped = honest.map((r) => (r.requestId === 'p' ? { ...r, response: negative.response } : r));
    expect(reasonOf(swapped, 'p')).toContain('[responses/mismatch]');
  });

  test('a request answered twice fails its row; a response nobody asked for fails the run', () => {
    const twice = [...honest, honest[2]!];
    expect(reasonOf(twice, 'n')).toContain('[responses/count] server fault: server "s" answered "n" 2 times, expected exactly once');
    const unsolicited = [...honest, { unsolicited: true, response: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } } }];
    expect(verifyRun(stdio(unsolicited), all, 'ts').integrity).toEqual([
      '[responses/unexpected] (server) server "s" wrote 1 stdout line(s) while no request was waiting for a response',
    ]);
    const banner = [{ unsolicited: true, invalidJson: true }, ...honest];
    expect(verifyRun(stdio(banner), all, 'ts').integrity).toEqual([
      '[responses/unexpected] (server) server "s" wrote 1 stdout line(s) while no request was waiting for a response (1 of them not valid JSON)',
    ]);
    expect(verifyRun(stdio([...honest, { something: 1 }]), all, 'ts').integrity).toEqual([
      "[responses/shape] (harness) 1 record(s) of the harness's response record are not in its format",
    ]);
  });

  test('capability discovery is left out, and rows the client could not run need no response', () => {
    const oddDiscovery = [{ ...discovery, response: { jsonrpc: '2.0', id: 'capabilities-1', error: { code: 1, message: 'x' } } }, ...honest.slice(1)];
    expect(integrity(oddDiscovery)).toEqual([]);
    const rows = all.map((s) => ({ id: s.id, status: 'inapplicable', actual: null, error: 'stdio has no bearer auth' }));
    const verification = verifyRun(stdio([discovery], { report: { language: 'ts', results: rows }, receipts: [] }), all, 'ts');
    expect(verification.integrity).toEqual([]);
  });

  test('without a response record nothing is checked, and a receipts-only note is carried to every row', () => {
    expect(verifyRun(outcome({ language: 'ts', results: goodRows }), all, 'ts').integrity).toEqual([]);
    const noted = verifyRun(outcome({ language: 'ts', results: goodRows }, { evidenceNote: 'receipts-only evidence: x' }), all, 'ts');
    expect(noted.note).toBe('receipts-only evidence: x');
  });
});

describe('verifyRun: what the client sent tells its faults from the server\'s', () => {
  const records = all.map((s) => ({ requestId: s.request.id, method: s.request.method, status: 200, response: s.response }));
  const http = (overrides: Partial<ClientRunOutcome>): ClientRunOutcome =>
    outcome({ language: 'ts', results: goodRows }, { responses: records, sent: all.map((s) => s.request), ...overrides });
  const reason = (overrides: Partial<ClientRunOutcome>, id: string): string => verifyRun(http(overrides), all, 'ts').rows.get(id)?.reason ?? '';

  test('an honest HTTP run passes', () => {
    const verification = verifyRun(http({}), all, 'ts');
    expect([...verification.rows.values()].map((r) => r.verdict)).toEqual(['passed', 'passed', 'passed']);
  });
  test('a request the client never sent is the client\'s fault', () => {
    const text = reason({ sent: [negative.request, hostRow.request], receipts: [negative.request, hostRow.request], responses: records.slice(1) }, 'p');
    expect(text).toContain('[receipts/count] client fault: client "c" sent no request for "p"');
    expect(text).not.toContain('[responses/missing]');
  });
  test('an altered request the client sent is the client\'s fault, with the paths that differ', () => {
    const altered = { ...positive.request, params: { ...(positive.request.params as object), extra: 1 } };
    const text = reason({ sent: [altered, negative.request, hostRow.request], receipts: [altered, negative.request, hostRow.request] }, 'p');
    expect(text).toContain('[receipts/inexact] client fault: client "c" sent a request for "p" that is not its exact canonical request: added params.extra = 1');
  });
  test('a request sent but not recorded is the server\'s fault', () => {
    expect(reason({ receipts: [negative.request, hostRow.request] }, 'p')).toContain('[receipts/count] server fault: server "s" has no receipt of the request of "p", which the client sent 1 time(s)');
  });
  test('a request recorded differently from what was sent is the server\'s fault', () => {
    const rewritten = { ...positive.request, id: 'p', params: {} };
    expect(reason({ receipts: [rewritten, negative.request, hostRow.request] }, 'p')).toContain('[receipts/inexact] server fault');
  });
  test('a request sent twice is the client\'s fault, and its two answers are not charged to the server', () => {
    const text = reason({ sent: [positive.request, positive.request, negative.request, hostRow.request], receipts: [positive.request, positive.request, negative.request, hostRow.request], responses: [records[0], ...records] }, 'p');
    expect(text).toContain('[receipts/count] client fault: client "c" sent the request of "p" 2 times');
    expect(text).not.toContain('[responses/count]');
  });
  test('an HTTP error status in place of the scripted response fails the row', () => {
    const erred = records.map((r) => (r.requestId === 'n' ? { ...r, status: 400, response: { jsonrpc: '2.0', id: 'n', error: { code: -32602, message: 'bad' } } } : r));
    expect(reason({ responses: erred }, 'n')).toContain('[responses/mismatch] server fault: server "s" replaced the scripted response of "n" with its own error envelope (error -32602 "bad") (with HTTP 400, not 200)');
    const empty = records.map((r) => (r.requestId === 'n' ? { ...r, status: 400, response: null } : r));
    expect(reason({ responses: empty }, 'n')).toContain('[responses/mismatch] server fault: server "s" answered "n" with HTTP 400 instead of the scripted response with 200');
  });
  test('a request the proxy could not deliver is the server\'s fault', () => {
    const unreachable = records.map((r) => (r.requestId === 'h' ? { requestId: 'h', method: 'hooks/intercept', status: null, response: null, failure: 'ECONNREFUSED' } : r));
    expect(reason({ responses: unreachable }, 'h')).toContain('[responses/missing] server fault: server "s" did not answer the request of "h" (ECONNREFUSED)');
  });
});
