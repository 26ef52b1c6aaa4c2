// The reference adapter's lifecycle client: runs every row of a lifecycle scenario file — step
// scripts and observation chains — against a lifecycle receiver with real SDK-like pending state,
// and writes the report {language, results:[{id, status, actual, error?}], receipts?} (README.md,
// LIFECYCLE-RULES §4–§6, §7.8, §10). With `suite: "catalogue"` it runs a catalogue scenario file
// instead: one discovery, then notify / rawNotify / register steps (CATALOGUE-RULES §5), and the
// report gains `discovery`. It never reads a row's `expected`.
//
//   AHP_INTEROP_UPLOAD_TOKEN=... node launch.mjs lifecycle-client.ts --config /abs/client-config.json
//
// HTTP: the runner started the receiver; events go to `endpoint` with event auth, control calls to
// `controlEndpoint`, and the receiver is never shut down from here. stdio: the client spawns
// `serverCommand` in its own process group, registers its pid in `childPidFile` at once, fetches the
// child's `GET /receipts` after the last row into `report.receipts`, and reaps the child on every
// exit path. Exit codes: 0 when no applicable row failed; 1 when one did (or the catalogue discovery
// failed, or the stdio receipts could not be fetched); 2 on a bad config (an unknown `suite`
// included) or scenario file (an unknown op included); 130/143 when interrupted. The report is
// written on every path but a bad config.

import type { ClientAuth } from './auth.ts';
import { clientAuthOutcome, loadConfigOrExit, runClientMain } from './lib/process-main.ts';
import { createLog, errorText, keepStdoutForProtocol } from './lib/log.ts';
import { DEFAULT_SCHEMA_DIR } from './lib/paths.ts';
import { catalogueTransport } from './catalogue/catalogue-transport.ts';
import { discoverOnce } from './catalogue/discovery.ts';
import { CatalogueRowRunner } from './catalogue/row-runner.ts';
import { SdkObserver } from './catalogue/sdk-observer.ts';
import { runChainRow } from './lifecycle/chain-runner.ts';
import { loadLifecycleClientConfig, type LifecycleClientConfig } from './lifecycle/config.ts';
import { HttpEvents, StrictEvents } from './lifecycle/event-transport.ts';
import { ReceiverConnection, type Connected } from './lifecycle/receiver-connection.ts';
import { ReportBook } from './lifecycle/report-book.ts';
import type { RowServices } from './lifecycle/row-services.ts';
import { runStepRow } from './lifecycle/step-runner.ts';
import { Uploads } from './lifecycle/uploads.ts';
import { loadCatalogueScenarioFileSync } from '../../harness/families/catalogue/load-catalogue-scenarios.ts';
import type { CatalogueScenario } from '../../harness/families/catalogue/scenario-types.ts';
import { inapplicabilityReason } from '../../harness/families/lifecycle/applicability.ts';
import { loadLifecycleScenarioFileSync } from '../../harness/families/lifecycle/load-lifecycle-scenarios.ts';
import { isChainScenario, type LifecycleScenario } from '../../harness/lifecycle-adapters/scenario-types.ts';
import type { JsonValue } from '../../harness/protocol/json.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';
import type { ProtocolValidators } from '../../harness/protocol/validator-types.ts';

const log = createLog('lifecycle-client');
keepStdoutForProtocol();

type Rows = { suite: 'lifecycle'; rows: LifecycleScenario[] } | { suite: 'catalogue'; rows: CatalogueScenario[] };
type OpenConnection = Extract<Connected, { ok: true }>;

let book: ReportBook | undefined;
let connection: ReceiverConnection | undefined;

async function main(): Promise<number> {
  const config = loadConfigOrExit(log, loadLifecycleClientConfig);
  let scenarios: Rows;
  try {
    scenarios =
      config.suite === 'catalogue'
        ? { suite: 'catalogue', rows: loadCatalogueScenarioFileSync(config.scenarioFile).scenarios }
        : { suite: 'lifecycle', rows: loadLifecycleScenarioFileSync(config.scenarioFile).scenarios };
  } catch (error) {
    log.error(`bad scenario file: ${errorText(error)}`);
    return 2;
  }
  const rowIds = scenarios.rows.map((row) => row.id);
  // The catalogue report always carries `discovery`: the reply as received, null when none arrived.
  book = new ReportBook(config.reportFile, rowIds, scenarios.suite === 'catalogue' ? { discovery: null } : {});

  const plan = clientAuthOutcome(log, config.transport, config.auth, config.endpoint);
  if (plan.kind === 'bad-config') return 2;
  if (plan.kind === 'inapplicable') {
    for (const id of rowIds) book.set({ id, status: plan.kind, actual: null, error: plan.reason });
    await book.write();
    return 0;
  }

  const validators = loadValidators(config.schemaDir ?? DEFAULT_SCHEMA_DIR);
  const connected = await connect(config, plan.auth);
  if (!connected.ok) {
    log.error(connected.error);
    book.failRemaining(connected.error);
    await connection?.close();
    await book.write();
    return 1;
  }

  const completed = scenarios.suite === 'catalogue' ? await runCatalogue(scenarios.rows, connected, config, validators) : await runLifecycle(scenarios.rows, connected, config, validators);

  let receiptsFailed = false;
  if (connection?.spawned === true) {
    // Forwarded verbatim, fetched after the last row and before the child is shut down.
    try {
      book.receipts = await connected.control.receipts();
    } catch (error) {
      receiptsFailed = true;
      log.error(`could not fetch the receiver's receipts: ${errorText(error)}`);
    }
  }
  await connection?.close();
  await book.write();
  const failures = book.failures();
  log.info(`${rowIds.length - failures}/${rowIds.length} rows without failure; done ${Math.round(performance.now())} ms after process start`);
  return failures > 0 || !completed || receiptsFailed ? 1 : 0;
}

function connect(config: LifecycleClientConfig, auth: ClientAuth): Promise<Connected> {
  connection = new ReceiverConnection(config, auth, log);
  return connection.open();
}

/** Lifecycle rows in file order; rows that exclude this transport are `inapplicable`. Always completes. */
async function runLifecycle(rows: LifecycleScenario[], connected: OpenConnection, config: LifecycleClientConfig, validators: ProtocolValidators): Promise<boolean> {
  const { link, control, uploadEndpoint } = connected;
  const { watchdogs } = config;
  const services: RowServices = {
    events: new StrictEvents(link.transport === 'http' ? new HttpEvents(link.channel, watchdogs.requestMs, watchdogs.observeMs) : link.child),
    control,
    uploads: new Uploads(config.upload, uploadEndpoint, process.env, validators, new Map()),
    validators,
    observedCounts: new Map(),
    strayMs: watchdogs.observeMs,
    log,
  };
  for (const row of rows) {
    const reason = inapplicabilityReason(row, config.transport);
    if (reason !== undefined) {
      book!.set({ id: row.id, status: 'inapplicable', actual: null, error: reason });
      continue;
    }
    const outcome = isChainScenario(row) ? await runChainRow(row, services) : await runStepRow(row, services);
    record(row.id, outcome.actual as unknown as JsonValue, outcome.error);
  }
  return true;
}

/**
 * Catalogue rows in file order after exactly one discovery; false when discovery or a row failed,
 * which ends the run (every row not run fails with the reason).
 */
async function runCatalogue(rows: CatalogueScenario[], connected: OpenConnection, config: LifecycleClientConfig, validators: ProtocolValidators): Promise<boolean> {
  const transport = catalogueTransport(connected.link, config.watchdogs);
  const discovered = await discoverOnce(transport, validators);
  book!.header.discovery = discovered.response;
  if (!discovered.ok) {
    log.error(discovered.error);
    book!.failRemaining(`not run: ${discovered.error}`);
    return false;
  }
  const runner = new CatalogueRowRunner({ transport, control: connected.control, sdk: new SdkObserver(validators), manifest: discovered.manifest, validators });
  for (const row of rows) {
    const outcome = await runner.run(row);
    record(row.id, outcome.actual as unknown as JsonValue, outcome.error);
    if (outcome.error !== undefined) {
      book!.failRemaining(`not run: the run stopped at ${row.id}`);
      return false;
    }
  }
  return true;
}

function record(id: string, actual: JsonValue, error: string | undefined): void {
  book!.set(error === undefined ? { id, status: 'passed', actual } : { id, status: 'failed', actual, error });
  if (error !== undefined) log.error(`${id}: ${error}`);
}

runClientMain(log, main, {
  interrupted: async (signal) => {
    book?.seal(`interrupted by ${signal}`);
    await connection?.close().catch(() => undefined);
    await book?.write(true);
  },
  failed: async () => {
    book?.seal('unexpected client failure');
    await connection?.close().catch(() => undefined);
    await book?.write(true);
  },
  killNow: () => connection?.killNow(),
});
