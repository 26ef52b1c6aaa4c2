import { defineMatrixSuite } from '../../../harness/families/core/suite.ts';

// Part 10 of a sharded core run (`--shard=i/n`): the groups harness/setup/shard-parts.ts assigns to it.
await defineMatrixSuite('core', { part: 10 });
