// When a run fails as a whole (triage.ts: the adapter refused the batch), no row has a verdict of its
// own. The rows are bisected into smaller runs until the refusal is pinned to the smallest scenario
// set that is refused on its own; rows in runs that go through are judged normally.
//
// Search: the first scenario runs alone. Refused too: the last one runs alone; if it is refused as
// well, the refusal is taken as systematic (any single scenario is refused) after three runs, however
// large the batch. Otherwise the first scenario is one refused set, and the rest is run and, while
// refused, halved. A refused set whose halves both go through is the smallest found (the refusal
// needs scenarios of both halves together; no finer search is made). One culprit among n rows costs
// about 3 + 2·log2(n) runs.
//
// A sub-run reproduces the refusal when it fails as a whole again — or, for a client that failed
// every row with one error before sending anything, when it does so again with the SAME error (a
// strict host refusing just the rows of a small sub-run is a host limitation, not this refusal).
// Kept run folders (RunResult.dir) are removed as soon as they are not needed; the whole batch's and
// the smallest set's are handed over in the Refusal for the caller to persist or remove.

import { rmSync } from 'node:fs';

import type { Scenario } from '../scenarios/types.ts';
import { judgeRows, type CaseJudgement, type Refusal, type RunResult } from './triage.ts';

/** One run over some rows. */
export type RunOnce = (scenarios: Scenario[]) => Promise<RunResult>;

/** Told before each bisection run (for progress lines). */
export type BisectionObserver = (event: { run: number; scenarios: number }) => void;

type Judge = (scenarios: Scenario[], observe?: BisectionObserver) => Promise<CaseJudgement[]>;

interface Refused {
  /** `run`: a run-level fault; otherwise the one error every row failed with before sending. */
  key: { kind: 'run' } | { kind: 'client-wide'; error: string };
  integrity: string[];
}

/** Per-row judgements from runs of `once`, with refused batches bisected. */
export function bisectingJudge(once: RunOnce): Judge {
  return async (scenarios, observe) => {
    if (scenarios.length === 0) return [];
    const first = await once(scenarios);
    const refused = refusalOf(first, scenarios);
    if (!refused) {
      discard(first);
      return judgeRows(scenarios, first);
    }
    return attribute(once, scenarios, first, refused, observe);
  };
}

/** Whether `result` over `scenarios` is a refusal (reproducing `parent`'s, when given). */
function refusalOf(result: RunResult, scenarios: Scenario[], parent?: Refused['key']): Refused | undefined {
  if (result.integrity.length > 0) return { key: { kind: 'run' }, integrity: result.integrity };
  const error = result.clientWideError;
  if (error === undefined) return undefined;
  const reproduces = parent ? parent.kind === 'client-wide' && parent.error === error : scenarios.length >= 2;
  if (!reproduces) return undefined;
  return {
    key: { kind: 'client-wide', error },
    integrity: [`[run/refused] (client) the client failed every row with the same error before any request reached the server: ${error}`],
  };
}

async function attribute(
  once: RunOnce,
  scenarios: Scenario[],
  first: RunResult,
  refused: Refused,
  observe: BisectionObserver | undefined,
): Promise<CaseJudgement[]> {
  let runs = 1;
  const run = async (subset: Scenario[]): Promise<RunResult> => {
    runs++;
    observe?.({ run: runs, scenarios: subset.length });
    return once(subset);
  };
  const judged = new Map<string, CaseJudgement>();
  const leaves: Array<{ ids: string[]; integrity: string[]; result: RunResult }> = [];
  const keep = (result: RunResult, subset: Scenario[]): void => {
    discard(result);
    for (const judgement of judgeRows(subset, result)) judged.set(judgement.id, judgement);
  };

  /** `result` is a refused run over `subset` (more than one row): find its smallest refused parts. */
  const split = async (subset: Scenario[], result: RunResult, why: Refused): Promise<void> => {
    const middle = Math.ceil(subset.length / 2);
    let reproduced = false;
    for (const part of [subset.slice(0, middle), subset.slice(middle)]) {
      const partResult = await run(part);
      const partRefused = refusalOf(partResult, part, refused.key);
      if (!partRefused) {
        keep(partResult, part);
      } else if (part.length === 1) {
        reproduced = true;
        leaves.push({ ids: [part[0]!.id], integrity: partRefused.integrity, result: partResult });
      } else {
        reproduced = true;
        await split(part, partResult, partRefused);
      }
    }
    if (!reproduced) leaves.push({ ids: subset.map((s) => s.id), integrity: why.integrity, result });
    else if (result !== first) discard(result);
  };

  let systematic = false;
  if (scenarios.length === 1) {
    leaves.push({ ids: [scenarios[0]!.id], integrity: refused.integrity, result: first });
  } else {
    const head = scenarios.slice(0, 1);
    const alone = await run(head);
    const aloneRefused = refusalOf(alone, head, refused.key);
    if (aloneRefused && scenarios.length > 2) {
      const last = scenarios.slice(-1);
      const lastAlone = await run(last);
      systematic = refusalOf(lastAlone, last, refused.key) !== undefined;
      discard(lastAlone);
    }
    if (aloneRefused) leaves.push({ ids: [head[0]!.id], integrity: aloneRefused.integrity, result: alone });
    else keep(alone, head);
    if (!systematic) {
      const rest = scenarios.slice(1);
      const restResult = await run(rest);
      const restRefused = refusalOf(restResult, rest, refused.key);
      if (!restRefused) keep(restResult, rest);
      else if (rest.length === 1) leaves.push({ ids: [rest[0]!.id], integrity: restRefused.integrity, result: restResult });
      else await split(rest, restResult, restRefused);
      // Refused as a batch, but neither the first scenario nor the rest on their own: all of it.
      if (!aloneRefused && !restRefused) leaves.push({ ids: scenarios.map((s) => s.id), integrity: refused.integrity, result: first });
    }
  }

  const smallest = leaves.reduce((best, leaf) => (leaf.ids.length < best.ids.length ? leaf : best));
  for (const leaf of leaves) if (leaf !== smallest && leaf.result !== first) discard(leaf.result);
  const refusedIds = systematic ? new Set(scenarios.map((s) => s.id)) : new Set(leaves.flatMap((leaf) => leaf.ids));
  const refusal: Refusal = {
    smallest: smallest.ids,
    refusedRows: refusedIds.size,
    systematic,
    integrity: smallest.integrity,
    batchIntegrity: refused.integrity,
    evidence: { batch: first.dir, smallest: smallest.result.dir },
    runs,
  };
  const reason = (integrity: string[]): string =>
    `run integrity failure: the adapter refused ${systematic ? 'every scenario' : 'this scenario set'} as a whole:\n  ${integrity.join('\n  ')}`;
  return scenarios.map((scenario) => {
    if (refusedIds.has(scenario.id)) {
      return { id: scenario.id, failed: true, class: 'refused', reason: reason(refusal.integrity), actual: undefined, refusal };
    }
    return judged.get(scenario.id) ?? { id: scenario.id, failed: true, class: 'disagreement', reason: 'no verdict for this row', actual: undefined };
  });
}

function discard(result: RunResult): void {
  if (result.dir !== undefined) rmSync(result.dir, { recursive: true, force: true });
}

/** Removes the temp folders a refusal still holds (when the caller does not persist them). */
export function discardRefusal(refusal: Refusal): void {
  for (const dir of new Set([refusal.evidence.batch, refusal.evidence.smallest])) {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}
