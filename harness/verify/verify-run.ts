import { isJsonObject, jsonEqual } from '../protocol/json.ts';
import type { ClientRunOutcome } from '../runs/types.ts';
import type { Scenario } from '../scenarios/types.ts';
import { compareExact, compareExpected, formatDifferences } from './compare-result.ts';

export const ADAPTER_STATUSES = ['passed', 'failed', 'unsupported', 'inapplicable'] as const;
export type AdapterStatus = (typeof ADAPTER_STATUSES)[number];

/** The harness's own verdict on one scenario of one run; the client's `status` is only evidence. */
export interface RowVerdict {
  id: string;
  verdict: 'passed' | 'failed' | 'skipped';
  /** Why it failed or was skipped; empty for a pass. */
  reason: string;
  adapterStatus: AdapterStatus | 'missing';
  actual: unknown;
}

export interface RunVerification {
  /** Problems with the run as a whole; when present, every row fails with them. */
  integrity: string[];
  rows: Map<string, RowVerdict>;
}

interface ReportRow {
  id: string;
  status: AdapterStatus;
  actual: unknown;
  error?: unknown;
  sdkAccepted?: unknown;
  hostAccepted?: unknown;
  rejectionLayer?: unknown;
}

/**
 * Re-derives the verdict of every selected scenario from the client's report and the server's
 * receipts. Nothing the client says about itself is trusted: a row passes only when its `actual`
 * matches the scenario under the seed's rules and the server really received the exact request.
 */
export function verifyRun(outcome: ClientRunOutcome, scenarios: Scenario[], clientLanguage: string): RunVerification {
  const integrity: string[] = outcome.failures.map((f) => `[${f.stage}/${f.kind}] ${f.message}`);
  const reportRows = readReport(outcome.report, scenarios, clientLanguage, integrity);
  if (outcome.signal) integrity.push(`[run/signal] client was ended by signal ${outcome.signal}`);
  const applicable = scenarios.filter((s) => {
    const status = reportRows.get(s.id)?.status;
    return status !== 'unsupported' && status !== 'inapplicable';
  });
  checkExit(outcome, reportRows, integrity);
  checkReceipts(outcome.receipts, applicable, scenarios, integrity);
  if (outcome.responses !== undefined) checkResponses(outcome.responses, applicable, integrity);

  const rows = new Map<string, RowVerdict>();
  for (const scenario of scenarios) {
    const row = reportRows.get(scenario.id);
    const base = { id: scenario.id, adapterStatus: row?.status ?? ('missing' as const), actual: row?.actual };
    if (integrity.length > 0) {
      rows.set(scenario.id, { ...base, verdict: 'failed', reason: `run integrity failure:\n  ${integrity.join('\n  ')}` });
    } else if (!row) {
      rows.set(scenario.id, { ...base, verdict: 'failed', reason: 'no report row' });
    } else if (row.status === 'unsupported' || row.status === 'inapplicable') {
      rows.set(scenario.id, { ...base, verdict: 'skipped', reason: `${row.status}: ${shortError(row.error)}` });
    } else {
      const reason = judgeRow(scenario, row);
      rows.set(scenario.id, { ...base, verdict: reason ? 'failed' : 'passed', reason: reason ?? '' });
    }
  }
  return { integrity, rows };
}

function judgeRow(scenario: Scenario, row: ReportRow): string | undefined {
  if (scenario.expected !== undefined) {
    if (row.status !== 'passed') return `client reported status "${row.status}"${row.error ? ` (${shortError(row.error)})` : ''}`;
    const differences = compareExpected(scenario.expected, row.actual);
    return differences.length > 0 ? `actual result differs from expected:\n${formatDifferences(differences)}` : undefined;
  }
  if (row.status !== 'passed') return `negative row: client reported status "${row.status}"${row.error ? ` (${shortError(row.error)})` : ''}`;
  if (jsonEqual(row.actual, { rejected: true })) return undefined;
  if (scenario.hostExpected !== undefined && row.sdkAccepted === true) {
    if (row.hostAccepted !== false || row.rejectionLayer !== 'host-input-schema') {
      return 'host-rejection alternative requires hostAccepted:false and rejectionLayer:"host-input-schema"';
    }
    const differences = compareExact(scenario.hostExpected, row.actual);
    return differences.length > 0 ? `SDK-accepted result differs from hostExpected:\n${formatDifferences(differences)}` : undefined;
  }
  return `expected a rejection ({"rejected":true}) but actual is ${JSON.stringify(row.actual)}`;
}

function readReport(
  report: unknown,
  scenarios: Scenario[],
  clientLanguage: string,
  integrity: string[],
): Map<string, ReportRow> {
  const rows = new Map<string, ReportRow>();
  if (report === undefined) return rows; // the run failure already says why
  if (!isJsonObject(report)) {
    integrity.push('[report/shape] report is not a JSON object');
    return rows;
  }
  if (report.language !== clientLanguage) {
    integrity.push(`[report/language] report.language is ${JSON.stringify(report.language)}, expected "${clientLanguage}" (the client adapter.json language)`);
  }
  if (!Array.isArray(report.results)) {
    integrity.push('[report/shape] report.results is not an array');
    return rows;
  }
  const selected = new Set(scenarios.map((s) => s.id));
  report.results.forEach((entry, index) => {
    if (!isJsonObject(entry) || typeof entry.id !== 'string') {
      integrity.push(`[report/shape] results[${index}] is not an object with a string id`);
      return;
    }
    if (!(ADAPTER_STATUSES as readonly unknown[]).includes(entry.status)) {
      integrity.push(`[report/shape] results[${index}].status is ${JSON.stringify(entry.status)}, expected one of ${ADAPTER_STATUSES.join(', ')}`);
      return;
    }
    if (!selected.has(entry.id)) {
      integrity.push(`[report/unknown-id] results[${index}].id "${entry.id}" is not a selected scenario`);
      return;
    }
    if (rows.has(entry.id)) {
      integrity.push(`[report/duplicate] scenario "${entry.id}" is reported more than once`);
      return;
    }
    rows.set(entry.id, entry as unknown as ReportRow);
  });
  const missing = scenarios.filter((s) => !rows.has(s.id)).map((s) => s.id);
  if (missing.length > 0) {
    integrity.push(`[report/missing] no row for ${missing.length} selected scenario(s): ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''}`);
  }
  return rows;
}

function checkExit(outcome: ClientRunOutcome, rows: Map<string, ReportRow>, integrity: string[]): void {
  if (outcome.timedOut || outcome.exitCode === null) return; // covered by the run failures
  const anyFailed = [...rows.values()].some((row) => row.status === 'failed');
  if (outcome.exitCode !== 0 && !anyFailed && rows.size > 0) {
    integrity.push(`[run/exit] client exited ${outcome.exitCode} although its report has no failed row`);
  }
  if (outcome.exitCode === 0 && anyFailed) {
    integrity.push('[run/exit] client exited 0 although its report has a failed applicable row');
  }
}

/** Each applicable scenario's exact request must have reached the server exactly once. */
function checkReceipts(receipts: unknown[] | undefined, applicable: Scenario[], selected: Scenario[], integrity: string[]): void {
  if (applicable.length === 0) return;
  if (receipts === undefined) {
    if (!integrity.some((line) => line.startsWith('[receipts/'))) integrity.push('[receipts/missing] no server receipts for this run');
    return;
  }
  const envelopes = receipts.map(receiptEnvelope).filter((e) => !(isJsonObject(e) && e.method === 'hooks/capabilities'));
  const counts = new Map<string, number>();
  for (const envelope of envelopes) {
    const match = selected.find((s) => jsonEqual(envelope, s.request));
    if (!match) {
      const id = isJsonObject(envelope) ? JSON.stringify(envelope.id ?? null) : 'none';
      integrity.push(`[receipts/unexpected] the server received a request (id ${id}) that is not the exact canonical request of a selected scenario`);
      continue;
    }
    counts.set(match.id, (counts.get(match.id) ?? 0) + 1);
  }
  for (const scenario of applicable) {
    const count = counts.get(scenario.id) ?? 0;
    if (count !== 1) {
      integrity.push(`[receipts/count] the server received the exact request of "${scenario.id}" ${count} time(s), expected exactly once`);
    }
  }
}

/** One record of the stdio relay (see ClientRunOutcome.responses), read defensively. */
type ResponseRecord =
  | { kind: 'answer'; requestId: unknown; method: unknown; response: unknown; invalidJson: boolean }
  | { kind: 'unsolicited'; invalidJson: boolean }
  | { kind: 'overflow' }
  | { kind: 'unknown' };

function responseRecord(value: unknown): ResponseRecord {
  if (!isJsonObject(value)) return { kind: 'unknown' };
  if (value.overflow === true) return { kind: 'overflow' };
  if (value.unsolicited === true) return { kind: 'unsolicited', invalidJson: value.invalidJson === true };
  if (!('requestId' in value)) return { kind: 'unknown' };
  const invalidJson = value.invalidJson === true;
  if (!invalidJson && !('response' in value)) return { kind: 'unknown' };
  return { kind: 'answer', requestId: value.requestId, method: value.method, response: value.response, invalidJson };
}

/**
 * Stdio: each applicable scenario must have had exactly one response forwarded to the client, and it
 * must be the scenario's scripted response (JSON-equal). Otherwise a client that "rejected" a
 * negative row may have rejected an error or a repaired response the server made up. Responses are
 * matched to scenarios by the request they answer (the relay pairs them by order), never by their own
 * id; capability discovery is left out.
 */
function checkResponses(responses: unknown[], applicable: Scenario[], integrity: string[]): void {
  const records = responses.map(responseRecord);
  const answers = records.filter(
    (r): r is Extract<ResponseRecord, { kind: 'answer' }> => r.kind === 'answer' && r.method !== 'hooks/capabilities',
  );
  const overflow = records.some((r) => r.kind === 'overflow');
  const unsolicited = records.filter((r) => r.kind === 'unsolicited');
  const unknown = records.filter((r) => r.kind === 'unknown').length;
  if (unknown > 0) integrity.push(`[responses/shape] ${unknown} record(s) of the stdio relay's response record are not in its format`);
  if (unsolicited.length > 0) {
    const garbled = unsolicited.filter((r) => r.invalidJson).length;
    integrity.push(
      `[responses/unexpected] the server wrote ${unsolicited.length} stdout line(s) while no request was waiting for a response` +
        (garbled > 0 ? ` (${garbled} of them not valid JSON)` : ''),
    );
  }
  if (answers.length === 0 && applicable.length > 1) {
    // Nothing came back at all (a server that never got going): one line says it.
    const why = overflow ? ' (the relay stopped recording at its size bound)' : '';
    integrity.push(`[responses/missing] no response from the server to any of the ${applicable.length} selected scenarios was forwarded to the client${why}`);
    return;
  }

  const used = new Set<number>();
  const counts = new Map<string, number>();
  for (const scenario of applicable) {
    const index = answers.findIndex((a, i) => !used.has(i) && jsonEqual(a.requestId, scenario.request.id));
    if (index < 0) {
      const why = overflow ? ' (the relay stopped recording at its size bound)' : '';
      integrity.push(`[responses/missing] no response from the server to "${scenario.id}" was forwarded to the client${why}`);
      continue;
    }
    used.add(index);
    counts.set(scenario.id, 1);
    const answer = answers[index]!;
    if (answer.invalidJson || !jsonEqual(answer.response, scenario.response)) {
      integrity.push(`[responses/mismatch] the server's response to "${scenario.id}" is not the scenario's scripted response`);
    }
  }
  // An answer left over for a scenario's request means that request was answered more than once.
  answers.forEach((answer, i) => {
    const scenario = used.has(i) ? undefined : applicable.find((s) => jsonEqual(s.request.id, answer.requestId));
    if (scenario) counts.set(scenario.id, (counts.get(scenario.id) ?? 0) + 1);
  });
  for (const [id, count] of counts) {
    if (count > 1) integrity.push(`[responses/count] the server's response to "${id}" was forwarded ${count} times, expected exactly once`);
  }
}

/** A receipt is the direct request envelope or a `message` wrapper carrying routing metadata. */
function receiptEnvelope(receipt: unknown): unknown {
  if (isJsonObject(receipt) && !('jsonrpc' in receipt) && isJsonObject(receipt.message)) return receipt.message;
  return receipt;
}

function shortError(error: unknown): string {
  if (typeof error !== 'string') return 'no error given';
  return error.length > 200 ? `${error.slice(0, 200)}...` : error;
}
