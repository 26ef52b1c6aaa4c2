// The stdio relay reads each GET /receipts answer through ReceiptTail: whatever the server's answers
// look like, the receipts it hands on must be exactly those that parsing every whole answer gives —
// the byte-prefix shortcut may only save work, never change a result.

import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';

import { ReceiptTail, type TailRead } from '../../harness/runs/receipt-tail.mjs';

const body = (value: unknown, space?: number): Buffer => Buffer.from(JSON.stringify(value, null, space));

/** What the relay would have read by parsing every answer whole. */
function wholeReads(answers: Buffer[]): TailRead[] {
  let count = 0;
  return answers.map((answer) => {
    let value: unknown;
    try {
      value = JSON.parse(answer.toString('utf8'));
    } catch {
      return { ok: false, kind: 'not-json' };
    }
    const requests = (value as { requests?: unknown } | null)?.requests;
    if (!Array.isArray(requests)) return { ok: false, kind: 'invalid' };
    if (requests.length < count) return { ok: false, kind: 'reset', count: requests.length };
    const fresh = requests.slice(count);
    count = requests.length;
    return { ok: true, count, fresh };
  });
}

const receipt = fc.record({ id: fc.oneof(fc.string(), fc.integer()), message: fc.jsonValue({ maxDepth: 2 }) });

describe('ReceiptTail', () => {
  test.prop([fc.array(receipt, { maxLength: 12 }), fc.array(fc.nat(12), { minLength: 1, maxLength: 8 })])(
    'a growing compact log: every read equals the whole-answer read',
    (log, cuts) => {
      const answers = [...cuts].sort((a, b) => a - b).map((n) => body({ requests: log.slice(0, n) }));
      const tail = new ReceiptTail();
      expect(answers.map((answer) => tail.read(answer))).toEqual(wholeReads(answers));
    },
  );

  test.prop([
    fc.array(
      fc.oneof(
        fc.array(receipt, { maxLength: 4 }).map((requests) => body({ requests })),
        fc.array(receipt, { maxLength: 4 }).map((requests) => body({ requests }, 2)),
        fc.array(receipt, { maxLength: 4 }).map((requests) => body({ requests, extra: true })),
        fc.array(receipt, { maxLength: 4 }).map((requests) => body({ entries: requests })),
        fc.constantFrom(Buffer.from('{"requests":[1],"x":[2]}'), Buffer.from('{"requests":[1,]}'), Buffer.from('not json'), Buffer.from('{"requests":[1]}')),
      ),
      { minLength: 1, maxLength: 8 },
    ),
  ])('any sequence of answers (pretty, extra keys, resets, garbage): every read equals the whole-answer read', (answers) => {
    const tail = new ReceiptTail();
    expect(answers.map((answer) => tail.read(answer))).toEqual(wholeReads(answers));
  });

  test('an extension that would change the structure is parsed whole, not taken as a tail', () => {
    const answers = ['{"requests":[1]}', '{"requests":[1,2],"x":[3]}', '{"requests":[1,2]}', '{"requests":[1,2,]}', '{"requests":[1,2,"é"]}', '{"requests":[0]}'].map((text) => Buffer.from(text));
    const tail = new ReceiptTail();
    const reads = answers.map((answer) => tail.read(answer));
    expect(reads).toEqual([
      { ok: true, count: 1, fresh: [1] },
      // Same prefix, a comma, then a tail that is not a list of values: read whole (another key follows).
      { ok: true, count: 2, fresh: [2] },
      { ok: true, count: 2, fresh: [] },
      { ok: false, kind: 'not-json' },
      { ok: true, count: 3, fresh: ['é'] },
      { ok: false, kind: 'reset', count: 1 },
    ]);
    expect(reads).toEqual(wholeReads(answers));
  });
});
