// The runnability rules of a lifecycle scenario file (see scenarios/runnability.ts), read off the step
// ops of LIFECYCLE-RULES §4 and the references of §5. Pure; runs on a file that already passed
// lintLifecycleScenarioFile (keys name requests, slots are unique, a receive names an earlier send).
// Chain rows run no steps (§7.8 chain client) and have nothing here to break.
//
//   - §4 wait/release/cancel/accept act on the request's pending interception, which only an earlier
//     `send` of the key opens (`failOpen` alone may act on a request never sent: it may create the
//     pending state with no attempt).
//   - §4 wait: `POST /wait {id, count}` returns once the receiver holds `count` attempts, so `count`
//     is at most the attempts the row sent before it, or the wait blocks until the watchdog.
//   - §4 send with `bypassSDK`: a raw replay of an attempt whose reply still goes to the SDK's pending
//     interception, so an earlier send of the key opened it.
//   - §4 emit: the client must discard the unsolicited frame without consuming a live slot, and
//     replies are routed per JSON-RPC id, so the frame's id is not the id of a request with a slot
//     still waiting for its reply.
//   - §5: a body `{ref: alias}` of a sent request or an observe notification goes out as the ref the
//     receiver assigned to that alias, so an earlier upload step of the same row (expected 201) bound
//     it. Only the row's own uploads count: a selection may run the row alone.

import { jsonKey, type JsonValue } from '../protocol/json.ts';
import { indexPath, joinPath } from '../scenarios/json-path.ts';
import { bodyReferences, type RunnabilityProblem, type RunnabilityRule } from '../scenarios/runnability.ts';
import { isChainScenario, type LifecycleScenarioFile, type StepScenario } from './scenario-types.ts';

export const LIFECYCLE_RUNNABILITY_RULES = {
  actsOnSentRequest: {
    section: 'LIFECYCLE-RULES §4 wait/release/cancel/accept',
    demand: 'waits on, releases, cancels or accepts only a request it sent in an earlier step',
  },
  waitCount: {
    section: 'LIFECYCLE-RULES §4 wait',
    demand: 'waits for at most as many attempts as it sent before the wait',
  },
  replayAfterSend: {
    section: 'LIFECYCLE-RULES §4 send (bypassSDK)',
    demand: 'replays (bypassSDK) only a request it already sent through the SDK',
  },
  emitNotLive: {
    section: 'LIFECYCLE-RULES §4 emit',
    demand: 'emits an unsolicited frame only for an id with no slot still waiting for its reply',
  },
  boundAlias: {
    section: 'LIFECYCLE-RULES §5 uploads and references',
    demand: 'sends a body {ref} only for an alias an earlier upload step of the row bound (expected status 201)',
  },
} as const satisfies Record<string, RunnabilityRule>;

/** Every runnability problem of a well-formed lifecycle file, in document order. */
export function lifecycleRunnabilityProblems(file: LifecycleScenarioFile): RunnabilityProblem[] {
  return file.scenarios.flatMap((row, i) => (isChainScenario(row) ? [] : stepRowProblems(row, indexPath('scenarios', i))));
}

function stepRowProblems(row: StepScenario, at: string): RunnabilityProblem[] {
  const problems: RunnabilityProblem[] = [];
  const report = (path: string, rule: RunnabilityRule, problem: string): void => {
    problems.push({ row: row.id, path, rule, problem });
  };
  const stepsAt = joinPath(at, 'steps');
  /** Request key → attempts sent so far. */
  const attempts = new Map<string, number>();
  /** Slot → request key, while its reply has not been received. */
  const liveSlots = new Map<string, string>();
  const bound = new Set<string>();
  let uploads = 0;

  row.steps.forEach((step, j) => {
    const stepAt = indexPath(stepsAt, j);
    switch (step.op) {
      case 'send': {
        const sent = attempts.get(step.key) ?? 0;
        if (step.bypassSDK === true && sent === 0) {
          report(joinPath(stepAt, 'bypassSDK'), LIFECYCLE_RUNNABILITY_RULES.replayAfterSend, `expected an earlier send of ${JSON.stringify(step.key)} for this raw replay to repeat, got none`);
        }
        const request = row.requests[step.key]!;
        for (const ref of aliasRefs(request.params.event.items as JsonValue | undefined, itemsPath(at, step.key))) {
          if (!bound.has(ref.alias)) report(ref.path, LIFECYCLE_RUNNABILITY_RULES.boundAlias, unboundAlias(ref.alias, stepAt, bound));
        }
        attempts.set(step.key, sent + 1);
        liveSlots.set(step.slot, step.key);
        break;
      }
      case 'wait':
      case 'release':
      case 'cancel':
      case 'accept': {
        const sent = attempts.get(step.key) ?? 0;
        if (sent === 0) {
          report(joinPath(stepAt, 'key'), LIFECYCLE_RUNNABILITY_RULES.actsOnSentRequest, `expected a request sent before this ${step.op} (${sentList(attempts)}), got ${JSON.stringify(step.key)}`);
        } else if (step.op === 'wait' && step.count > sent) {
          report(joinPath(stepAt, 'count'), LIFECYCLE_RUNNABILITY_RULES.waitCount, `expected at most the ${sent} attempt(s) of ${JSON.stringify(step.key)} sent so far, got ${step.count}`);
        }
        break;
      }
      case 'receive':
        liveSlots.delete(step.slot);
        break;
      case 'upload':
        if (row.expected.uploadStatuses[uploads] === 201) bound.add(step.ref);
        uploads += 1;
        break;
      case 'observe': {
        const itemsAt = step.items !== undefined ? joinPath(stepAt, 'items') : itemsPath(at, step.key);
        const items = (step.items ?? row.requests[step.key]!.params.event.items) as JsonValue | undefined;
        for (const ref of aliasRefs(items, itemsAt)) {
          if (!bound.has(ref.alias)) report(ref.path, LIFECYCLE_RUNNABILITY_RULES.boundAlias, unboundAlias(ref.alias, stepAt, bound));
        }
        break;
      }
      case 'emit': {
        const id = jsonKey(step.response.id);
        const live = [...liveSlots].find(([, key]) => jsonKey(row.requests[key]!.id) === id);
        if (live !== undefined) {
          report(
            joinPath(joinPath(stepAt, 'response'), 'id'),
            LIFECYCLE_RUNNABILITY_RULES.emitNotLive,
            `expected the id of no request with a live slot, got ${id}, the id of ${JSON.stringify(live[1])} whose slot ${JSON.stringify(live[0])} is not yet received (the frame would be routed to it)`,
          );
        }
        break;
      }
      default:
        break;
    }
  });
  return problems;
}

/** `scenarios[i].requests.<key>.params.event.items`. */
function itemsPath(rowAt: string, key: string): string {
  return ['params', 'event', 'items'].reduce(joinPath, joinPath(joinPath(rowAt, 'requests'), key));
}

function sentList(attempts: Map<string, number>): string {
  return attempts.size === 0 ? 'none so far' : `sent so far: ${[...attempts.keys()].map((k) => JSON.stringify(k)).join(', ')}`;
}

function unboundAlias(alias: string, stepAt: string, bound: Set<string>): string {
  const known = bound.size === 0 ? 'none' : [...bound].map((a) => JSON.stringify(a)).join(', ');
  return `expected an alias bound by a 201 upload step before ${stepAt} (bound so far: ${known}), got ${JSON.stringify(alias)}`;
}

/** The string body refs (aliases) of content items under `at`. */
function aliasRefs(items: JsonValue | undefined, at: string): Array<{ alias: string; path: string }> {
  return bodyReferences(items, at).flatMap(({ ref, path }) => (typeof ref === 'string' ? [{ alias: ref, path }] : []));
}
