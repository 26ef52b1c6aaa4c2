// The wire adapter process (`compactionWire`): one of three modes by argv (wire-argv.ts). Exit codes:
// 0 done (server: SIGTERM/SIGINT; stdio: end of stdin; host: every case ran), 1 an unexpected
// failure, 2 bad argv, plan, token map or subscription config (the message names what is wrong).
// Diagnostics go to stderr only and never contain a token. `parts` is what the process runs with:
// the reference passes REFERENCE_WIRE_PARTS; the harness's lying fakes pass one part swapped.

import { mkdirSync } from 'node:fs';

import { loadValidators, SchemaLoadError } from '../../../harness/protocol/load-validators.ts';
import { createLog, errorText, keepStdoutForProtocol } from '../lib/log.ts';
import { PlanError, parseHostPlan } from './host-plan.ts';
import { REFERENCE_HOST_STEPS, runHost, type HostSteps } from './host.ts';
import { serveHttp } from './http-receiver.ts';
import { readJsonInput } from './read-stdin.ts';
import { appendReceipt } from './receipt-file.ts';
import { CompactionReceiver, REFERENCE_RECEIVER_STEPS, type ReceiverSteps } from './receiver.ts';
import { ONE_LINE, serveStdio, type ReplyLines } from './stdio-receiver.ts';
import { killSpawnedReceivers } from './stdio-exchange.ts';
import { loadSubscriptions, SubscriptionConfigError } from './subscriptions.ts';
import { EVENT_TOKENS_VARIABLE, TokenMapError, tokenScopes } from './token-scopes.ts';
import { parseWireArgv } from './wire-argv.ts';

export interface WireParts {
  host: HostSteps;
  receiver: ReceiverSteps;
  replyLines: ReplyLines;
}

export const REFERENCE_WIRE_PARTS: WireParts = { host: REFERENCE_HOST_STEPS, receiver: REFERENCE_RECEIVER_STEPS, replyLines: ONE_LINE };

const CONFIG_ERRORS = [PlanError, SubscriptionConfigError, TokenMapError, SchemaLoadError];

export function runWireAdapter(argv: readonly string[], parts: WireParts = REFERENCE_WIRE_PARTS): void {
  const log = createLog('compaction-wire');
  keepStdoutForProtocol();
  const fail = (error: unknown): never => {
    const bad = CONFIG_ERRORS.some((kind) => error instanceof kind);
    log.error(bad ? errorText(error) : `failed: ${errorText(error)}`);
    process.exit(bad ? 2 : 1);
  };
  const mode = parseWireArgv(argv);
  if ('error' in mode) {
    log.error(mode.error);
    process.exit(2);
  }
  const work = async (): Promise<void> => {
    if (mode.mode === 'host') {
      process.on('exit', killSpawnedReceivers);
      const stop = (code: number): void => {
        killSpawnedReceivers();
        process.exit(code);
      };
      process.on('SIGTERM', () => stop(143));
      process.on('SIGINT', () => stop(130));
      const input = await readJsonInput(process.stdin, 'host plan (stdin)');
      if (!input.ok) throw new PlanError(input.error);
      const plan = parseHostPlan(input.value);
      const validators = plan.schema === undefined ? undefined : loadValidators(plan.schema);
      const outputs = await runHost(plan, validators?.interceptResponse, parts.host);
      process.stdout.write(`${JSON.stringify(outputs)}\n`, () => process.exit(0));
      return;
    }
    const subscriptions = loadSubscriptions(mode.configPath);
    const validators = loadValidators(mode.schemaDir);
    mkdirSync(mode.storeDir, { recursive: true });
    const receiver = new CompactionReceiver({ interceptRequest: validators.interceptRequest, subscriptions, record: appendReceipt(mode.storeDir), steps: parts.receiver });
    if (mode.mode === 'stdio') {
      if (!receiver.serves(mode.scope)) throw new SubscriptionConfigError(`subscription config ${mode.configPath}: has no scope ${JSON.stringify(mode.scope)} (from argv)`);
      await serveStdio(receiver, mode.scope, process.stdin, process.stdout, parts.replyLines);
      process.exit(0);
    }
    const serving = await serveHttp(receiver, tokenScopes(EVENT_TOKENS_VARIABLE), log);
    const stop = (): void => {
      void serving.close().finally(() => process.exit(0));
      serving.server.closeAllConnections();
      setTimeout(() => process.exit(0), 2_000).unref();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    process.stdout.write(`${JSON.stringify({ endpoint: serving.endpoint })}\n`);
    log.info('serving compaction intercepts');
  };
  work().catch(fail);
}
