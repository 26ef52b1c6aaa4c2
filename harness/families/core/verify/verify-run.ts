import { indexByJson, isJsonObject, jsonEqual, jsonKey } from '../../../protocol/json.ts';
import { jsonDiff } from '../../../protocol/json-diff.ts';
import type { ClientRunOutcome } from '../../../runs/types.ts';
import type { Scenario } from '../../../scenarios/types.ts';
import { compareExact, compareExpected, formatDifferences } from '../../../oracle/compare-result.ts';
import { ownErrorEnvelope, replacedResponseMessage } from './replaced-response.ts';
import { partyOfFailure, readReport, receiptEnvelope, type Party, type ReportRow, type RowFault, type RowVerdict, type RunVerification } from '../../../runs/verdicts.ts';

interface Names {
  server: string;
  client: string;
}

export interface VerifyOptions {
  /**
   * Blind mode: the client judged its rows against decoy expectations, so its own row status and its
   * exit code mean nothing; only `actual` (and the evidence) counts.
   */
  blind?: boolean;
}

/**
 * Re-derives the verdict of every selected scenario from the client's report, the server's receipts
 * and — where the harness stands on the wire (the stdio relay, the HTTP proxy) — what the client sent
 * and was answered. Nothing the client says about itself is trusted: a row passes only when its
 * `actual` matches the scenario under the seed's rules, the server received the exact request exactly
 * once, and the client was handed the scripted response unchanged.
 *
 * A fault that belongs to one row (its response altered, its receipt missing, duplicated or inexact)
 * fails that row and names the party at fault; a fault that belongs to no single row (no or a broken
 * report, the wrong language, unknown or duplicate ids, an exit code the report contradicts, a crashed
 * server) fails every row of the run.
 */
export function verifyRun(outcome: ClientRunOutcome, scenarios: Scenario[], clientLanguage: string, options: VerifyOptions = {}): RunVerification {
  const names: Names = { server: outcome.spec.server, client: outcome.spec.client };
  const integrity: string[] = outcome.failures.map((f) => `[${f.stage}/${f.kind}] (${f.party ?? partyOfFailure(f.stage, f.kind)}) ${f.message}`);
  const reportRows = readReport(outcome.report, scenarios, clientLanguage, integrity);
  if (outcome.signal) integrity.push(`[run/signal] client "${names.client}" was ended by signal ${outcome.signal}`);
  const applicable = scenarios.filter((s) => {
    const status = reportRows.get(s.id)?.status;
    return status !== 'unsupported' && status !== 'inapplicable';
  });
  if (!options.blind) checkExit(outcome, reportRows, integrity, names);

  const faults = new Map<string, RowFault[]>();
  const addFault = (id: string, fault: RowFault): void => {
    const list = faults.get(id) ?? [];
    list.push(fault);
    faults.set(id, list);
  };
  const sent = outcome.sent === undefined ? undefined : countSent(outcome.sent, applicable);
  checkReceipts(outcome.receipts, applicable, scenarios, sent, integrity, addFault, names);
  if (outcome.responses !== undefined) checkResponses(outcome.responses, applicable, sent, integrity, addFault, names);

  const rows = new Map<string, RowVerdict>();
  for (const scenario of scenarios) {
    const row = reportRows.get(scenario.id);
    const rowFaults = faults.get(scenario.id) ?? [];
    const base = { id: scenario.id, adapterStatus: row?.status ?? ('missing' as const), actual: row?.actual, faults: rowFaults };
    const faultLines = rowFaults.map((fault) => `[${fault.label}] ${fault.party} fault: ${fault.message}`);
    if (integrity.length > 0) {
      const own = faultLines.length > 0 ? `\nthis row's own evidence faults:\n  ${faultLines.join('\n  ')}` : '';
      rows.set(scenario.id, { ...base, verdict: 'failed', reason: `run integrity failure (every row of this run fails):\n  ${integrity.join('\n  ')}${own}` });
    } else if (!row) {
      rows.set(scenario.id, { ...base, verdict: 'failed', reason: `client fault: client "${names.client}" wrote no report row for it` });
    } else if (row.status === 'unsupported' || row.status === 'inapplicable') {
      rows.set(scenario.id, { ...base, verdict: 'skipped', reason: `${row.status}: ${shortError(row.error)}` });
    } else {
      const judged = judgeRow(scenario, options.blind ? { ...row, status: 'passed' } : row);
      const lines = [...(judged ? [`client fault: client "${names.client}" ${judged}`] : []), ...faultLines];
      rows.set(scenario.id, { ...base, verdict: lines.length > 0 ? 'failed' : 'passed', reason: lines.join('\n') });
    }
  }
  return { integrity, rows, ...(outcome.evidenceNote === undefined ? {} : { note: outcome.evidenceNote }) };
}


function judgeRow(scenario: Scenario, row: ReportRow): string | undefined {
  if (scenario.expected !== undefined) {
    if (row.status !== 'passed') return `reported status "${row.status}"${row.error ? ` (${shortError(row.error)})` : ''}`;
    const differences = compareExpected(scenario.expected, row.actual);
    return differences.length > 0 ? `reported an actual result that differs from expected:\n${formatDifferences(differences)}` : undefined;
  }
  if (row.status !== 'passed') return `reported status "${row.status}" on a negative row${row.error ? ` (${shortError(row.error)})` : ''}`;
  if (jsonEqual(row.actual, { rejected: true })) return undefined;
  if (scenario.hostExpected !== undefined && row.sdkAccepted === true) {
    if (row.hostAccepted !== false || row.rejectionLayer !== 'host-input-schema') {
      return 'used the host-rejection alternative without hostAccepted:false and rejectionLayer:"host-input-schema"';
    }
    const differences = compareExact(scenario.hostExpected, row.actual);
    return differences.length > 0 ? `reported an SDK-accepted result that differs from hostExpected:\n${formatDifferences(differences)}` : undefined;
  }
  return `was expected to reject the response ({"rejected":true}) but reported ${JSON.stringify(row.actual)}`;
}

function checkExit(outcome: ClientRunOutcome, rows: Map<string, ReportRow>, integrity: string[], names: Names): void {
  if (outcome.timedOut || outcome.exitCode === null) return; // covered by the run failures
  const anyFailed = [...rows.values()].some((row) => row.status === 'failed');
  if (outcome.exitCode !== 0 && !anyFailed && rows.size > 0) {
    integrity.push(`[run/exit] (client) client "${names.client}" exited ${outcome.exitCode} although its report has no failed row`);
  }
  if (outcome.exitCode === 0 && anyFailed) {
    integrity.push(`[run/exit] (client) client "${names.client}" exited 0 although its report has a failed applicable row`);
  }
}

/** Per applicable scenario: how often the client sent its exact request, and the inexact ones it sent for it. */
interface SentCounts {
  exact: Map<string, number>;
  inexact: Map<string, unknown[]>;
}

function countSent(sent: unknown[], applicable: Scenario[]): SentCounts {
  const counts: SentCounts = { exact: new Map(), inexact: new Map() };
  const lookup = scenarioLookup(applicable);
  for (const message of sent) {
    const exact = lookup.exact(message);
    if (exact) {
      counts.exact.set(exact.id, (counts.exact.get(exact.id) ?? 0) + 1);
      continue;
    }
    const claimed = lookup.claimedBy(message);
    if (claimed) counts.inexact.set(claimed.id, [...(counts.inexact.get(claimed.id) ?? []), message]);
  }
  return counts;
}

/**
 * Finding messages among scenarios by JSON equality, indexed (a run of n rows compares n messages
 * with n scenarios; a linear search each time made big runs quadratic). Earlier scenarios win, as a
 * linear search would.
 */
interface ScenarioLookup {
  /** The scenario whose exact request `message` is. */
  exact(message: unknown): Scenario | undefined;
  /** The scenario a message that is not its exact request claims to be for (by request id, then event id). */
  claimedBy(message: unknown): Scenario | undefined;
}

/**
 * Each scenario request's jsonKey, computed once per loaded scenario: every run of every group indexes
 * the same scenario objects two or three times, and keying whole requests was most of that cost.
 */
const requestKeys = new WeakMap<object, string>();
function requestKey(scenario: Scenario): string {
  let key = requestKeys.get(scenario.request);
  if (key === undefined) {
    key = jsonKey(scenario.request);
    requestKeys.set(scenario.request, key);
  }
  return key;
}

function scenarioLookup(scenarios: readonly Scenario[]): ScenarioLookup {
  const byRequest = new Map<string, Scenario>();
  for (const scenario of scenarios) {
    const key = requestKey(scenario);
    if (!byRequest.has(key)) byRequest.set(key, scenario);
  }
  const byRequestId = indexByJson(scenarios, (s) => s.request.id);
  const byEventId = indexByJson(scenarios, (s) => (isJsonObject(s.request.params.event) ? s.request.params.event.id : undefined));
  return {
    exact: (message) => byRequest.get(jsonKey(message)),
    claimedBy(message) {
      if (!isJsonObject(message)) return undefined;
      const eventId = isJsonObject(message.params) && isJsonObject(message.params.event) ? message.params.event.id : undefined;
      return (message.id !== undefined ? byRequestId.get(jsonKey(message.id)) : undefined) ?? (eventId !== undefined ? byEventId.get(jsonKey(eventId)) : undefined);
    },
  };
}

function differences(expected: unknown, actual: unknown): string {
  return jsonDiff(expected, actual).join('; ');
}

/** Each applicable scenario's exact request must have reached the server exactly once. */
function checkReceipts(
  receipts: unknown[] | undefined,
  applicable: Scenario[],
  selected: Scenario[],
  sent: SentCounts | undefined,
  integrity: string[],
  addFault: (id: string, fault: RowFault) => void,
  names: Names,
): void {
  if (applicable.length === 0) return;
  if (receipts === undefined) {
    if (!integrity.some((line) => line.startsWith('[receipts/'))) integrity.push(`[receipts/missing] (server) no receipts from server "${names.server}" for this run`);
    return;
  }
  const envelopes = receipts.map(receiptEnvelope).filter((e) => !(isJsonObject(e) && e.method === 'hooks/capabilities'));
  const counts = new Map<string, number>();
  const inexact = new Map<string, unknown[]>();
  const exactOf = scenarioLookup(selected);
  const claimOf = scenarioLookup(applicable);
  for (const envelope of envelopes) {
    const match = exactOf.exact(envelope);
    if (match) {
      counts.set(match.id, (counts.get(match.id) ?? 0) + 1);
      continue;
    }
    const claimed = claimOf.claimedBy(envelope);
    if (claimed) {
      inexact.set(claimed.id, [...(inexact.get(claimed.id) ?? []), envelope]);
      continue;
    }
    const id = isJsonObject(envelope) ? JSON.stringify(envelope.id ?? null) : 'none';
    integrity.push(`[receipts/unexpected] (client or server) server "${names.server}" received a request (id ${id}) that is not the exact request of any selected scenario`);
  }

  for (const scenario of applicable) {
    const received = counts.get(scenario.id) ?? 0;
    const sentExact = sent?.exact.get(scenario.id) ?? 0;
    const sentInexact = sent?.inexact.get(scenario.id) ?? [];
    const where = `"${scenario.id}"`;
    for (const envelope of inexact.get(scenario.id) ?? []) {
      const diff = differences(scenario.request, envelope);
      if (sent !== undefined && sentInexact.some((message) => jsonEqual(message, envelope))) {
        addFault(scenario.id, { label: 'receipts/inexact', party: 'client', message: `client "${names.client}" sent a request for ${where} that is not its exact canonical request: ${diff}` });
      } else {
        const party: Party = sent === undefined ? 'client or server' : 'server';
        addFault(scenario.id, { label: 'receipts/inexact', party, message: `server "${names.server}" recorded a request for ${where} that is not its exact canonical request: ${diff}` });
      }
    }
    if (received === 1) continue;
    if (received === 0) {
      if (sent === undefined) {
        addFault(scenario.id, { label: 'receipts/count', party: 'client or server', message: `server "${names.server}" received the exact request of ${where} 0 time(s), expected exactly once` });
      } else if (sentExact === 0) {
        const what = sentInexact.length > 0 ? 'only an altered request (see above)' : 'no request';
        addFault(scenario.id, { label: 'receipts/count', party: 'client', message: `client "${names.client}" sent ${what} for ${where}; the exact canonical request never went on the wire` });
      } else {
        addFault(scenario.id, { label: 'receipts/count', party: 'server', message: `server "${names.server}" has no receipt of the request of ${where}, which the client sent ${sentExact} time(s)` });
      }
      continue;
    }
    if (sent !== undefined && sentExact === received) {
      addFault(scenario.id, { label: 'receipts/count', party: 'client', message: `client "${names.client}" sent the request of ${where} ${sentExact} times, expected exactly once` });
    } else {
      const party: Party = sent === undefined ? 'client or server' : 'server';
      const how = sent === undefined ? '' : ` (the client sent it ${sentExact} time(s))`;
      addFault(scenario.id, { label: 'receipts/count', party, message: `server "${names.server}" received the exact request of ${where} ${received} time(s), expected exactly once${how}` });
    }
  }
}

/** One response record of the relay or the proxy (see ClientRunOutcome.responses), read defensively. */
type ResponseRecord =
  | { kind: 'answer'; requestId: unknown; method: unknown; response: unknown; invalidJson: boolean; status: number | null | undefined; instance: unknown; failure: unknown }
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
  const status = typeof value.status === 'number' ? value.status : value.status === null ? null : undefined;
  return { kind: 'answer', requestId: value.requestId, method: value.method, response: value.response, invalidJson, status, instance: value.instance, failure: value.failure };
}

/**
 * Each applicable scenario must have had exactly one response handed to the client, and it must be
 * the scenario's scripted response (JSON-equal; over HTTP with status 200). Otherwise a client that
 * "rejected" a negative row may have rejected an error or a repaired response the server made up.
 * Responses are matched to scenarios by the request they answer, never by their own id; capability
 * discovery is left out.
 */
function checkResponses(
  responses: unknown[],
  applicable: Scenario[],
  sent: SentCounts | undefined,
  integrity: string[],
  addFault: (id: string, fault: RowFault) => void,
  names: Names,
): void {
  const records = responses.map(responseRecord);
  const answers = records.filter(
    (r): r is Extract<ResponseRecord, { kind: 'answer' }> => r.kind === 'answer' && r.method !== 'hooks/capabilities',
  );
  const overflow = records.some((r) => r.kind === 'overflow');
  const unsolicited = records.filter((r) => r.kind === 'unsolicited');
  const unknown = records.filter((r) => r.kind === 'unknown').length;
  if (unknown > 0) integrity.push(`[responses/shape] (harness) ${unknown} record(s) of the harness's response record are not in its format`);
  if (unsolicited.length > 0) {
    const garbled = unsolicited.filter((r) => r.invalidJson).length;
    integrity.push(
      `[responses/unexpected] (server) server "${names.server}" wrote ${unsolicited.length} stdout line(s) while no request was waiting for a response` +
        (garbled > 0 ? ` (${garbled} of them not valid JSON)` : ''),
    );
  }

  const answersByRequest = new Map<string, typeof answers>();
  for (const answer of answers) {
    const key = jsonKey(answer.requestId);
    answersByRequest.set(key, [...(answersByRequest.get(key) ?? []), answer]);
  }
  // Negative rows whose invalid scripted response did reach the client unchanged: a server that also
  // replaces some with its own error tells rows apart, which the replaced rows' messages say.
  const invalidPassedThrough = new Set(
    applicable.filter((s) => {
      const answer = s.expected === undefined ? answersByRequest.get(jsonKey(s.request.id))?.[0] : undefined;
      return answer !== undefined && !answer.invalidJson && (answer.status === undefined || answer.status === 200) && jsonEqual(answer.response, s.response);
    }).map((s) => s.id),
  );
  for (const scenario of applicable) {
    const mine = answersByRequest.get(jsonKey(scenario.request.id)) ?? [];
    const where = `"${scenario.id}"`;
    if (mine.length === 0) {
      // The receipts check already charges a request that never went on the wire to the client.
      if (sent !== undefined && (sent.exact.get(scenario.id) ?? 0) === 0) continue;
      const why = overflow ? ' (the harness stopped recording at its size bound)' : '';
      addFault(scenario.id, { label: 'responses/missing', party: 'server', message: `server "${names.server}" handed the client no response to ${where}${why}` });
      continue;
    }
    const answer = mine[0]!;
    const process = typeof answer.instance === 'number' ? ` (server process #${answer.instance})` : '';
    const ownError = answer.status === null || answer.invalidJson ? undefined : ownErrorEnvelope(scenario.response, answer.response);
    if (answer.status === null) {
      const why = typeof answer.failure === 'string' ? ` (${answer.failure})` : '';
      addFault(scenario.id, { label: 'responses/missing', party: 'server', message: `server "${names.server}" did not answer the request of ${where}${why}` });
    } else if (answer.invalidJson) {
      addFault(scenario.id, { label: 'responses/mismatch', party: 'server', message: `server "${names.server}" answered ${where} with a body that is not JSON instead of the scripted response${process}` });
    } else if (ownError !== undefined) {
      const message = replacedResponseMessage({
        server: names.server,
        scenarioId: scenario.id,
        scripted: scenario.response,
        handed: answer.response,
        error: ownError,
        where: process,
        ...(answer.status !== undefined && answer.status !== 200 ? { status: answer.status } : {}),
        invalidPassedThrough: [...invalidPassedThrough].filter((id) => id !== scenario.id).length,
      });
      addFault(scenario.id, { label: 'responses/mismatch', party: 'server', message });
    } else if (answer.status !== undefined && answer.status !== 200) {
      const diff = jsonEqual(answer.response, scenario.response) ? '' : `; the body differs: ${differences(scenario.response, answer.response)}`;
      addFault(scenario.id, { label: 'responses/mismatch', party: 'server', message: `server "${names.server}" answered ${where} with HTTP ${answer.status} instead of the scripted response with 200${diff}` });
    } else if (!jsonEqual(answer.response, scenario.response)) {
      addFault(scenario.id, {
        label: 'responses/mismatch',
        party: 'server',
        message: `server "${names.server}" altered the scripted response of ${where}${process}: ${differences(scenario.response, answer.response)}`,
      });
    }
    if (mine.length > 1 && !(sent !== undefined && (sent.exact.get(scenario.id) ?? 0) > 1)) {
      addFault(scenario.id, { label: 'responses/count', party: 'server', message: `server "${names.server}" answered ${where} ${mine.length} times, expected exactly once` });
    }
  }
}


function shortError(error: unknown): string {
  if (typeof error !== 'string') return 'no error given';
  return error.length > 200 ? `${error.slice(0, 200)}...` : error;
}
