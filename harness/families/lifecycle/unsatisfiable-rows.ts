// Rows no adapter can pass under the rules the verifier enforces. Running one would report a bug in
// the adapter that is really in the fixture, so such a row is not run: it is listed with this reason.
//
// The one known case (LIFECYCLE-RULES §13): the protocol's older observation-chain-scenarios.json
// gives the interrupt chain `holdObservers: true` and three expected observations, while §7.8 says an
// interrupted chain initiates no observation work at all (any `observed` or `observer-blocked`
// entry fails it) — both demands cannot hold at once. lifecycle-scenarios.json carries the current
// row (no gate, no observations), which runs as usual.

import { isChainScenario, type LifecycleScenario } from '../../lifecycle-adapters/scenario-types.ts';

/** Why `row` cannot be passed by any adapter, or `undefined` when it can. */
export function unsatisfiableReason(row: LifecycleScenario): string | undefined {
  if (!isChainScenario(row) || !row.chain.interrupt) return undefined;
  const observations = row.chainProof.observations.length;
  if (observations === 0) return undefined;
  const gate = row.chain.holdObservers ? ' and observer-blocked proof for each (chain.holdObservers: true)' : '';
  return (
    `unsatisfiable fixture row: chain.interrupt forbids any observation work (LIFECYCLE-RULES §7.8), ` +
    `yet chainProof.observations expects ${observations} observation(s)${gate}; ` +
    `this is the superseded interrupt row (§13) — no adapter can pass it, so it is not run`
  );
}
