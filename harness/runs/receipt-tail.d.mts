// Types of receipt-tail.mjs (plain JavaScript so the stdio relay starts under plain node).

export type TailRead = { ok: true; count: number; fresh: unknown[] } | { ok: false; kind: 'not-json' | 'invalid' | 'reset'; count?: number };

export declare class ReceiptTail {
  /** Receipts read so far. */
  count: number;
  /** The receipts of one whole GET /receipts body beyond those already read. */
  read(bytes: Buffer): TailRead;
}
