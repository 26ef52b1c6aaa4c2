// Triage of fuzz rows: every failure falls in one of four classes, so a user can tell an invalid
// batch, a limited adapter, an input the protocol leaves open and a real protocol bug apart.
//
// - `refused`: the run failed as a whole (a server or client that exited or failed before the rows
//   could be judged: no or a broken report, a crash, a server that would not start, or a client that
//   failed every row with one error before any request reached the server). Assigned by the refusal
//   search (refusal-search.ts), which bisects the batch to the smallest refused scenario set.
// - `host-limitation`: the client failed the row without a protocol-level outcome — no result and no
//   rejection, only an error of its own (a transport failure, or its host refusing the request) — and
//   nothing else is wrong with the row's evidence but what follows from that. Not shrunk.
// - `undefined`: the client's outcome differs from the oracle's only in parts that an undefined input
//   of the row decides (../oracle/undefined-inputs.ts: e.g. a carried state.flow at a finish
//   boundary), and no server or harness fault is involved. The oracle's outcome there is our
//   extrapolation, so this is no fault of anyone's; the case is kept, not shrunk, and the run goes on.
// - `disagreement`: anything else that fails: a result that differs, a rejection where the oracle
//   accepts (or the reverse), a server that altered the scripted response. Shrunk.

import { jsonEqual } from '../protocol/json.ts';
import type { ClientRunOutcome } from '../runs/types.ts';
import type { Scenario } from '../scenarios/types.ts';
import { compareExpected, formatDifferences } from '../oracle/compare-result.ts';
import { isJsonObject } from '../protocol/json.ts';
import { receiptEnvelope, type RowVerdict } from '../runs/verdicts.ts';
import { confinedToUndefined, undefinedAspects, type OutcomePart, type UndefinedAspect } from '../oracle/undefined-inputs.ts';

export type CaseClass = 'pass' | 'refused' | 'host-limitation' | 'undefined' | 'disagreement';

/** The class names as printed, first, in every failure message. */
export const CLASS_TITLES: Record<Exclude<CaseClass, 'pass'>, string> = {
  refused: 'adapter refused the batch',
  'host-limitation': 'host limitation',
  undefined: 'undefined by the protocol',
  disagreement: 'semantic disagreement',
};

/** What one run over some rows produced, as the triage reads it. */
export interface RunResult {
  rows: Map<string, RowVerdict>;
  /** Run-level faults (`[stage/kind] (party) message`); non-empty: the run failed as a whole. */
  integrity: string[];
  /** The client's own error text per row it reported failed (bounded); undefined when unknown. */
  clientErrors?: Map<string, string>;
  /** Ids whose request went on the wire or reached the server; undefined when unknown. */
  reached?: Set<string>;
  /** Set when every row failed with this one client error before any request reached the server. */
  clientWideError?: string;
  /** The run's folder (configs, logs), kept because the run may be a refusal: the caller removes or persists it. */
  dir?: string;
}

/** The harness's verdict on one fuzz row. */
export interface CaseJudgement {
  id: string;
  /** True for every class but `pass`. */
  failed: boolean;
  class: CaseClass;
  /** Why it failed (the verifier's reason, with the key-by-key diff); empty when it passed. */
  reason: string;
  /** What the adapter reported as `actual` (undefined when there is no report row). */
  actual: unknown;
  /** host-limitation: the client's own error for the row. */
  clientError?: string;
  /** host-limitation: whether the request went on the wire (undefined when unknown). */
  requestSent?: boolean;
  /** undefined: the row's undefined aspects that decide every part the client differs in. */
  undefinedAspects?: UndefinedAspect[];
  /** undefined: the parts of the outcome the client differs in. */
  differingParts?: OutcomePart[];
  /** refused: the refusal this row is part of (shared by every refused row of the batch). */
  refusal?: Refusal;
}

/** A batch the adapter refused as a whole, bisected (refusal-search.ts). */
export interface Refusal {
  /** Ids of the smallest scenario set found that is refused on its own. */
  smallest: string[];
  /** Rows of the batch in some refused set. */
  refusedRows: number;
  /** Every single scenario tried alone (the first and the last) was refused. */
  systematic: boolean;
  /** The run faults of the smallest set's run (paths point into `evidence.smallest`). */
  integrity: string[];
  /** The run faults of the whole batch's run (paths point into `evidence.batch`). */
  batchIntegrity: string[];
  /** Kept temp folders of the whole batch's run and of the smallest set's run (may be the same). */
  evidence: { batch?: string; smallest?: string };
  /** Runs the search took, the batch's included. */
  runs: number;
}

const ERROR_BOUND = 300;

/** Per-row judgements of a run that did not fail as a whole. */
export function judgeRows(scenarios: Scenario[], result: RunResult): CaseJudgement[] {
  return scenarios.map((scenario) => {
    const row = result.rows.get(scenario.id);
    if (!row) return { id: scenario.id, failed: true, class: 'disagreement', reason: 'no verdict for this row', actual: undefined };
    // A skipped row (unsupported) is no failure: the adapter declined it.
    if (row.verdict !== 'failed') return { id: scenario.id, failed: false, class: 'pass', reason: '', actual: row.actual };
    if (hostLimited(row)) {
      const clientError = result.clientErrors?.get(scenario.id);
      const requestSent = result.reached?.has(scenario.id);
      return {
        id: scenario.id,
        failed: true,
        class: 'host-limitation',
        reason: row.reason,
        actual: row.actual,
        ...(clientError === undefined ? {} : { clientError }),
        ...(requestSent === undefined ? {} : { requestSent }),
      };
    }
    const reason = withDiff(scenario, row);
    const open = undefinedOutcome(scenario, row);
    if (open) return { id: scenario.id, failed: true, class: 'undefined', reason, actual: row.actual, undefinedAspects: open.aspects, differingParts: open.parts };
    return { id: scenario.id, failed: true, class: 'disagreement', reason, actual: row.actual };
  });
}

/**
 * The undefined aspects a failed row's difference is confined to, or undefined when any part of it is
 * defined, or when a server or the harness is at fault (a server altering a response is a fault
 * whatever the input).
 */
function undefinedOutcome(scenario: Scenario, row: RowVerdict): { aspects: UndefinedAspect[]; parts: OutcomePart[] } | undefined {
  if (row.faults.some((fault) => fault.party === 'server' || fault.party === 'harness')) return undefined;
  // Fuzz rows always carry a whole request; a hand-made row without one has nothing to read.
  const params: unknown = scenario.request.params;
  if (!isJsonObject(params) || !isJsonObject(params.event)) return undefined;
  // hostExpected is written exactly when the task rule alone refuses the response (scenario-rows.ts).
  const aspects = undefinedAspects(scenario.request, { taskRuleDecides: scenario.hostExpected !== undefined });
  if (aspects.length === 0) return undefined;
  const parts = differingParts(scenario, row.actual);
  if (!confinedToUndefined(parts, aspects)) return undefined;
  // Name only the aspects that decide some part the client differs in.
  return { aspects: aspects.filter((aspect) => aspect.affects.some((part) => parts.includes(part))), parts };
}

/** Where an adapter's `actual` departs from the row's expectation: acceptance, or result keys. */
export function differingParts(scenario: Pick<Scenario, 'expected' | 'expectError'>, actual: unknown): OutcomePart[] {
  if (actual === null || actual === undefined) return [];
  const rejected = jsonEqual(actual, { rejected: true });
  if (scenario.expected !== undefined) {
    if (rejected) return ['verdict'];
    // Keys outside the result table (`(result)`, `rejected`) stay as they are: never undefined parts.
    return [...new Set(compareExpected(scenario.expected, actual).map((d) => d.key as OutcomePart))];
  }
  return scenario.expectError === true && !rejected ? ['verdict'] : [];
}

/** Failed with no result and no rejection, and no fault the client's own failure does not explain. */
function hostLimited(row: RowVerdict): boolean {
  return (
    row.adapterStatus === 'failed' &&
    (row.actual === null || row.actual === undefined) &&
    row.faults.every((fault) => fault.party === 'client' || fault.party === 'client or server')
  );
}

/** The triage's reading of one client run's outcome (per-row errors, what reached the wire). */
export function runDetails(outcome: ClientRunOutcome, scenarios: Scenario[], rows: Map<string, RowVerdict>): Pick<RunResult, 'clientErrors' | 'reached' | 'clientWideError'> {
  const clientErrors = new Map<string, string>();
  const results = isJsonObject(outcome.report) && Array.isArray(outcome.report.results) ? outcome.report.results : [];
  for (const entry of results) {
    if (isJsonObject(entry) && typeof entry.id === 'string' && entry.status === 'failed' && typeof entry.error === 'string') {
      clientErrors.set(entry.id, entry.error.length > ERROR_BOUND ? `${entry.error.slice(0, ERROR_BOUND)}...` : entry.error);
    }
  }
  const wanted = new Map(scenarios.map((s) => [JSON.stringify(s.request.id), s.id]));
  const reached = new Set<string>();
  for (const message of [...(outcome.sent ?? []), ...(outcome.receipts ?? []).map(receiptEnvelope)]) {
    if (!isJsonObject(message) || message.method !== 'hooks/intercept') continue;
    const id = wanted.get(JSON.stringify(message.id ?? null));
    if (id !== undefined) reached.add(id);
  }
  const errors = new Set(scenarios.map((s) => clientErrors.get(s.id)));
  const everyRowGaveUp =
    scenarios.length > 0 &&
    reached.size === 0 &&
    errors.size === 1 &&
    !errors.has(undefined) &&
    scenarios.every((s) => {
      const row = rows.get(s.id);
      return row !== undefined && row.verdict === 'failed' && row.adapterStatus === 'failed' && (row.actual === null || row.actual === undefined);
    });
  return { clientErrors, reached, ...(everyRowGaveUp ? { clientWideError: [...errors][0]! } : {}) };
}

/**
 * The verifier's reason, plus the oracle-vs-adapter diff when the verifier stopped at the client's
 * own `status: failed` (it never reads `actual` then, but the diff is what a bug report needs).
 */
function withDiff(scenario: Scenario, row: RowVerdict): string {
  if (!/reported status "failed"/.test(row.reason) || row.actual === undefined || row.actual === null) return row.reason;
  const rejected = jsonEqual(row.actual, { rejected: true });
  if (scenario.expected !== undefined) {
    if (rejected) return `${row.reason}\n  the oracle accepts the response, but the adapter rejected it (actual {"rejected":true})`;
    const differences = compareExpected(scenario.expected, row.actual);
    return differences.length > 0 ? `${row.reason}\n${formatDifferences(differences)}` : row.reason;
  }
  const layer = scenario.tags?.find((tag) => tag.endsWith('-invalid'))?.replace(/-invalid$/, '') ?? 'some';
  return rejected
    ? row.reason
    : `${row.reason}\n  the oracle rejects the response (${layer} layer), but the adapter applied it: actual ${JSON.stringify(row.actual)}`;
}
