import { BaseSequencer, type TestSpecification } from 'vitest/node';

import { MAX_SHARDS } from './shard-parts.ts';

// `.ts` from source, `.js` in the installed package.
const PART = /[\\/]shards[\\/]part-(\d+)\.test\.[jt]s$/;

/**
 * vitest's sequencer, except for matrix part files (shard-parts.ts): shard i of n runs exactly part i
 * of each matrix project, and parts above n run nowhere. Other files are sharded as vitest does.
 */
export default class ShardSequencer extends BaseSequencer {
  override async shard(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { index, count } = this.ctx.config.shard!;
    if (count > MAX_SHARDS) throw new Error(`ahp-conformance: --shard=${index}/${count}: at most ${MAX_SHARDS} shards (the matrix projects have ${MAX_SHARDS} part files)`);
    const parts = files.filter((file) => PART.test(file.moduleId));
    const others = files.filter((file) => !PART.test(file.moduleId));
    const mine = parts.filter((file) => Number(PART.exec(file.moduleId)![1]) === index);
    return [...mine, ...(others.length > 0 ? await super.shard(others) : [])];
  }
}
