// `server` mode: one receiver per pair. Binds 127.0.0.1 port 0 and prints exactly one stdout line,
// `{"endpoint":"http://127.0.0.1:<port>"}`; diagnostics go to stderr. The event and upload bearer
// tokens come from AHP_ELICITATION_TOKEN and AHP_ELICITATION_UPLOAD_TOKEN and are never logged.

import type { Server } from 'node:http';

import type { Log } from '../lib/log.ts';
import { exitWith, listen, serverShutdown } from '../lib/process-main.ts';
import type { ElicitationBinding } from './binding.ts';
import { validatorsOrExit } from './body-validators.ts';
import { ElicitationReceiver, honestReceiverParts, type ReceiverParts } from './elicitation-receiver.ts';
import { createReceiverServer } from './receiver-routes.ts';
import { bodyReader, storeLookup } from './selected-body.ts';
import { UploadStore } from './upload-store.ts';

export interface ServerFlaws {
  /** Replaces honest receiver parts (a lying fake's one flaw). */
  receiverParts?: (honest: ReceiverParts) => ReceiverParts;
  /** false: /receipts answers without the event bearer. */
  receiptsNeedBearer?: boolean;
}

export interface ServerModeOptions {
  schemaDir: string;
  principal: string;
  binding: ElicitationBinding;
  log: Log;
  flaws: ServerFlaws;
}

export async function runServerMode(options: ServerModeOptions): Promise<void> {
  const { log } = options;
  const eventToken = process.env['AHP_ELICITATION_TOKEN'];
  const uploadToken = process.env['AHP_ELICITATION_UPLOAD_TOKEN'];
  if (!eventToken || !uploadToken) exitWith(log, 2, 'Missing auth: AHP_ELICITATION_TOKEN and AHP_ELICITATION_UPLOAD_TOKEN must both be set');

  const validators = validatorsOrExit(log, options.schemaDir, options.binding);
  const uploads = new UploadStore();
  const honest = honestReceiverParts(bodyReader(options.binding, storeLookup(uploads)));
  const parts = options.flaws.receiverParts?.(honest) ?? honest;
  const receiver = new ElicitationReceiver({ principal: options.principal, validators, parts });
  const server = createReceiverServer({
    receiver,
    uploads,
    eventToken,
    uploadToken,
    receiptsNeedBearer: options.flaws.receiptsNeedBearer ?? true,
    log,
  });
  const servers: Server[] = [server];
  serverShutdown(log, servers, () => undefined);
  const endpoint = await listen(server);
  process.stdout.write(`${JSON.stringify({ endpoint })}\n`);
  log.info(`receiver for ${options.principal} listening (${options.binding} binding)`);
}
