// One pair run's checks turned into the shared row outcomes: each selected case and probe request
// passes only with no check of its own and none of the pair's that reach it (a receiver that never
// started fails every row; a host that died fails every case but not the probe, which does not
// depend on it). A failure's reason lists `[label] party: evidence` lines, every secret redacted.

import { redactSecrets } from '../../runs/redact-secrets.ts';
import type { RowOutcome } from '../../setup/grouped-suite.ts';
import type { CompactionCase, ProbeRequest } from './case-types.ts';
import type { CompactionCheck } from './verify/labels.ts';
import type { HostVerification } from './verify/verify-host.ts';

export type CompactionRow = CompactionCase | ProbeRequest;

export interface PairChecks {
  cases: readonly CompactionCase[];
  probes: readonly ProbeRequest[];
  /** Faults that reach every row (commands, the receiver's start). */
  every?: CompactionCheck[];
  /** Faults of the host run that belong to no case (its exit, its stdout, the receipt log). */
  hostRun?: CompactionCheck[];
  host?: HostVerification;
  probe?: Map<string, CompactionCheck[]>;
  /** Each row's evidence for the reports: the host's output of a case, the reply to a probe request. */
  actual?: Map<string, unknown>;
  secrets: readonly string[];
  /** Where the commands came from (convention, a Go build): shown with every row. */
  notes: readonly string[];
}

export function pairVerdicts(input: PairChecks): { rows: Map<string, RowOutcome> } {
  const rows = new Map<string, RowOutcome>();
  const every = input.every ?? [];
  const outcome = (id: string, checks: CompactionCheck[]): RowOutcome => {
    const unique = dedupe(checks);
    const actual = input.actual?.get(id) ?? null;
    const base: RowOutcome = {
      verdict: unique.length === 0 ? 'passed' : 'failed',
      reason: redactSecrets(unique.map((c) => `[${c.label}] ${c.party}: ${c.message}`).join('\n'), input.secrets),
      adapterStatus: actual === null ? 'missing' : 'reported',
      actual,
      errors: unique.map((c) => c.label),
    };
    if (input.notes.length > 0) base.details = { commands: [...input.notes] };
    return base;
  };
  for (const c of input.cases) rows.set(c.id, outcome(c.id, [...every, ...(input.hostRun ?? []), ...(input.host?.pair ?? []), ...(input.host?.rows.get(c.id) ?? [])]));
  for (const p of input.probes) rows.set(p.id, outcome(p.id, [...every, ...(input.probe?.get(p.id) ?? [])]));
  return { rows };
}

function dedupe(checks: CompactionCheck[]): CompactionCheck[] {
  const seen = new Set<string>();
  return checks.filter((c) => {
    const key = `${c.label}\u0000${c.party}\u0000${c.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
