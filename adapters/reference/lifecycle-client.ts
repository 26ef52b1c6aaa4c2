// The reference adapter's lifecycle client: runs every row of a lifecycle scenario file — step
// scripts and observation chains — against a lifecycle receiver with real SDK-like pending state,
// and writes the report {language, results:[{id, status, actual, error?}], receipts?} (README.md,
// LIFECYCLE-RULES §4–§6, §7.8, §10). It never reads a row's `expected`.
//
//   AHP_INTEROP_UPLOAD_TOKEN=... node --import tsx lifecycle-client.ts --config /abs/client-config.json
//
// HTTP: the runner started the receiver; intercepts and observations go to `endpoint` with event
// auth, control calls to `controlEndpoint`, and the receiver is never shut down from here. stdio: the
// client spawns `serverCommand` in its own process group, registers its pid in `childPidFile` at
// once, fetches the child's `GET /receipts` after the last row into `report.receipts`, and reaps the
// child on every exit path. Exit codes: 0 when no applicable row failed; 1 when one did (or the
// stdio receipts could not be fetched); 2 on a bad config (an unknown or unimplemented `suite`
// included) or scenario file; 130/143 when interrupted. The report is written on every path but a
// bad config.

import type { ClientAuth } from './auth.ts';
import { writeJsonAtomic } from './lib/atomic-write.ts';
import { readinessFileOf } from './lib/config.ts';
import { clientAuthOutcome, loadConfigOrExit, runClientMain } from './lib/process-main.ts';
import { createLog, errorText, keepStdoutForProtocol } from './lib/log.ts';
import { ADAPTER_LANGUAGE, DEFAULT_SCHEMA_DIR } from './lib/paths.ts';
import { runChainRow } from './lib/lifecycle/chain-runner.ts';
import { loadLifecycleClientConfig, type LifecycleClientConfig } from './lib/lifecycle/config.ts';
import { HttpEvents, type EventTransport } from './lib/lifecycle/event-transport.ts';
import { ReceiverControl } from './lib/lifecycle/receiver-control.ts';
import type { RowServices } from './lib/lifecycle/row-services.ts';
import { StdioReceiverProcess } from './lib/lifecycle/stdio-receiver-process.ts';
import { runStepRow } from './lib/lifecycle/step-runner.ts';
import { Uploads } from './lib/lifecycle/uploads.ts';
import { inapplicabilityReason } from '../../harness/lifecycle/applicability.ts';
import { loadLifecycleScenarioFileSync } from '../../harness/lifecycle/load-lifecycle-scenarios.ts';
import { isChainScenario, type LifecycleScenario } from '../../harness/lifecycle/scenario-types.ts';
import type { JsonValue } from '../../harness/protocol/json.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';
import type { ReportRow } from '../../harness/oracle/report-row.ts';

const log = createLog('lifecycle-client');
keepStdoutForProtocol();

/**
 * The report as it stands: rows finished so far. Interrupting seals it — every unfinished row failed
 * with the reason, later results ignored — so what a signal path writes is what stands.
 */
class ReportBook {
  private readonly rows = new Map<string, ReportRow>();
  private sealed = false;
  receipts: unknown;

  constructor(
    private readonly file: string,
    private readonly scenarios: readonly LifecycleScenario[],
  ) {}

  set(row: ReportRow): void {
    if (!this.sealed) this.rows.set(row.id, row);
  }

  seal(reason: string): void {
    this.failRemaining(reason);
    this.sealed = true;
  }

  failRemaining(error: string): void {
    for (const scenario of this.scenarios) if (!this.rows.has(scenario.id)) this.set({ id: scenario.id, status: 'failed', actual: null, error });
  }

  failures(): number {
    return [...this.rows.values()].filter((row) => row.status === 'failed').length;
  }

  /** Writes the report; once sealed, only the sealing path (`final`) writes. */
  async write(final = false): Promise<void> {
    if (this.sealed && !final) return;
    const results = this.scenarios.map((s) => this.rows.get(s.id) ?? { id: s.id, status: 'failed' as const, actual: null, error: 'not run' });
    await writeJsonAtomic(this.file, { language: ADAPTER_LANGUAGE, results, ...(this.receipts !== undefined ? { receipts: this.receipts } : {}) });
  }
}

let book: ReportBook | undefined;
let stdioChild: StdioReceiverProcess | undefined;
let stdioControl: ReceiverControl | undefined;
let events: EventTransport | undefined;

async function main(): Promise<number> {
  const config = loadConfigOrExit(log, loadLifecycleClientConfig);
  let scenarios: LifecycleScenario[];
  try {
    scenarios = loadLifecycleScenarioFileSync(config.scenarioFile).scenarios;
  } catch (error) {
    log.error(`bad scenario file: ${errorText(error)}`);
    return 2;
  }
  book = new ReportBook(config.reportFile, scenarios);

  const plan = clientAuthOutcome(log, config.transport, config.auth, config.endpoint);
  if (plan.kind === 'bad-config') return 2;
  if (plan.kind === 'inapplicable') {
    for (const s of scenarios) book.set({ id: s.id, status: plan.kind, actual: null, error: plan.reason });
    await book.write();
    return 0;
  }

  const validators = loadValidators(config.schemaDir ?? DEFAULT_SCHEMA_DIR);
  const connected = await connect(config, plan.auth);
  if (!connected.ok) {
    log.error(connected.error);
    book.failRemaining(connected.error);
    await stdioChild?.close();
    await book.write();
    return 1;
  }
  const { control, uploadEndpoint } = connected;
  const services: RowServices = {
    events: events!,
    control,
    uploads: new Uploads(config.upload, uploadEndpoint, process.env, validators, new Map()),
    validators,
    observedCounts: new Map(),
    strayMs: config.watchdogs.observeMs,
    log,
  };

  for (const row of scenarios) {
    const reason = inapplicabilityReason(row, config.transport);
    if (reason !== undefined) {
      book.set({ id: row.id, status: 'inapplicable', actual: null, error: reason });
      continue;
    }
    const outcome = isChainScenario(row) ? await runChainRow(row, services) : await runStepRow(row, services);
    const actual = outcome.actual as unknown as JsonValue;
    book.set(outcome.error === undefined ? { id: row.id, status: 'passed', actual } : { id: row.id, status: 'failed', actual, error: outcome.error });
    if (outcome.error !== undefined) log.error(`${row.id}: ${outcome.error}`);
  }

  let receiptsFailed = false;
  if (stdioChild !== undefined) {
    // Forwarded verbatim, fetched after the last row and before the child is shut down.
    try {
      book.receipts = await control.receipts();
    } catch (error) {
      receiptsFailed = true;
      log.error(`could not fetch the receiver's receipts: ${errorText(error)}`);
    }
  }
  await closeTransport();
  await book.write();
  const failures = book.failures();
  log.info(`${scenarios.length - failures}/${scenarios.length} rows without failure; done ${Math.round(performance.now())} ms after process start`);
  return failures > 0 || receiptsFailed ? 1 : 0;
}

type Connected = { ok: true; control: ReceiverControl; uploadEndpoint: string | undefined } | { ok: false; error: string };

async function connect(config: LifecycleClientConfig, auth: ClientAuth): Promise<Connected> {
  const { watchdogs } = config;
  if (config.transport === 'http') {
    // Loaded on demand: undici is the most expensive import and stdio runs never need it for events.
    const [{ HttpChannel }, { ClientCredentials }] = await Promise.all([import('./lib/http-channel.ts'), import('./lib/client-credentials.ts')]);
    events = new HttpEvents(new HttpChannel(config.endpoint!, new ClientCredentials(auth)), watchdogs.requestMs, watchdogs.observeMs);
    return { ok: true, control: new ReceiverControl(config.controlEndpoint!, watchdogs.controlMs), uploadEndpoint: undefined };
  }
  const child = StdioReceiverProcess.spawn({
    command: config.serverCommand!,
    cwd: config.serverCwd!,
    serverConfig: config.serverConfig!,
    readinessFile: readinessFileOf(config.serverConfig!),
    childPidFile: config.childPidFile,
    startupMs: watchdogs.startupMs,
    requestMs: watchdogs.requestMs,
    log,
  });
  stdioChild = child;
  events = child;
  const ready = await child.waitReady();
  if (!ready.ok) return ready;
  stdioControl = new ReceiverControl(ready.readiness.controlEndpoint, watchdogs.controlMs);
  return { ok: true, control: stdioControl, uploadEndpoint: ready.readiness.uploadEndpoint };
}

/** stdio: /shutdown, close stdin, wait, SIGTERM, SIGKILL the child's group. HTTP: only our own connections. */
async function closeTransport(): Promise<void> {
  if (stdioChild !== undefined) await stdioChild.close(stdioControl);
  else await events?.close();
}

runClientMain(log, main, {
  interrupted: async (signal) => {
    book?.seal(`interrupted by ${signal}`);
    await closeTransport().catch(() => undefined);
    await book?.write(true);
  },
  failed: async () => {
    book?.seal('unexpected client failure');
    await closeTransport().catch(() => undefined);
    await book?.write(true);
  },
  killNow: () => stdioChild?.killNow(),
});
