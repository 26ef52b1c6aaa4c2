// What the lifecycle and catalogue verifier self-tests share: one run's evidence to break before it is
// verified, and where the verifier's failures landed, by label (both verifiers return the same
// `{runFailures, rows}`).

import type { Transport } from '../../../harness/config/define-config.ts';
import type { JsonObject } from '../../../harness/protocol/json.ts';
import type { LifecycleVerification } from '../../../harness/lifecycle-adapters/findings.ts';

/** One run's evidence, free to be broken before it is verified. */
export interface VerifierCase<Row> {
  rows: Row[];
  transport: Transport;
  report: JsonObject;
  /** What the caller hands the verifier (over stdio: the report's own `receipts`). */
  receipts: unknown;
  exitCode: number | null;
  clientLanguage: string;
  /** The log's entries, for mutation (the same array the receipts hold, when they are well-formed). */
  entries: JsonObject[];
}

/** The run's labels and each row's that has any. */
export function labelsByPlace(v: LifecycleVerification): { run: string[]; rows: Record<string, string[]> } {
  const rows: Record<string, string[]> = {};
  for (const [id, checks] of v.rows) if (checks.length > 0) rows[id] = checks.map((c) => c.label);
  return { run: v.runFailures.map((c) => c.label), rows };
}
