// The party at fault and the fixed label of each fault line of a row's evidence. The verifiers write
// their findings in three fixed shapes (harness/families/core/verify/verify-run.ts, families/lifecycle/runner.ts):
//   `[label] <party> fault: <message>`      a fault of this row
//   `[label] (<party>) <message>`           a run failure, charged to every row of the run
//   `<party> fault: <message>`              the client's own result for the row was wrong
// The page shows them as (label, party, message); lines of any other shape are continuation
// (a diff, a list) and stay in the evidence text only.

import type { Finding } from './page-report.ts';

const PARTIES = ['client or server', 'client', 'server', 'harness'] as const;
const PARTY = PARTIES.join('|');
const ROW_FAULT = new RegExp(`^\\[([^\\]]+)\\] (${PARTY}) fault: (.*)$`);
const RUN_FAILURE = new RegExp(`^\\[([^\\]]+)\\] \\((${PARTY})\\) (.*)$`);
const RESULT_FAULT = new RegExp(`^(${PARTY}) fault: (.*)$`);
const LABELLED = /^\[([^\]]+)\] (.*)$/;

/**
 * Findings of `evidence`, in order. `resultLabel` names the label of a bare `<party> fault:` line
 * (the row's result check, which has no label of its own in the text).
 */
export function findingsOf(evidence: string, resultLabel = 'result/mismatch'): Finding[] {
  const findings: Finding[] = [];
  for (const raw of evidence.split('\n')) {
    const line = raw.trim();
    const row = ROW_FAULT.exec(line) ?? RUN_FAILURE.exec(line);
    if (row) {
      findings.push({ label: row[1]!, party: row[2]!, message: row[3]! });
      continue;
    }
    const result = RESULT_FAULT.exec(line);
    if (result) {
      findings.push({ label: resultLabel, party: result[1]!, message: result[2]! });
      continue;
    }
    const labelled = LABELLED.exec(line);
    if (labelled) findings.push({ label: labelled[1]!, party: 'unknown', message: labelled[2]! });
  }
  return findings;
}
