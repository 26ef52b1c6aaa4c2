// The transport adapter process (`compaction`), used only by the receiver rejection probe:
// `client` reads the probe plan on stdin and prints the replies as one JSON array. Exit codes: 0 the
// replies were printed, 1 the transport failed (a non-2xx HTTP reply, a stdio receiver that did not
// exit 0), 2 bad argv or plan.

import { createLog, keepStdoutForProtocol } from '../lib/log.ts';
import { parseProbePlan, runProbe } from './probe-client.ts';
import { PlanError } from './host-plan.ts';
import { readJsonInput } from './read-stdin.ts';
import { killSpawnedReceivers } from './stdio-exchange.ts';

export function runTransportAdapter(argv: readonly string[]): void {
  const log = createLog('compaction');
  keepStdoutForProtocol();
  if (argv.length !== 1 || argv[0] !== 'client') {
    log.error('usage: compaction client   (probe plan on stdin)');
    process.exit(2);
  }
  process.on('exit', killSpawnedReceivers);
  const work = async (): Promise<number> => {
    const input = await readJsonInput(process.stdin, 'probe plan (stdin)');
    if (!input.ok) throw new PlanError(input.error);
    const outcome = await runProbe(parseProbePlan(input.value));
    if (!outcome.ok) {
      log.error(`probe failed: ${outcome.error}`);
      return 1;
    }
    await new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(outcome.replies)}\n`, () => resolve()));
    return 0;
  };
  work().then(
    (code) => process.exit(code),
    (error: unknown) => {
      const bad = error instanceof PlanError;
      log.error(bad ? error.message : `failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(bad ? 2 : 1);
    },
  );
}
