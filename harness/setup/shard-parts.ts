// Sharding a matrix project over CI machines (`vitest run --shard=i/n`). vitest shards by test file,
// and a matrix project is one file, so a sharded run includes instead the project's part files
// (`suites/<project>/shards/part-NN.test.ts`, MAX_SHARDS of them); the shard sequencer
// (shard-sequencer.ts) gives shard i exactly part i, and part i defines only the groups assigned to
// it here: round-robin over the planned groups, runnable ones and skipped ones counted separately,
// so every machine does about the same work and every group is in exactly one shard. The assignment
// depends on the config alone (never on timings), so every machine computes the same one.

import { inject } from 'vitest';

import type { LoadedAdapter } from '../adapters/types.ts';
import { isRunnable, type MatrixGroup } from '../runs/plan.ts';

/** Part files per project; more shards than this are refused. */
export const MAX_SHARDS = 12;

export interface ShardSelection {
  /** 1-based part (= shard index) this file defines. */
  part: number;
  /** The run's shard count. */
  count: number;
}

/** The groups of `part` out of `count`. */
export function groupsOfPart(groups: readonly MatrixGroup[], selection: ShardSelection): MatrixGroup[] {
  let runnable = 0;
  let skipped = 0;
  return groups.filter((group) => {
    const index = isRunnable(group) ? runnable++ : skipped++;
    return index % selection.count === selection.part - 1;
  });
}

/** The same split for any keyed items (e.g. receiver probe servers). */
export function itemsOfPart<T>(items: readonly T[], selection: ShardSelection): T[] {
  return items.filter((_, index) => index % selection.count === selection.part - 1);
}

/**
 * The groups a test file defines: all of them for the project's single file, only its part's for a
 * part file of a sharded run (the shard count comes from globalSetup's `ahpShard`).
 */
export function groupsOfShard(groups: readonly MatrixGroup[], shard: { part: number } | undefined): MatrixGroup[] {
  if (shard === undefined) return [...groups];
  const provided = inject('ahpShard');
  return groupsOfPart(groups, { part: shard.part, count: provided?.count ?? 1 });
}

/** The lifecycle server adapters whose receiver probes a part file defines (round-robin). */
export function probeAdaptersOfShard(adapters: readonly LoadedAdapter[], shard: { part: number } | undefined): LoadedAdapter[] {
  if (shard === undefined) return [...adapters];
  const provided = inject('ahpShard');
  return itemsOfPart(adapters.filter((adapter) => adapter.manifest.lifecycleServer !== undefined), { part: shard.part, count: provided?.count ?? 1 });
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's `--shard` (null when not sharded). */
    ahpShard: { index: number; count: number } | null;
  }
}
