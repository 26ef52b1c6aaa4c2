// The closed format of our compaction case file (fixtures/compaction.json, checked against
// fixtures/compaction-case-file.schema.json): the cases a host runs, each hook's receiver action,
// what the simulator expects, and the receiver rejection probe's requests.

import type { JsonObject } from '../../protocol/json.ts';

export type Boundary = 'before' | 'after';
export const BOUNDARIES: readonly Boundary[] = ['before', 'after'];
export type FailurePolicy = 'fail-closed' | 'fail-open';
export type TextTarget = 'instructions' | 'summary';

/**
 * What the receiver answers for one subscription (COMPACTION-RULES §4): text derived from the text
 * it received, or a fixed effect list sent verbatim (even when the sender must reject it).
 */
export type ReceiverAction = { kind: 'append'; target: TextTarget; suffix: string } | { kind: 'effects'; effects: JsonObject[] };

export interface CompactionHook {
  action: ReceiverAction;
  failurePolicy: FailurePolicy;
}

/** One exchange the runtime makes, in call order. */
export interface ExpectedExchange {
  /** `<case>-<boundary>-<index>`: the hook's scope and the receipt's `subscription`. */
  subscription: string;
  boundary: Boundary;
  /** The boundary's target text the event carries (instructions before, summary after): `seen`. */
  text: string;
  /** Whether the sender accepts the reply (false: a compound invalid at its boundary, a hook failure). */
  accepted: boolean;
}

export interface CompactionExpected {
  instructions: string;
  generated: boolean;
  applied: boolean;
  failures: number;
  /** The final summary text, null when no summary exists (a fail-closed before boundary). */
  summary: string | null;
  /** `[summary]` iff applied, else []. */
  downstream: string[];
  /** The target text of each exchange, in order (COMPACTION-RULES §4's `seen`). */
  seen: string[];
  exchanges: ExpectedExchange[];
}

export interface CompactionCase {
  /** The case name the host reports back (`name`) and the test name. */
  id: string;
  description: string;
  /** `rules`: one of the protocol's 8 cases; `ours`: a row for what the rules state but those leave thin. */
  origin: 'rules' | 'ours';
  /** What this row proves, each a short phrase (a tag). */
  proves: string[];
  before: CompactionHook[];
  after: CompactionHook[];
  expected: CompactionExpected;
}

/** One request of the receiver rejection probe (COMPACTION-RULES §9). */
export interface ProbeRequest {
  /** `probe:<what is wrong>`: the test name. */
  id: string;
  description: string;
  proves: string[];
  /** The scope the request is sent under (its token on HTTP, its argv on stdio). */
  subscription: string;
  /** Invalid by the canonical intercept-request schema; never carries a `subscriptionId`. */
  request: JsonObject;
  expected: { errorCode: -32602; receipt: false };
}

export interface CompactionCaseFile {
  version: 1;
  family: 'compaction';
  cases: CompactionCase[];
  probes: ProbeRequest[];
}

/** The scope (subscription) of a hook. */
export function scopeOf(caseId: string, boundary: Boundary, index: number): string {
  return `${caseId}-${boundary}-${index}`;
}
