// What every client run's verdicts are made of, whichever family judges the run: the adapter's row
// statuses, who a fault is charged to, a row's verdict, the report's rows read defensively, and a
// receipt's envelope. Core's row verifier, the lifecycle-adapter run, the auth client probes and the
// fuzzer share them, so they live here rather than beside any one family's verifier.

import { isJsonObject } from '../protocol/json.ts';
import type { Scenario } from '../scenarios/types.ts';

export const ADAPTER_STATUSES = ['passed', 'failed', 'unsupported', 'inapplicable'] as const;
export type AdapterStatus = (typeof ADAPTER_STATUSES)[number];

/** Who a failure is charged to. `client or server` when the evidence cannot tell them apart. */
export type Party = 'client' | 'server' | 'client or server' | 'harness';

/** A fault of the evidence that belongs to one row: its receipt or its response. */
export interface RowFault {
  /** Fixed `stage/kind` label, e.g. `responses/mismatch` (never adapter output). */
  label: string;
  party: Party;
  message: string;
}

/** The harness's own verdict on one scenario of one run; the client's `status` is only evidence. */
export interface RowVerdict {
  id: string;
  verdict: 'passed' | 'failed' | 'skipped';
  /** Why it failed or was skipped; empty for a pass. */
  reason: string;
  adapterStatus: AdapterStatus | 'missing';
  actual: unknown;
  /** Evidence faults of this row (each also part of `reason`). */
  faults: RowFault[];
}

export interface RunVerification {
  /** Problems with the run as a whole (`[stage/kind] ...` lines); when present, every row fails with them. */
  integrity: string[];
  rows: Map<string, RowVerdict>;
  /** Said with every row when the run's evidence is reduced (e.g. receipts only), never silently. */
  note?: string;
}

/** A report row that passed the shape checks of `readReport`. */
export interface ReportRow {
  id: string;
  status: AdapterStatus;
  actual: unknown;
  error?: unknown;
  sdkAccepted?: unknown;
  hostAccepted?: unknown;
  rejectionLayer?: unknown;
}

/** Who a run failure is charged to when its creator did not say: by its fixed stage/kind label. */
export function partyOfFailure(stage: string, kind: string): Party {
  if (stage === 'startup' || stage === 'receipts') return 'server';
  if (stage === 'run') return kind === 'timeout' ? 'client or server' : kind === 'barrier' || kind === 'server-crash' ? 'server' : 'client';
  // The supervisor failing to start or report is ours (or the machine's); a command the OS cannot
  // start (ENOENT, EACCES) is the client's.
  if (stage === 'spawn' && (kind === 'ETIMEDOUT' || kind === 'ESUPERVISOR')) return 'harness';
  return 'client'; // spawn (of the client) and report
}

/**
 * The rows of a client report by scenario id. Every shape fault (not an object, the wrong language,
 * a row that is malformed, unknown, duplicated or missing) is added to `integrity` as a
 * `[report/kind] (client) ...` line; the rows that passed the checks are returned.
 */
export function readReport(report: unknown, scenarios: Scenario[], clientLanguage: string, integrity: string[]): Map<string, ReportRow> {
  const rows = new Map<string, ReportRow>();
  if (report === undefined) return rows; // the run failure already says why
  if (!isJsonObject(report)) {
    integrity.push('[report/shape] (client) the report is not a JSON object');
    return rows;
  }
  if (report.language !== clientLanguage) {
    integrity.push(`[report/language] (client) report.language is ${JSON.stringify(report.language)}, expected "${clientLanguage}" (the client adapter.json language)`);
  }
  if (!Array.isArray(report.results)) {
    integrity.push('[report/shape] (client) report.results is not an array');
    return rows;
  }
  const selected = new Set(scenarios.map((s) => s.id));
  report.results.forEach((entry, index) => {
    if (!isJsonObject(entry) || typeof entry.id !== 'string') {
      integrity.push(`[report/shape] (client) results[${index}] is not an object with a string id`);
      return;
    }
    if (!(ADAPTER_STATUSES as readonly unknown[]).includes(entry.status)) {
      integrity.push(`[report/shape] (client) results[${index}].status is ${JSON.stringify(entry.status)}, expected one of ${ADAPTER_STATUSES.join(', ')}`);
      return;
    }
    if (!selected.has(entry.id)) {
      integrity.push(`[report/unknown-id] (client) results[${index}].id "${entry.id}" is not a selected scenario`);
      return;
    }
    if (rows.has(entry.id)) {
      integrity.push(`[report/duplicate] (client) scenario "${entry.id}" is reported more than once`);
      return;
    }
    rows.set(entry.id, entry as unknown as ReportRow);
  });
  const missing = scenarios.filter((s) => !rows.has(s.id)).map((s) => s.id);
  if (missing.length > 0) {
    integrity.push(`[report/missing] (client) no row for ${missing.length} selected scenario(s): ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''}`);
  }
  return rows;
}

/** A receipt is the direct request envelope or a `message` wrapper carrying routing metadata. */
export function receiptEnvelope(receipt: unknown): unknown {
  if (isJsonObject(receipt) && !('jsonrpc' in receipt) && isJsonObject(receipt.message)) return receipt.message;
  return receipt;
}
