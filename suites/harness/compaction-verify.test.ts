// The compaction verifier (COMPACTION-RULES §7, §9, §13): an honest synthetic run of every case
// passes; the rules' self-test fixture is accepted and each of its lies rejected with the rules'
// label; and each lie a lying host or receiver tells fails exactly the cases it touches, charged
// to the right party.

import { describe, expect, test } from 'vitest';

import type { CompactionCase } from '../../harness/families/compaction/case-types.ts';
import { buildCompactionCases } from '../../harness/families/compaction/generate.ts';
import { textParts } from '../../harness/families/compaction/text-parts.ts';
import { LABEL, type CompactionCheck } from '../../harness/families/compaction/verify/labels.ts';
import { verifyHostRun, type HostEvidence } from '../../harness/families/compaction/verify/verify-host.ts';
import { verifyProbe } from '../../harness/families/compaction/verify/verify-probe.ts';
import type { JsonObject } from '../../harness/protocol/json.ts';
import { honestRun } from './support/compaction-honest-run.ts';

const FILE = buildCompactionCases();

/** The failing cases, each with its sorted `label/party` set. */
function failing(evidence: HostEvidence): Record<string, string[]> {
  const verdict = verifyHostRun(evidence);
  const out: Record<string, string[]> = {};
  for (const [id, checks] of verdict.rows) if (checks.length > 0) out[id] = summary(checks);
  if (verdict.pair.length > 0) out['(pair)'] = summary(verdict.pair);
  return out;
}
const summary = (checks: CompactionCheck[]) => [...new Set(checks.map((c) => `${c.label}/${c.party}`))].sort();

type Output = { name: string; result: Record<string, unknown>; trace: Array<{ subscription: unknown; request: JsonObject; response: JsonObject }>; downstream: unknown };
const outputOf = (run: ReturnType<typeof honestRun>, id: string) => run.outputs.find((o) => o.name === id) as unknown as Output;

describe('honest runs pass', () => {
  test('every case, over HTTP (no wire record) and stdio (recorded wire)', () => {
    const run = honestRun(FILE);
    expect(failing({ ...run, wire: undefined })).toEqual({});
    expect(failing(run)).toEqual({});
  });
  test('a selection of one case verifies that case alone', () => {
    const run = honestRun(FILE, ['after-atomic']);
    expect(failing(run)).toEqual({});
    expect([...verifyHostRun(run).rows.keys()]).toEqual(['after-atomic']);
  });
});

// §13's minimal fixture: one before exchange whose reply has no effects.
function minimal() {
  const event = { type: 'context.compact.before', id: 'case:before', instructions: textParts('x', 'case:instructions'), trigger: 'manual' };
  const request = { method: 'hooks/intercept', id: 'case:before', params: { event, capabilities: { modify: { instructions: { replace: true, merge: false } } } } };
  const response = { jsonrpc: '2.0', id: 'case:before', result: { protocolVersion: 'draft' } };
  const trace = { subscription: 'case-before-0', request, response };
  const output = { name: 'case', result: { instructions: textParts('x'), generated: false, applied: false, failures: [], messages: [], summary: null, bodies: {} }, downstream: [], trace: [trace] };
  const c: CompactionCase = {
    id: 'case',
    description: 'the rules self-test fixture',
    origin: 'rules',
    proves: ['fixture'],
    before: [{ action: { kind: 'effects', effects: [] }, failurePolicy: 'fail-closed' }],
    after: [],
    expected: { instructions: 'x', generated: false, applied: false, failures: 0, summary: null, downstream: [], seen: ['x'], exchanges: [{ subscription: 'case-before-0', boundary: 'before', text: 'x', accepted: true }] },
  };
  return { output, receipt: structuredClone(trace), c, trace };
}
const check = (output: unknown, receipts: unknown[], c = minimal().c) => failing({ cases: [c], outputs: [output], receipts, subscriptions: {} });

describe('COMPACTION-RULES §13: the minimal fixture', () => {
  test('is accepted, and {size:1} equals {size:1.0} in the evidence', () => {
    const { output, receipt } = minimal();
    expect(check(output, [receipt])).toEqual({});
    const a = minimal();
    (a.trace.request.params as Record<string, unknown>).extra = { size: 1 };
    const b = structuredClone(a.trace);
    (b.request.params as Record<string, unknown>).extra = JSON.parse('{"size":1.0}');
    expect(check(a.output, [b])).toEqual({});
  });
  test('params.subscriptionId in trace and receipt → wire subscription identity', () => {
    const m = minimal();
    (m.trace.request.params as Record<string, unknown>).subscriptionId = 'case-before-0';
    expect(check(m.output, [structuredClone(m.trace)])).toEqual({ case: [`${LABEL.subscriptionIdentity}/sender`] });
  });
  test('no outputs for an expected case → case count', () => {
    const { c } = minimal();
    const verdict = verifyHostRun({ cases: [{ ...c, id: 'missing' }], outputs: [], receipts: [], subscriptions: {} });
    expect(verdict.pair.map((x) => x.label)).toEqual([LABEL.caseCount]);
    expect(verdict.rows.get('missing')!.map((x) => x.label)).toEqual([LABEL.caseCount]);
  });
  test.each(['generated', 'applied'])('%s: 0 instead of false', (key) => {
    const m = minimal();
    m.output.result[key as 'generated'] = 0 as unknown as boolean;
    expect(check(m.output, [m.receipt])).toEqual({ case: [`${key}/sender`] });
  });
  test('a legacy body reference on instructions[0], in trace and receipt → rejected', () => {
    const m = minimal();
    (m.trace.request.params.event.instructions[0] as Record<string, unknown>).body = { ref: 'legacy' };
    expect(check(m.output, [structuredClone(m.trace)]).case).toContain(`${LABEL.wire}/sender`);
  });
  test.each([
    ['replace', 1],
    ['merge', 0],
  ])('capabilities %s: %s in trace and receipt → rejected', (key, value) => {
    const m = minimal();
    (m.trace.request.params.capabilities.modify.instructions as Record<string, unknown>)[key] = value;
    expect(check(m.output, [structuredClone(m.trace)])).toEqual({ case: [`${LABEL.wire}/sender`] });
  });
  test.each(['request', 'response'] as const)('trace [{flag:true}] vs receipt [{flag:1}] on the %s → receiver wire evidence', (side) => {
    const m = minimal();
    (m.trace[side] as Record<string, unknown>).extra = [{ flag: true }];
    const receipt = structuredClone(m.trace);
    (receipt[side] as Record<string, unknown>).extra = [{ flag: 1 }];
    expect(check(m.output, [receipt])).toEqual({ case: [`${LABEL.wireEvidence}/either`] });
  });
  test('trace subscription true vs receipt 1 → receiver receipt count', () => {
    const m = minimal();
    (m.trace as Record<string, unknown>).subscription = true;
    const receipt = { ...structuredClone(m.trace), subscription: 1 };
    const result = check(m.output, [receipt]);
    expect(result.case).toContain(`${LABEL.receiptCount}/either`);
    // the receipt names no scope of any case, so it is the pair's
    expect(result['(pair)']).toEqual([`${LABEL.unmatched}/either`]);
  });
});

describe('lies of a host, each failing exactly the cases it touches', () => {
  test('commits part of a rejected compound (the before-atomic instruction edit)', () => {
    const run = honestRun(FILE);
    const out = outputOf(run, 'before-atomic');
    out.result.instructions = textParts('leaked');
    expect(failing(run)).toEqual({ 'before-atomic': [`${LABEL.instructions}/sender`, `${LABEL.contentLeak}/sender`] });
  });
  test('stages the rejected compound message', () => {
    const run = honestRun(FILE);
    outputOf(run, 'after-atomic').result.messages = [{ type: 'message', text: 'leaked' }];
    expect(failing(run)).toEqual({ 'after-atomic': [`${LABEL.messageLeak}/sender`] });
  });
  test('undoes the generation after an after-boundary fail-closed', () => {
    const run = honestRun(FILE);
    for (const id of ['after-closed', 'closed-keeps-summary']) {
      const out = outputOf(run, id);
      out.result.generated = false;
      out.result.summary = null;
    }
    expect(failing(run)).toEqual({ 'after-closed': [`${LABEL.generated}/sender`, `${LABEL.summary}/sender`], 'closed-keeps-summary': [`${LABEL.generated}/sender`, `${LABEL.summary}/sender`] });
  });
  test('keeps running after hooks past a fail-closed one (an extra exchange and receipt)', () => {
    const run = honestRun(FILE);
    const out = outputOf(run, 'after-closed');
    const extra = structuredClone(out.trace[1]!);
    extra.subscription = 'after-closed-after-1';
    out.trace.push(extra);
    run.receipts.push(structuredClone(extra) as unknown as JsonObject);
    run.wire.push({ instance: 99, scope: 'after-closed-after-1', probe: false, requests: [extra.request], replies: [extra.response] });
    expect(failing(run)).toEqual({ 'after-closed': [`${LABEL.hookOrder}/sender`, `${LABEL.missingHooks}/sender`, `${LABEL.receiverReply}/receiver`, `${LABEL.serial}/sender`].sort() });
  });
  // composition.md, Observers: "Remaining uncalled matching intercept subscriptions also receive hooks/observe".
  const observation = (entry: Output['trace'][number], subscription: string): Output['trace'][number] => {
    const copy = structuredClone(entry);
    copy.subscription = subscription;
    copy.request.method = 'hooks/observe';
    return copy;
  };
  test('is not charged for observing the subscriptions its chain never called (the spec lets it; rules §12 leaves it out of scope)', () => {
    const run = honestRun(FILE);
    const out = outputOf(run, 'after-closed');
    const observed = observation(out.trace[0]!, 'after-closed-after-1');
    out.trace.push(observed);
    run.receipts.push(structuredClone(observed) as unknown as JsonObject);
    expect(failing(run)).toEqual({});
  });
  test('but an observation sent to a subscription it already called is a second copy, and fails that case', () => {
    const run = honestRun(FILE);
    const out = outputOf(run, 'after-closed');
    const observed = observation(out.trace[0]!, out.trace[0]!.subscription as string);
    out.trace.push(observed);
    run.receipts.push(structuredClone(observed) as unknown as JsonObject);
    expect(Object.keys(failing(run))).toEqual(['after-closed']);
    expect(failing(run)['after-closed']).toContain(`${LABEL.missingHooks}/sender`);
  });
  test('runs two hooks in the wrong order', () => {
    const run = honestRun(FILE);
    const out = outputOf(run, 'chain');
    [out.trace[0], out.trace[1]] = [out.trace[1]!, out.trace[0]!];
    expect(failing(run)).toEqual({ chain: [`${LABEL.hookOrder}/sender`, `${LABEL.serial}/sender`] });
  });
  test('omits a rejected exchange from its trace (and its seen)', () => {
    const run = honestRun(FILE);
    const out = outputOf(run, 'before-open');
    out.trace.splice(0, 1);
    expect(failing(run)).toEqual({ 'before-open': [`${LABEL.hookOrder}/sender`, `${LABEL.missingHooks}/sender`, `${LABEL.serial}/sender`, `${LABEL.unmatched}/either`].sort() });
  });
  test('reports a trace response that is not what the receiver answered (stdio: the sender is charged)', () => {
    const run = honestRun(FILE);
    const out = outputOf(run, 'supplied');
    out.trace[1]!.response = { ...out.trace[1]!.response, extra: true };
    expect(failing(run)).toEqual({ supplied: [`${LABEL.wireEvidence}/sender`] });
    expect(failing({ ...run, wire: undefined })).toEqual({ supplied: [`${LABEL.wireEvidence}/either`] });
  });
  test('fabricates attachment bodies', () => {
    const run = honestRun(FILE);
    outputOf(run, 'chain').result.bodies = { a: 'x' };
    expect(failing(run)).toEqual({ chain: [`${LABEL.bodies}/sender`] });
  });
});

describe('lies of a receiver', () => {
  test('repairs a configured invalid effect list (so the sender never has to reject it)', () => {
    const run = honestRun(FILE);
    const receipt = run.receipts.find((r) => r.subscription === 'before-open-before-0')!;
    ((receipt.response as JsonObject).result as JsonObject).effects = [];
    const out = outputOf(run, 'before-open');
    out.trace[0]!.response = structuredClone(receipt.response as JsonObject);
    run.wire.find((w) => w.scope === 'before-open-before-0')!.replies = [structuredClone(receipt.response)];
    expect(failing(run)).toEqual({ 'before-open': [`${LABEL.receiverReply}/receiver`] });
  });
  test('records its receipt with another response than it sent (stdio: the receiver is charged)', () => {
    const run = honestRun(FILE);
    const receipt = run.receipts.find((r) => r.subscription === 'chain-after-0')!;
    receipt.response = { ...(receipt.response as JsonObject), id: 'other' };
    expect(failing(run)).toEqual({ chain: [`${LABEL.wireEvidence}/receiver`] });
  });
  test('records no receipt for an exchange it answered (stdio: the receiver is charged)', () => {
    const run = honestRun(FILE);
    run.receipts = run.receipts.filter((r) => r.subscription !== 'fixed-edits-after-1');
    expect(failing(run)).toEqual({ 'fixed-edits': [`${LABEL.receiptCount}/receiver`] });
  });
  test('writes a second stdout line on stdio', () => {
    const run = honestRun(FILE);
    const record = run.wire.find((w) => w.scope === 'after-open-after-0')!;
    record.replies.push(record.replies[0]);
    expect(failing(run)).toEqual({ 'after-open': [`${LABEL.stdioExtraOutput}/receiver`] });
  });
  test('a receipt for a scope no case has is a pair fault', () => {
    const run = honestRun(FILE);
    run.receipts.push({ subscription: 'nobody', request: {}, response: {} });
    expect(failing(run)).toEqual({ '(pair)': [`${LABEL.unmatched}/either`] });
  });
});

describe('COMPACTION-RULES §9 / §13: the rejection probe', () => {
  const probes = FILE.probes;
  const errorReply = (code: unknown) => ({ jsonrpc: '2.0', id: 'chain:before', error: { code, message: 'invalid' } });
  const probeFailures = (replies: unknown, receipts: unknown[] = []) => {
    const rows = verifyProbe({ probes, client: { ok: true, replies }, receipts });
    return Object.fromEntries([...rows].filter(([, c]) => c.length > 0).map(([id, c]) => [id, summary(c)]));
  };
  test('the four requests carry no subscriptionId, and four −32602 replies pass', () => {
    expect(probes.map((p) => p.id)).toEqual(['probe:missing-trigger', 'probe:before-summary-capability', 'probe:scalar-instructions', 'probe:legacy-body']);
    for (const p of probes) expect(JSON.stringify(p.request)).not.toContain('subscriptionId');
    expect(probeFailures(probes.map(() => errorReply(-32602)))).toEqual({});
  });
  test.each([
    ['no replies', []],
    ['three errors', [0, 1, 2].map(() => ({ error: { code: -32602 } }))],
  ])('%s → every probe fails', (_name, replies) => {
    const result = probeFailures(replies);
    expect(Object.keys(result)).toEqual(probes.map((p) => p.id));
    expect(Object.values(result).flat()).toEqual(probes.map(() => `${LABEL.wire}/either`));
  });
  test.each([
    ['result replies', { result: {} }],
    ['code true', errorReply(true)],
  ])('four %s → receiver accepted invalid request, each', (_name, reply) => {
    const result = probeFailures(probes.map(() => reply));
    expect(result).toEqual(Object.fromEntries(probes.map((p) => [p.id, [`${LABEL.acceptedInvalid}/receiver`]])));
  });
  test('a receipt recorded for one probe request fails that probe alone', () => {
    const receipt = { subscription: 'chain-before-0', request: probes[2]!.request, response: {} };
    expect(probeFailures(probes.map(() => errorReply(-32602)), [receipt])).toEqual({ [probes[2]!.id]: [`${LABEL.rejectedRecorded}/receiver`] });
  });
  test('a client that could not run fails every probe with its check', () => {
    const rows = verifyProbe({ probes, client: { ok: false, check: { label: LABEL.negativeSender, party: 'sender', message: 'negative sender: boom' } }, receipts: [] });
    expect([...rows.values()].map((c) => c.map((x) => x.label))).toEqual(probes.map(() => [LABEL.negativeSender]));
  });
});
