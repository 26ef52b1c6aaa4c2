// TEMPORARY SHIM (eli-run): a stand-in for eli-model's verifier (API as announced) that only checks
// each step's status and the helper's exit, so the run can be exercised before the real module lands.
// Replaced wholesale by eli-model's verify/verify-pair.ts on merge.

import type { CaseVerdict, CheckFailure, ElicitationCaseFile, PairEvidence, PairVerdict, WireCase } from '../case-types.ts';

export function verifyElicitationPair(evidence: PairEvidence, file: ElicitationCaseFile, _published: readonly WireCase[] = []): PairVerdict {
  const cases = new Map<string, CaseVerdict>();
  const pairFaults: CheckFailure[] = [];
  if (!evidence.startup.ok) pairFaults.push({ caseId: null, label: evidence.startup.stderrTail, party: 'receiver', evidence: 'startup' });
  const ids = [...file.cases.map((wire) => wire.id), file.concurrent.id, ...file.atomic.map((row) => row.id), ...file.probes.map((probe) => probe.id)];
  const steps = [...file.cases, file.concurrent, ...file.probes.flatMap((probe) => (probe.kind === 'upload' ? [probe] : []))];
  for (const id of ids) {
    const failures: CheckFailure[] = [];
    const entry = steps.find((one) => one.id === id);
    for (const step of evidence.steps.filter((one) => one.caseId === id)) {
      const planned = entry?.steps[step.step];
      if (step.outcome.kind !== 'exited' || step.outcome.exitCode !== 0) {
        failures.push({ caseId: id, label: 'step failed', party: 'sender', evidence: step.outcome.stderrTail });
        continue;
      }
      const [result] = JSON.parse(step.outcome.stdout) as Array<{ status: number }>;
      if (planned && result?.status !== planned.expectStatus) failures.push({ caseId: id, label: `expected ${planned.expectStatus}, got ${result?.status}`, party: 'either', evidence: step.outcome.stdout });
    }
    if (id.startsWith('atomic/') && evidence.atomic && (evidence.atomic.kind !== 'exited' || evidence.atomic.exitCode !== 0)) failures.push({ caseId: id, label: 'sender atomic helper failed', party: 'sender', evidence: evidence.atomic.stderrTail });
    if (id === 'probe/unauthenticated-receipts' && evidence.unauthenticatedProbe) {
      const probe = evidence.unauthenticatedProbe;
      const status = probe.kind === 'exited' && probe.exitCode === 0 ? (JSON.parse(probe.stdout) as Array<{ status: number }>)[0]?.status : undefined;
      if (status !== 401) failures.push({ caseId: id, label: 'unauthenticated access accepted', party: 'receiver', evidence: String(status) });
    }
    cases.set(id, { caseId: id, status: pairFaults.length > 0 ? 'not-run' : failures.length > 0 ? 'failed' : 'passed', failures });
  }
  return { cases, pairFaults };
}
