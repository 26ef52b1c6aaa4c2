// The lifecycle server in the catalogue suite (`suite: "catalogue"`, CATALOGUE-RULES §4): the
// lifecycle family's listeners and readiness — event (HTTP only, event auth, HTTPS under mtls),
// control, upload — with the catalogue receiver behind them. One lineage tracker lives for the whole
// process, so lineage spans every row of a run (stdio: the client spawns this process once).

import type { Server } from 'node:http';

import { loadCatalogueScenarioFileSync } from '../../../harness/families/catalogue/load-catalogue-scenarios.ts';
import { LineageTracker } from '../../../harness/families/catalogue/lineage-tracker.ts';
import { loadValidators } from '../../../harness/protocol/load-validators.ts';
import type { ServerAuth } from '../auth.ts';
import { errorText, type Log } from '../lib/log.ts';
import { DEFAULT_SCHEMA_DIR } from '../lib/paths.ts';
import { exitWith, serverShutdown } from '../lib/process-main.ts';
import { newAuthStats } from '../lib/request-auth.ts';
import type { LifecycleServerConfig } from '../lifecycle/config.ts';
import { ReceiptLog } from '../lifecycle/receipt-log.ts';
import { listenAndAnnounce } from '../lifecycle/receiver-listeners.ts';
import { createCatalogueControlServer } from './control-server.ts';
import { createCatalogueEventServer } from './event-http-binding.ts';
import { createNoUploadListener } from './no-upload-listener.ts';
import { CatalogueReceiver } from './receiver.ts';
import { serveCatalogueStdio } from './stdio-binding.ts';

export async function serveCatalogue(config: LifecycleServerConfig, auth: ServerAuth, waitWatchdogMs: number, log: Log): Promise<void> {
  let rows: number;
  try {
    // The receiver judges by rule, not by row; the file is read so that a bad one is a bad config.
    rows = loadCatalogueScenarioFileSync(config.scenarioFile).scenarios.length;
  } catch (error) {
    exitWith(log, 2, `bad scenario file: ${errorText(error)}`);
  }
  const validators = loadValidators(config.schemaDir ?? DEFAULT_SCHEMA_DIR);
  const receipts = new ReceiptLog();
  const receiver = new CatalogueReceiver({ receipts, lineage: new LineageTracker(validators), validators, log });

  const servers: Server[] = [];
  const shutdown = serverShutdown(log, servers, () => receipts.close());
  if (config.transport === 'stdio') {
    process.stdout.on('error', (error) => shutdown(1, `stdout failed (${errorText(error)})`));
    serveCatalogueStdio(receiver, process.stdin, process.stdout, log, () => shutdown(0, 'end of stdin'));
  }

  const control = createCatalogueControlServer({ receipts, waitWatchdogMs, log, shutdown: () => shutdown(0, 'POST /shutdown') });
  const events = config.transport === 'http' ? () => createCatalogueEventServer(receiver, auth, newAuthStats(), log) : undefined;
  await listenAndAnnounce({ control, upload: createNoUploadListener(), events }, servers, config.readinessFile);
  log.info(`catalogue receiver ready over ${config.transport} ${Math.round(performance.now())} ms after process start (${rows} rows)`);
}
