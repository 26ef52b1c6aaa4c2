// Reading GET /receipts answers one after another, as the stdio relay does before every response it
// forwards. Each answer holds every receipt so far, so n requests mean n²/2 receipts to read; on a
// long run the relay spent more CPU re-parsing old receipts than the server spent answering. When an
// answer is the compact form `{"requests":[...]}` (nothing else) and the next one repeats it byte for
// byte up to the array's end, only the new tail is decoded. Any other answer is parsed whole, so the
// result is always what parsing the whole answer gives.
//
// Plain JavaScript: the relay imports it and starts under plain `node`.

const COMMA = 0x2c;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/** @typedef {{ ok: true, count: number, fresh: unknown[] } | { ok: false, kind: 'not-json' | 'invalid' | 'reset', count?: number }} TailRead */

export class ReceiptTail {
  /** Receipts read so far. */
  count = 0;
  /** The last answer, when it was compact with at least one receipt: the prefix the next must repeat. */
  #compact = null;

  /**
   * The receipts of `bytes` beyond those already read.
   * @param {Buffer} bytes the whole body of one GET /receipts answer
   * @returns {TailRead}
   */
  read(bytes) {
    const tail = this.#tail(bytes);
    if (tail !== undefined) {
      this.count += tail.length;
      this.#compact = bytes;
      return { ok: true, count: this.count, fresh: tail };
    }
    let value;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      return { ok: false, kind: 'not-json' };
    }
    const requests = value !== null && typeof value === 'object' ? value.requests : undefined;
    if (!Array.isArray(requests)) return { ok: false, kind: 'invalid' };
    if (requests.length < this.count) {
      this.#compact = null;
      return { ok: false, kind: 'reset', count: requests.length };
    }
    const fresh = requests.slice(this.count);
    this.count = requests.length;
    this.#compact = requests.length > 0 && bytes.toString('utf8') === JSON.stringify({ requests }) ? bytes : null;
    return { ok: true, count: this.count, fresh };
  }

  /** The new receipts when `bytes` extends the last compact answer exactly; otherwise undefined. */
  #tail(bytes) {
    const previous = this.#compact;
    if (previous === null) return undefined;
    // previous = `{"requests":[e1,...,ek]}`; an extension is `{"requests":[e1,...,ek` `,` X `]}`.
    const kept = previous.length - 2;
    if (bytes.length <= previous.length || bytes[kept] !== COMMA) return undefined;
    if (bytes[bytes.length - 2] !== CLOSE_ARRAY || bytes[bytes.length - 1] !== CLOSE_OBJECT) return undefined;
    if (bytes.compare(previous, 0, kept, 0, kept) !== 0) return undefined;
    // `[X]` parsing as an array makes X a list of one or more values, so the whole answer is the old
    // array with exactly those appended (JSON's grammar has no other reading of it).
    let tail;
    try {
      tail = JSON.parse(`[${bytes.subarray(kept + 1, bytes.length - 2).toString('utf8')}]`);
    } catch {
      return undefined;
    }
    return Array.isArray(tail) && tail.length > 0 ? tail : undefined;
  }
}
