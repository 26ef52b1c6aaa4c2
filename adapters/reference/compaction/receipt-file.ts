// The receipts every receiver process of a pair appends to one shared `<storeDir>/receipts.jsonl`:
// one compact JSON line per accepted request, written with a single append so that lines from
// concurrent processes never interleave.

import { appendFileSync } from 'node:fs';
import path from 'node:path';

import type { JsonValue } from '../../../harness/protocol/json.ts';

export interface CompactionReceipt {
  subscription: string;
  request: JsonValue;
  response: JsonValue;
}

export type ReceiptSink = (receipt: CompactionReceipt) => void;

export function receiptsFile(storeDir: string): string {
  return path.join(storeDir, 'receipts.jsonl');
}

export function appendReceipt(storeDir: string): ReceiptSink {
  const file = receiptsFile(storeDir);
  return (receipt) => appendFileSync(file, `${JSON.stringify(receipt)}\n`, { encoding: 'utf8', mode: 0o600 });
}
