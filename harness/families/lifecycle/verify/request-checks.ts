// LIFECYCLE-RULES §7.5: every intercept attempt the receiver recorded is exactly the fixture request
// of its send step, its body aliases rewritten to receiver refs (and valid under the intercept
// request schema), and no attempt carried a body before the receiver confirmed those bytes.

import { jsonEqual } from '../../../protocol/json.ts';
import { jsonDiff } from '../../../protocol/json-diff.ts';
import type { ProtocolValidators } from '../../../protocol/validator-types.ts';
import type { EntryOwners } from './entry-owners.ts';
import type { ExpectedDelivery } from './expected-deliveries.ts';
import type { Findings } from '../../../lifecycle-adapters/findings.ts';
import { LABEL } from '../../../lifecycle-adapters/labels.ts';
import { describeEntry, idKey, refsWithoutPriorUpload, type LogEntry } from '../../../lifecycle-adapters/receipt-log.ts';

export function checkRequests(
  deliveries: readonly ExpectedDelivery[],
  entries: readonly LogEntry[],
  owners: EntryOwners,
  validators: Pick<ProtocolValidators, 'interceptRequest'>,
  findings: Findings,
): void {
  const expectedById = new Map<string, ExpectedDelivery[]>();
  for (const d of deliveries) {
    if (d.kind !== 'received') continue;
    const key = idKey(d.requestId) as string;
    expectedById.set(key, [...(expectedById.get(key) ?? []), d]);
  }
  const seen = new Map<string, number>();
  for (const e of entries) {
    if (e.kind !== 'received') continue;
    const owner = owners.ofRequest(e.entry.id);
    // (24) whoever owns it
    const early = refsWithoutPriorUpload(entries, e);
    if (early.length > 0) {
      findings.rowOrRun(owner, LABEL.interceptBeforeUpload, 'client', `${describeEntry(e)} carries body ref(s) ${early.map((r) => JSON.stringify(r)).join(', ')} with no earlier 201 upload receipt assigning them`);
    }
    if (owner === undefined) continue; // (9) already names entries of no selected request
    // (23) the k-th attempt of an id against its k-th send step (extra attempts against the last)
    const key = idKey(e.entry.id) as string;
    const k = seen.get(key) ?? 0;
    seen.set(key, k + 1);
    const candidates = expectedById.get(key) ?? [];
    const expected = candidates[Math.min(k, candidates.length - 1)];
    if (expected !== undefined && !jsonEqual(e.entry.message, expected.message)) {
      findings.row(owner, LABEL.requestMismatch, 'client or server', `${describeEntry(e)} is not the request of steps[${expected.stepIndex}]: ${jsonDiff(expected.message, e.entry.message).join('; ')}`);
    }
    const schema = validators.interceptRequest(e.entry.message);
    if (!schema.valid) findings.row(owner, LABEL.requestMismatch, 'client or server', `${describeEntry(e)} message fails the intercept request schema: ${schema.errors.join('; ')}`);
  }
}
