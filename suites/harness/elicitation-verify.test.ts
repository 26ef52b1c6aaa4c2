// The elicitation verifier (ELICITATION-RULES §5, §9) over whole simulated pairs: an honest pair
// passes every entry in both bindings, and each lying receiver, sender or atomic helper fails exactly
// the entries its lie touches, with the rules' label and the party at fault. Labels are written out
// here rather than imported, so a typo in the verifier's label table fails.

import { describe, expect, test } from 'vitest';

import type { ElicitationCaseFile, PairVerdict } from '../../harness/families/elicitation/case-types.ts';
import { buildElicitationCaseFile } from '../../harness/families/elicitation/generate.ts';
import { ReceiverModel, type InterceptOutcome, type Resolved } from '../../harness/families/elicitation/receiver-model.ts';
import { verifyElicitationPair } from '../../harness/families/elicitation/verify/verify-pair.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../harness/protocol/json.ts';
import { sha256Hex } from '../../harness/protocol/sha256-hex.ts';
import { itemOf, simulatePair, type PairLies } from './support/elicitation-simulated-pair.ts';

const L = {
  receipts: 'exact receiver receipts differ (body bytes, payload, metadata, identity or completion)',
  got200: '/hooks/intercept expected 400, got 200',
  got400: '/hooks/intercept expected 200, got 400',
  unauthenticated: 'unauthenticated access accepted',
  partial: 'partial failed result published',
  mutatedInput: 'atomic staging mutated input',
  application: 'atomic effect application mismatch',
  provenance: 'atomic provenance mismatch',
  acceptance: 'atomic staging acceptance mismatch',
  count: 'atomic result count',
  integrity: 'upload descriptor integrity',
  invalidDescriptor: 'invalid upload descriptor',
  refMutated: 'receiver ref mutated',
  startupFailed: 'receiver startup failed: ',
};

const FILES: Record<'upload' | 'inline', ElicitationCaseFile> = { upload: buildElicitationCaseFile('upload'), inline: buildElicitationCaseFile('inline') };

/** `id → labels` of every failed entry, plus `(pair)` for pair faults. */
function failed(verdict: PairVerdict): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [id, v] of verdict.cases) if (v.status !== 'passed') out[id] = [...new Set(v.failures.map((f) => f.label))];
  if (verdict.pairFaults.length > 0) out['(pair)'] = verdict.pairFaults.map((f) => `${f.label} — ${f.evidence}`);
  return out;
}

function partiesOf(verdict: PairVerdict, id: string): string[] {
  return [...new Set(verdict.cases.get(id)?.failures.map((f) => f.party) ?? [])];
}

async function run(file: ElicitationCaseFile, lies: PairLies, selection?: string[]): Promise<PairVerdict> {
  const { evidence } = await simulatePair(file, { lies, selection });
  return verifyElicitationPair(evidence, file, { selection });
}

/** Entries whose receipts include a result event (they carry provenance). */
function entriesWithResultReceipts(file: ElicitationCaseFile): string[] {
  const wire = [...file.cases, file.concurrent].filter((c) => c.receipts.some((r) => r.eventId.endsWith(':result'))).map((c) => c.id);
  return [...wire, ...file.atomic.filter((row) => row.expected.accepted).map((row) => row.id)];
}

function entriesWithReceipts(file: ElicitationCaseFile): string[] {
  const wire = [...file.cases, file.concurrent].filter((c) => c.receipts.length > 0).map((c) => c.id);
  return [...wire, ...file.atomic.filter((row) => row.expected.accepted).map((row) => row.id)];
}

function only(ids: readonly string[], label: string): Record<string, string[]> {
  return Object.fromEntries([...ids].map((id) => [id, [label]]));
}

class GapAcceptingReceiver extends ReceiverModel {
  protected override resolve(item: JsonValue | undefined): Resolved {
    if (isJsonObject(item) && item.selection === 'body' && isJsonObject(item.gap)) return { ok: true, bytes: undefined, selection: 'metadata' };
    return super.resolve(item);
  }
}

function pendingKey(message: JsonObject): { stage: string; key: string } {
  const event = (message.params as JsonObject).event as JsonObject;
  const stage = event.type === 'user.elicitation.request' ? 'request' : 'result';
  return { stage, key: JSON.stringify([event.source, stage === 'request' ? event.id : event.parentEventId]) };
}

class ConsumingOnFailureReceiver extends ReceiverModel {
  override intercept(message: JsonObject): InterceptOutcome {
    const outcome = super.intercept(message);
    const { stage, key } = pendingKey(message);
    if (outcome.status === 400 && stage === 'result') this.pending.delete(key);
    return outcome;
  }
}

class ReplacingDuplicateReceiver extends ReceiverModel {
  override intercept(message: JsonObject): InterceptOutcome {
    const { stage, key } = pendingKey(message);
    if (stage === 'request') this.pending.delete(key);
    return super.intercept(message);
  }
}

/** Treats an upload right after one of the same size as an overwrite of that ref: stored bytes change under it. */
class OverwritingReceiver extends ReceiverModel {
  private last: { ref: string; size: number } | undefined;
  override upload(bytes: Buffer, headers: Record<string, string> | undefined): ReturnType<ReceiverModel['upload']> {
    const outcome = super.upload(bytes, headers);
    if (outcome.status !== 201) return outcome;
    const reused = this.last !== undefined && this.last.size === bytes.length ? this.last.ref : outcome.descriptor.ref;
    this.stored.set(reused, Buffer.from(bytes));
    this.last = { ref: reused, size: bytes.length };
    return { status: 201, descriptor: { ...outcome.descriptor, ref: reused } };
  }
}

describe.each(['upload', 'inline'] as const)('elicitation verifier, %s binding', (binding) => {
  const file = FILES[binding];

  test('an honest pair passes every entry with no pair fault', async () => {
    const verdict = await run(file, {});
    expect(failed(verdict)).toEqual({});
    expect(verdict.cases.size).toBe(file.cases.length + file.atomic.length + file.probes.length + 1);
    expect([...verdict.cases.values()].every((v) => v.status === 'passed')).toBe(true);
  });

  test('a receiver that accepts a selected gap fails exactly the two gap cases, the receiver at fault', async () => {
    const verdict = await run(file, { receiver: (token) => new GapAcceptingReceiver(token) });
    expect(failed(verdict)).toEqual({ 'selected-request-gap-fails-closed': [L.got200], 'selected-result-gap-fails-closed': [L.got200] });
    expect(partiesOf(verdict, 'selected-request-gap-fails-closed')).toEqual(['receiver']);
  });

  test('a receiver that fills in a form default fails exactly the case that leaves a defaulted field out', async () => {
    const verdict = await run(file, {
      recordReceipt: (receipt) => {
        const summary = structuredClone(receipt.summary);
        const request = summary.request as JsonObject | undefined;
        const result = summary.result as JsonObject | undefined;
        const properties = ((request?.requestedSchema as JsonObject | undefined)?.properties ?? {}) as JsonObject;
        if (result !== undefined && isJsonObject(result.content)) {
          for (const [name, schema] of Object.entries(properties)) if (isJsonObject(schema) && schema.default !== undefined && !(name in result.content)) result.content[name] = schema.default;
        }
        return { ...receipt, summary };
      },
    });
    expect(failed(verdict)).toEqual({ 'submitted-form-default-not-injected': [L.receipts] });
    expect(partiesOf(verdict, 'submitted-form-default-not-injected')).toEqual(['receiver']);
  });

  test('a receiver that injects the default form mode fails exactly form-default-mode', async () => {
    const verdict = await run(file, {
      recordReceipt: (receipt) => {
        const summary = structuredClone(receipt.summary);
        if (isJsonObject(summary.request) && summary.request.mode === undefined) summary.request.mode = 'form';
        return { ...receipt, summary };
      },
    });
    expect(failed(verdict)).toEqual({ 'form-default-mode': [L.receipts] });
  });

  test('a receiver that takes the principal from the event source fails every entry with a result receipt', async () => {
    const verdict = await run(file, {
      recordReceipt: (receipt) => {
        const source = ((receipt.message.params as JsonObject).event as JsonObject).source as string;
        const summary = structuredClone(receipt.summary);
        // The simulated receiver adds its principal afterwards; a lying one records the event's source instead.
        if (isJsonObject(summary.provenance)) summary.provenance = { kind: 'mcp', spoofedFrom: source };
        return { ...receipt, summary };
      },
    });
    expect(failed(verdict)).toEqual(only(entriesWithResultReceipts(file), L.receipts));
  });

  test('a receiver that lets a failed result consume the pending request fails only the concurrent scenario', async () => {
    const verdict = await run(file, { receiver: (token) => new ConsumingOnFailureReceiver(token) });
    expect(failed(verdict)).toEqual({ 'concurrent-reverse-settlement': [L.got400] });
  });

  test('a receiver that replaces a duplicate live request fails only the concurrent scenario, the receiver at fault', async () => {
    const verdict = await run(file, { receiver: (token) => new ReplacingDuplicateReceiver(token) });
    expect(failed(verdict)).toEqual({ 'concurrent-reverse-settlement': [L.got200] });
    expect(partiesOf(verdict, 'concurrent-reverse-settlement')).toEqual(['receiver']);
  });

  test('a sender that rewrites the envelope it delivers fails every entry with receipts, and the evidence cannot tell who', async () => {
    const verdict = await run(file, {
      sdkDelivers: (message) => {
        const copy = structuredClone(message);
        ((copy.params as JsonObject).event as JsonObject).time = '2030-01-01T00:00:00Z';
        return copy;
      },
    });
    expect(failed(verdict)).toEqual(only(entriesWithReceipts(file), L.receipts));
    expect(partiesOf(verdict, 'form-decline')).toEqual(['either']);
  });

  test('a receiver that overwrites stored bytes under an earlier ref fails only the immutable-ref probe', async () => {
    const verdict = await run(file, { receiver: (token) => new OverwritingReceiver(token) });
    expect(failed(verdict)).toEqual({ 'probe/upload-immutable-ref': [L.refMutated] });
    expect(partiesOf(verdict, 'probe/upload-immutable-ref')).toEqual(['receiver']);
  });

  test('/receipts answering without the bearer fails only the unauthenticated probe', async () => {
    const verdict = await run(file, { receiptsWithoutBearer: true });
    expect(failed(verdict)).toEqual({ 'probe/unauthenticated-receipts': [L.unauthenticated] });
    expect(partiesOf(verdict, 'probe/unauthenticated-receipts')).toEqual(['receiver']);
  });

  test('a receipt list missing one receipt fails exactly that case; receipts out of order fail the pair', async () => {
    const dropped = await run(file, { recordReceipt: (receipt) => (receipt.message.id === 'form-decline:result' ? { ...receipt, message: { ...receipt.message, id: 'elsewhere', params: { event: { id: 'nobody' } } } } : receipt) });
    expect(Object.keys(failed(dropped))).toEqual(['form-decline', '(pair)']);
    expect(failed(dropped)['form-decline']).toEqual([L.receipts]);
  });

  test('an atomic helper that publishes partial results fails exactly the rejected rows', async () => {
    const verdict = await run(file, {
      atomicOutputs: (outputs) => outputs.map((out) => (out.accepted ? out : { ...out, summary: { result: { action: 'accept' } } })),
    });
    expect(failed(verdict)).toEqual(only(file.atomic.filter((row) => !row.expected.accepted).map((row) => row.id), L.partial));
  });

  test('an atomic helper that mutates its input fails exactly that row, which is then not published', async () => {
    const verdict = await run(file, { atomicOutputs: (outputs) => outputs.map((out, i) => (i === 0 ? { ...out, inputUnchanged: false } : out)) });
    expect(failed(verdict)).toEqual({ 'atomic/before-return': [L.mutatedInput] });
  });

  test('an atomic helper with a wrong result, provenance or acceptance fails that row with each label', async () => {
    const verdict = await run(file, {
      atomicOutputs: (outputs) =>
        outputs.map((out, i) => {
          if (i === 1) return { ...out, summary: { ...out.summary, result: { action: 'decline', content: {} } } };
          if (i === 2) return { ...out, summary: { ...out.summary, provenance: { kind: 'hook', authenticatedSource: 'urn:spoofed:human', effects: ['modify'] } } };
          if (i === 4) return { ...out, accepted: true };
          return out;
        }),
    });
    expect(failed(verdict)).toEqual({ 'atomic/before-deny': [L.application], 'atomic/result-replace': [L.provenance], 'atomic/invalid-second-effect-rollback': [L.acceptance] });
  });

  test('an atomic helper with the wrong number of outputs fails every atomic row', async () => {
    const verdict = await run(file, { atomicOutputs: (outputs) => outputs.slice(1) });
    expect(failed(verdict)).toEqual(only(file.atomic.map((row) => row.id), L.count));
  });
});

describe('elicitation verifier, upload descriptors and raw steps (upload binding)', () => {
  const file = FILES.upload;
  const one = ['form-accept-selected-complete-bytes'];

  test('a sender that repairs a bad digest on a raw step fails only request-digest-mismatch, the sender at fault', async () => {
    const verdict = await run(file, {
      rawDelivers: (message, plan) => {
        const copy = structuredClone(message);
        const body = itemOf(copy)?.body;
        if (isJsonObject(body) && body.sha256 === '0'.repeat(64)) {
          const source = plan.contentSources?.find((s) => s.descriptor.ref === body.ref);
          if (source !== undefined) body.sha256 = sha256Hex(Buffer.from(source.bytes, 'base64'));
        }
        return copy;
      },
    });
    expect(failed(verdict)).toEqual({ 'request-digest-mismatch': [L.got200] });
    expect(partiesOf(verdict, 'request-digest-mismatch')).toEqual(['sender']);
  });

  test.each([
    ['size true', (d: JsonObject) => JSON.stringify({ ...d, size: true }), L.integrity],
    ['a size off by one', (d: JsonObject) => JSON.stringify({ ...d, size: (d.size as number) + 1 }), L.integrity],
    ['a zero sha256', (d: JsonObject) => JSON.stringify({ ...d, sha256: '0'.repeat(64) }), L.integrity],
    ['an empty ref', (d: JsonObject) => JSON.stringify({ ...d, ref: '' }), L.integrity],
    ['an extra key', (d: JsonObject) => JSON.stringify({ ...d, extra: 1 }), L.invalidDescriptor],
    ['size written 360.0', (d: JsonObject) => JSON.stringify(d).replace(/"size":(\d+)/, '"size":$1.0'), L.integrity],
  ])('a 201 with %s is refused and the dependent intercept is never sent', async (_what, answer, label) => {
    const { evidence } = await simulatePair(file, { selection: one, lies: { uploadAnswer: (d) => answer(d as unknown as JsonObject) } });
    const verdict = verifyElicitationPair(evidence, file, { selection: one });
    expect(failed(verdict)).toEqual({ [one[0] as string]: [label] });
    expect(evidence.steps).toHaveLength(1);
  });

  test('one ref confirmed for different bytes is "receiver ref mutated"', async () => {
    const verdict = await run(file, { uploadAnswer: (d) => JSON.stringify({ ...d, ref: 'receiver-fixed' }) }, one);
    expect(failed(verdict)).toEqual({ [one[0] as string]: [L.refMutated] });
  });

  test('a receiver whose startup failed: a pair fault quoting the stderr tail, every entry not run', () => {
    const tail = `${'x'.repeat(200_000)}TAIL`;
    const verdict = verifyElicitationPair({ sender: 's', receiver: 'r', principal: 'authenticated:s', startup: { ok: false, kind: 'failed', stderrTail: tail }, steps: [] }, file);
    const [fault] = verdict.pairFaults;
    expect(fault?.label.startsWith(L.startupFailed)).toBe(true);
    expect(fault?.label.endsWith('TAIL')).toBe(true);
    expect(fault?.label.length).toBeLessThan(1600);
    expect([...verdict.cases.values()].every((v) => v.status === 'not-run')).toBe(true);
  });
});
