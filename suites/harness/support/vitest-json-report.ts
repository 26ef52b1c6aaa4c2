// Reading vitest's `--reporter=json` output (the `--outputFile` of a child vitest run): its tests, as
// flat rows, and the rows of one describe group.

import { readFileSync } from 'node:fs';

/** One test of vitest's JSON reporter output. */
export interface JsonAssertion {
  ancestorTitles: string[];
  title: string;
  fullName: string;
  status: 'passed' | 'failed' | 'skipped' | 'pending' | 'todo' | 'disabled';
  failureMessages: string[];
  /** vitest task meta: the matrix row (`ahpMatrix`) of core and lifecycle rows (`errors`: their fixed labels). */
  meta?: {
    ahpMatrix?: { adapterStatus?: string; verdict?: string; skipReason?: string; errors?: string[] };
    /** A skipped auth probe's reason (harness/families/auth/probes-suite.ts). */
    ahpAuthProbe?: { skipReason?: string };
  };
}

interface JsonReport {
  testResults: Array<{ name: string; assertionResults: JsonAssertion[] }>;
}

export function readJsonReport(file: string): JsonAssertion[] {
  const report = JSON.parse(readFileSync(file, 'utf8')) as JsonReport;
  return report.testResults.flatMap((result) => result.assertionResults);
}

/** The rows of one `<server>→<client> <transport>/<auth>` group, in file order. */
export function groupRows(rows: JsonAssertion[], group: string): JsonAssertion[] {
  return rows.filter((row) => row.ancestorTitles.at(-1) === group);
}
