// One case of the differential schema corpus: a message, the entry point that judges it and the
// verdict both schema sets (ours and the canonical ones) must give.

import type { EntryPoint } from '../../../harness/protocol/validator-types.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Obj = { [key: string]: Json };

export interface Case {
  entry: EntryPoint;
  name: string;
  valid: boolean;
  message: unknown;
}

export const ok = (entry: EntryPoint, name: string, msg: unknown): Case => ({ entry, name, valid: true, message: msg });
export const bad = (entry: EntryPoint, name: string, msg: unknown): Case => ({ entry, name, valid: false, message: msg });

/** `value` without the named members (a builder for "missing X" cases). */
export function without(value: Obj, ...keys: string[]): Obj {
  const copy: Obj = { ...value };
  for (const key of keys) delete copy[key];
  return copy;
}
