// The reference compaction wire adapter (`compactionWire` in interop/adapter.json): the receiver in
// `server` and `stdio <scope>` modes and the host in `host` mode (see compaction/wire-main.ts).
//
//   node launch.mjs compaction-wire.ts <schemaDir> <storeDir> <configPath> server
//   node launch.mjs compaction-wire.ts <schemaDir> <storeDir> <configPath> stdio <scope>
//   node launch.mjs compaction-wire.ts host < plan.json

import { REFERENCE_WIRE_PARTS, runWireAdapter } from './compaction/wire-main.ts';

runWireAdapter(process.argv.slice(2), REFERENCE_WIRE_PARTS);
