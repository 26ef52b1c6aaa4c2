// The receivers' shared receipt log (`<storeDir>/receipts.jsonl`, COMPACTION-RULES §5 step 3): every
// line parsed, a missing file being no receipts. A line that is not JSON (or a blank one) is a
// receiver fault the verifier reports; it is kept in place so line numbers stay true.

import { readFileSync } from 'node:fs';

export interface ReceiptLines {
  receipts: unknown[];
  /** 1-based numbers of lines that are not JSON objects. */
  bad: number[];
}

export function readReceiptLines(file: string): ReceiptLines {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { receipts: [], bad: [] };
  }
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  if (text === '') return { receipts: [], bad: [] };
  const bad: number[] = [];
  const receipts = lines.map((line, i) => {
    try {
      const value = JSON.parse(line) as unknown;
      if (typeof value !== 'object' || value === null || Array.isArray(value)) bad.push(i + 1);
      return value;
    } catch {
      bad.push(i + 1);
      return null;
    }
  });
  return { receipts, bad };
}
