// The compaction family's pure model: the §3 helpers (a strict inline-text reader, canonical
// effects), the simulator's semantics beyond the rules' printed figures, and the case file format
// with its clear errors (file, JSON path, expectation).

import { describe, expect, test } from 'vitest';

import { buildCompactionCases } from '../../harness/families/compaction/generate.ts';
import { lintCompactionCaseFile, parseCompactionCaseFile } from '../../harness/families/compaction/load-compaction-cases.ts';
import { SimulationError, simulateCompaction } from '../../harness/families/compaction/simulate.ts';
import { pairVerdicts } from '../../harness/families/compaction/pair-verdicts.ts';
import { probePlan } from '../../harness/families/compaction/run.ts';
import { hostCaseRows, subscriptionConfig } from '../../harness/families/compaction/subscriptions.ts';
import { canonicalEffect, inlineText, InlineTextError, textParts } from '../../harness/families/compaction/text-parts.ts';

describe('COMPACTION-RULES §3 helpers', () => {
  test('textParts defaults its id to "text"', () => {
    expect(textParts('x')).toEqual([{ id: 'text', kind: 'text', mediaType: 'text/plain', selection: 'body', text: 'x' }]);
    expect(textParts('x', 'case:instructions')[0]!.id).toBe('case:instructions');
  });
  test('inlineText concatenates inline body text parts', () => {
    expect(inlineText([...textParts('a'), ...textParts('b')])).toBe('ab');
  });
  test.each([
    ['a legacy body reference', [{ ...textParts('x')[0], body: { ref: 'legacy' } }]],
    ['a gap', [{ ...textParts('x')[0], gap: true }]],
    ['another selection', [{ ...textParts('x')[0], selection: 'excerpt' }]],
    ['a non-text kind', [{ id: 'i', kind: 'image' }]],
    ['a number text', [{ id: 'i', kind: 'text', text: 1 }]],
    ['a scalar', 'legacy scalar'],
  ])('inlineText refuses %s (a kind/text-only reader would not)', (_name, value) => {
    expect(() => inlineText(value)).toThrow(InlineTextError);
  });
  test('canonicalEffect turns a string return into text parts and leaves the rest', () => {
    expect(canonicalEffect({ type: 'return', value: 'cached' })).toEqual({ type: 'return', value: textParts('cached') });
    const message = { type: 'message', text: 'leaked' };
    expect(canonicalEffect(message)).toBe(message);
  });
});

describe('the simulator', () => {
  const file = buildCompactionCases();
  test('the rules 8 cases make 27 exchanges over 30 scopes; ours add rows tagged with what they prove', () => {
    const rules = file.cases.filter((c) => c.origin === 'rules');
    expect(rules.map((c) => c.id)).toEqual(['chain', 'supplied', 'before-atomic', 'after-atomic', 'after-closed', 'before-closed', 'before-open', 'after-open']);
    expect(rules.reduce((n, c) => n + c.expected.seen.length, 0)).toBe(27);
    expect(Object.keys(subscriptionConfig(rules))).toHaveLength(30);
    for (const c of file.cases) expect(c.proves.length).toBeGreaterThan(0);
    expect(file.cases.some((c) => c.origin === 'ours')).toBe(true);
  });
  test('a fail-closed before rejection ends the case: the unreached scopes are the rules three', () => {
    const rules = file.cases.filter((c) => c.origin === 'rules');
    const reached = new Set(rules.flatMap((c) => c.expected.exchanges.map((e) => e.subscription)));
    expect(Object.keys(subscriptionConfig(rules)).filter((s) => !reached.has(s))).toEqual(['after-closed-after-1', 'before-closed-before-1', 'before-closed-after-0']);
  });
  test('what the rules leave out of scope is refused, not guessed', () => {
    const msg = { kind: 'effects' as const, effects: [{ type: 'message', text: 'hi' }] };
    expect(() => simulateCompaction({ id: 'x', before: [{ action: msg, failurePolicy: 'fail-closed' }], after: [] })).toThrow(SimulationError);
    const ret = { kind: 'effects' as const, effects: [{ type: 'return', value: textParts('c') }] };
    expect(() => simulateCompaction({ id: 'x', before: [{ action: ret, failurePolicy: 'fail-closed' }, { action: ret, failurePolicy: 'fail-closed' }], after: [] })).toThrow(/second accepted return/);
  });
  test('host rows carry only names, scopes and policies; subscription actions carry no expectation', () => {
    const rows = hostCaseRows(file.cases);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(['after', 'before', 'name']);
      for (const hook of [...row.before, ...row.after]) expect(Object.keys(hook).sort()).toEqual(['failurePolicy', 'supplier']);
    }
    for (const action of Object.values(subscriptionConfig(file.cases))) {
      expect(['append', 'effects']).toContain(action.kind);
      expect(JSON.stringify(action)).not.toContain('expected');
    }
  });
});

describe('the case file format', () => {
  const good = () => buildCompactionCases();
  test('the built file is clean', () => {
    expect(lintCompactionCaseFile(JSON.parse(JSON.stringify(good())))).toEqual([]);
  });
  test('an unknown key is refused with its path', () => {
    const file = good() as unknown as { cases: Array<Record<string, unknown>> };
    file.cases[1]!.bogus = 1;
    const problems = lintCompactionCaseFile(file);
    expect(problems[0]!.path).toBe('cases[1].bogus');
    expect(problems[0]!.problem).toMatch(/^unknown key; expected only/);
  });
  test('a hand-edited expectation is refused: expectations are the simulator’s', () => {
    const file = good();
    file.cases[0]!.expected.summary = 'summary:typed-in';
    expect(lintCompactionCaseFile(file)).toEqual([{ path: 'cases[0].expected', problem: expect.stringMatching(/^expected what the compaction simulator computes/) }]);
  });
  test('an append to the summary on the before boundary is refused', () => {
    const file = good();
    file.cases[0]!.before[0]!.action = { kind: 'append', target: 'summary', suffix: ':x' };
    expect(lintCompactionCaseFile(file)[0]).toEqual({ path: 'cases[0].before[0].action.target', problem: expect.stringMatching(/^expected "instructions"/) });
  });
  test('the error names the file, the path and the expectation', () => {
    const file = good();
    (file.probes[0] as unknown as Record<string, unknown>).expected = { errorCode: -32600, receipt: false };
    expect(() => parseCompactionCaseFile(JSON.stringify(file), 'my-cases.json')).toThrow(/my-cases\.json.*probes\[0\]\.expected\.errorCode.*-32602/s);
  });
});

describe('pair verdicts', () => {
  const file = buildCompactionCases();
  test('a case passes only without checks of its own or the pair’s; a host fault spares the probe; secrets never reach a reason', () => {
    const token = 'pair-secret-token-abcdef';
    const { rows } = pairVerdicts({
      cases: file.cases.slice(0, 2),
      probes: file.probes.slice(0, 1),
      hostRun: [{ label: 'host', party: 'sender', message: `host: died holding ${token}` }],
      secrets: [token],
      notes: [],
    });
    const chain = rows.get('chain')!;
    expect(chain.verdict).toBe('failed');
    expect(chain.reason).toBe('[host] sender: host: died holding [redacted secret]');
    expect(rows.get('supplied')!.verdict).toBe('failed');
    expect(rows.get(file.probes[0]!.id)!.verdict).toBe('passed');
  });
  test('a fault of the receiver start reaches every row', () => {
    const { rows } = pairVerdicts({ cases: file.cases.slice(0, 1), probes: file.probes.slice(0, 1), every: [{ label: 'receiver startup timeout', party: 'receiver', message: 'receiver startup timeout' }], secrets: [], notes: [] });
    expect([...rows.values()].map((row) => row.verdict)).toEqual(['failed', 'failed']);
  });
});

describe('COMPACTION-RULES §13 "Probe": the probe client plan', () => {
  test('the intercept URL, the scope token, the stdio command, and no subscriptionId anywhere', () => {
    const file = buildCompactionCases();
    const credentials = { 'chain-before-0': { token: 'tok-chain', uploadToken: 'up-chain' } };
    const plan = probePlan('http', file.probes, 'http://unused', credentials, ['wire', '/s', '/store', '/c.json']);
    expect(plan.endpoint).toBe('http://unused/hooks/intercept');
    expect(plan.token).toBe('tok-chain');
    expect(plan.command).toEqual(['wire', '/s', '/store', '/c.json', 'stdio', 'chain-before-0']);
    expect(plan.requests).toHaveLength(4);
    expect(JSON.stringify(plan)).not.toContain('subscriptionId');
  });
});
