import { defineLifecycleSuite } from '../../../harness/families/lifecycle/suite.ts';

// Part 07 of a sharded lifecycle run (`--shard=i/n`): the groups harness/setup/shard-parts.ts assigns to it.
await defineLifecycleSuite({ part: 7 });
