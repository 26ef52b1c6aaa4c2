// The tests of one pair: every wire case, the concurrent scenario, every atomic row (`atomic/<name>`)
// and every probe of the case file, in file order, each with what the reports show as its expectation.

import type { ElicitationCaseFile } from './case-types.ts';

export interface ElicitationRow {
  id: string;
  kind: 'wire' | 'concurrent' | 'atomic' | 'probe';
  expected: unknown;
}

export function elicitationRows(file: ElicitationCaseFile): ElicitationRow[] {
  return [
    ...file.cases.map((wire): ElicitationRow => ({ id: wire.id, kind: 'wire', expected: { statuses: wire.steps.map((step) => step.expectStatus), receipts: wire.receipts.length } })),
    { id: file.concurrent.id, kind: 'concurrent', expected: { statuses: file.concurrent.steps.map((step) => step.expectStatus), receipts: file.concurrent.receipts.length } },
    ...file.atomic.map((row): ElicitationRow => ({ id: row.id, kind: 'atomic', expected: row.expected })),
    ...file.probes.map((probe): ElicitationRow => ({ id: probe.id, kind: 'probe', expected: probe.kind === 'upload' ? { statuses: probe.steps.map((step) => step.expectStatus) } : { status: probe.expectStatus } })),
  ];
}
