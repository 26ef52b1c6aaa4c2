// The reference compaction transport adapter (`compaction` in interop/adapter.json): `client` sends
// the receiver rejection probe's requests unchanged (see compaction/transport-main.ts).
//
//   node launch.mjs compaction.ts client < probe-plan.json

import { runTransportAdapter } from './compaction/transport-main.ts';

runTransportAdapter(process.argv.slice(2));
