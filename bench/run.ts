// `npm run bench`: runs every bench module in turn and prints ratios. Benches never assert; add a
// module by exporting a `Bench` from bench/<name>.bench.ts and listing it here.

import { oracleBench } from './oracle.bench.ts';
import { schemaCompileBench } from './schemas.bench.ts';
import { coreBench } from './core.bench.ts';
import { fuzzBench } from './fuzz.bench.ts';
import { gridBench } from './grid.bench.ts';
import { fuzzThreadsBench } from './fuzz-threads.bench.ts';
import { elicitationBench } from './elicitation.bench.ts';
import { consoleOutput, sinkValue, type Bench } from './lib/measure.ts';

const BENCHES: Bench[] = [schemaCompileBench, oracleBench, coreBench, fuzzBench, fuzzThreadsBench, gridBench, elicitationBench];

// Bench names come first; options after them belong to the benches (e.g. `grid --fakes`).
const args = process.argv.slice(2);
const firstOption = args.findIndex((arg) => arg.startsWith('--'));
const only = firstOption < 0 ? args : args.slice(0, firstOption);
const selected = only.length === 0 ? BENCHES : BENCHES.filter((bench) => only.includes(bench.name));
if (selected.length === 0) {
  console.error(`no bench named ${only.join(', ')}; available: ${BENCHES.map((b) => JSON.stringify(b.name)).join(', ')}`);
  process.exit(2);
}

const out = consoleOutput();
console.log(`ahp-conformance benches — node ${process.version}, ${process.platform}/${process.arch}`);
for (const bench of selected) await bench.run(out);
console.log(`\n(sink ${sinkValue()})`);
