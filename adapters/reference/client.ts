// The reference adapter's client half: discovers capabilities, sends every scenario request
// unchanged to a server (HTTP endpoint, or a stdio server it spawns), applies each response with the
// oracle (`evaluate`) and writes the report {language, results:[{id,status,actual,error?}]}.
//
//   node launch.mjs client.ts --config /abs/client-config.json   (or: node --import tsx client.ts ...)
//
// Exit codes: 0 when no applicable row failed (unsupported/inapplicable rows are not failures);
// 1 when one did; 2 on a bad config or scenario file; 130/143 when interrupted.

import type { ClientAuth } from './auth.ts';
import { writeJsonAtomic } from './lib/atomic-write.ts';
import type { AhpChannel } from './lib/channel.ts';
import { loadClientConfig, readinessFileOf, type ClientConfig } from './lib/config.ts';
import { clientAuthOutcome, loadConfigOrExit, runClientMain } from './lib/process-main.ts';
import { checkDiscovery } from './lib/discovery.ts';
import { failedRow, isApplicableFailure, judgeVerdict, type Report, type ReportRow } from '../../harness/oracle/report-row.ts';
import { createLog, errorText, keepStdoutForProtocol } from './lib/log.ts';
import { ADAPTER_LANGUAGE, DEFAULT_SCHEMA_DIR } from './lib/paths.ts';
import { StdioChannel } from './lib/stdio-channel.ts';
import { evaluate } from '../../harness/oracle/evaluate.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';
import type { ProtocolValidators } from '../../harness/protocol/validator-types.ts';
import { loadScenarioFileSync } from '../../harness/scenarios/load-scenarios.ts';
import type { Scenario } from '../../harness/scenarios/types.ts';
import { semanticRefusal } from './lib/strict-wire.ts';

/** Startup of a spawned stdio server (readiness file), charged to neither discovery nor requests. */
const STARTUP_WATCHDOG_MS = 20_000;
const DISCOVERY_WATCHDOG_MS = 15_000;
const REQUEST_WATCHDOG_MS = 30_000;

const log = createLog('client');
keepStdoutForProtocol();

let activeChannel: AhpChannel | undefined;
let stdioChannel: StdioChannel | undefined;

async function main(): Promise<number> {
  const config = loadConfigOrExit(log, loadClientConfig);
  log.info(`started ${Math.round(performance.now())} ms after process start`);
  let scenarios: Scenario[];
  try {
    scenarios = loadScenarioFileSync(config.scenarioFile).scenarios;
  } catch (error) {
    log.error(`bad scenario file: ${errorText(error)}`);
    return 2;
  }

  const plan = clientAuthOutcome(log, config.transport, config.auth, config.endpoint);
  if (plan.kind === 'bad-config') return 2;
  if (plan.kind === 'inapplicable') {
    const rows: ReportRow[] = scenarios.map((s) => ({ id: s.id, status: plan.kind, actual: null, error: plan.reason }));
    await writeReport(config.reportFile, rows);
    return 0;
  }
  const auth = plan.auth;

  const validators = loadValidators(config.schemaDir ?? DEFAULT_SCHEMA_DIR);
  const rows = await runScenarios(config, auth, scenarios, validators);
  await writeReport(config.reportFile, rows);
  const failures = rows.filter(isApplicableFailure).length;
  log.info(`${rows.length - failures}/${rows.length} rows without applicable failure; done ${Math.round(performance.now())} ms after process start`);
  return failures > 0 ? 1 : 0;
}

async function runScenarios(config: ClientConfig, auth: ClientAuth, scenarios: Scenario[], validators: ProtocolValidators): Promise<ReportRow[]> {
  const failAll = (error: string): ReportRow[] => scenarios.map((s) => failedRow(s, error));

  let channel: AhpChannel;
  if (config.transport === 'http') {
    // Loaded on demand: undici is the most expensive import and stdio runs never need it.
    const [{ HttpChannel }, { ClientCredentials }] = await Promise.all([import('./lib/http-channel.ts'), import('./lib/client-credentials.ts')]);
    channel = new HttpChannel(config.endpoint!, new ClientCredentials(auth));
  } else {
    const stdio = StdioChannel.spawn({
      command: config.serverCommand!,
      cwd: config.serverCwd!,
      serverConfig: config.serverConfig!,
      readinessFile: readinessFileOf(config.serverConfig!),
      startupTimeoutMs: config.watchdogs.startupMs ?? STARTUP_WATCHDOG_MS,
    });
    stdioChannel = stdio;
    activeChannel = stdio;
    channel = stdio;
    const startupError = await stdio.waitReady();
    if (startupError) {
      log.error(startupError);
      await stdio.close();
      return failAll(startupError);
    }
  }
  activeChannel = channel;

  try {
    const discovered = await channel.discover(config.watchdogs.discoveryMs ?? DISCOVERY_WATCHDOG_MS);
    const discovery = discovered.ok
      ? checkDiscovery(discovered.message, validators, config.transport === 'http' ? { allowBare: true } : { requestId: 'capabilities-1', allowBare: false })
      : { ok: false as const, error: `discovery: ${discovered.error}` };
    if (!discovery.ok) {
      log.error(discovery.error);
      return failAll(discovery.error);
    }

    const rows: ReportRow[] = [];
    for (const scenario of scenarios) {
      rows.push(await runRow(channel, scenario, validators, config.watchdogs.requestMs ?? REQUEST_WATCHDOG_MS));
    }
    return rows;
  } finally {
    await channel.close();
  }
}

async function runRow(channel: AhpChannel, scenario: Scenario, validators: ProtocolValidators, watchdogMs: number): Promise<ReportRow> {
  if (!validators.interceptRequest(scenario.request).valid) {
    return failedRow(scenario, 'request: scenario request fails the intercept-request schema (not sent)');
  }
  const refusal = semanticRefusal(scenario.request, 'intercept');
  if (refusal !== undefined) return failedRow(scenario, `request: refusing to send a request that breaks the spec (not sent): ${refusal}`);
  const received = await channel.exchange(scenario.request, watchdogMs);
  if (!received.ok) return failedRow(scenario, received.error);
  return judgeVerdict(scenario, evaluate(scenario.request, received.message, validators));
}

async function writeReport(file: string, results: ReportRow[]): Promise<void> {
  const report: Report = { language: ADAPTER_LANGUAGE, results };
  await writeJsonAtomic(file, report);
}

runClientMain(log, main, {
  interrupted: async () => activeChannel?.close(),
  failed: async () => activeChannel?.close(),
  killNow: () => stdioChannel?.killNow(),
});
