// One client adapter run for a client-side credential probe: the client is handed the hostile
// endpoint directly (no harness proxy: the hostile endpoint IS the harness's), runs a small scenario
// file under the run watchdog, and its report is read back. Nothing else: no server adapter, no
// receipts. The config carries credentials, so it is written 0600 in the run's own folder, which the
// caller's run dir removal takes away.
//
// Never throws for adapter misbehaviour: a spawn failure, a timeout or a missing report becomes one of
// `failures` (fixed labels, our own words, the log file named, never adapter output).

import { mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import type { ProcessExit } from '../../adapters/launch.ts';
import { writePrivateJson } from '../../adapters/private-json.ts';
import type { LoadedAdapter } from '../../adapters/types.ts';
import { readJsonFile, runClientProcess } from '../../runs/client-process.ts';
import { serializeScenarioFile } from '../../scenarios/load-scenarios.ts';
import type { Scenario } from '../../scenarios/types.ts';
import type { ClientAuthSettings } from '../../auth/auth-settings.ts';
import { fileNamePart } from '../../adapters/file-name-part.ts';

export interface ProbeClientRun {
  client: LoadedAdapter;
  /** The hostile AHP endpoint, exactly as the client config's `endpoint`. */
  endpoint: string;
  /** The client config's `auth` object (the run's trust, with a hostile token endpoint when probed). */
  auth: ClientAuthSettings;
  scenarios: Scenario[];
  schemasDir: string;
  /** Parent folder; the run gets a fresh folder inside. */
  workDir: string;
  /** A short name for the run's folder. */
  name: string;
  /** Run watchdog. */
  runMs: number;
  /** Grace between SIGTERM and SIGKILL. Default 1000. */
  graceMs?: number;
}

export interface ProbeClientOutcome {
  /** The parsed report, or undefined (see failures). */
  report: unknown;
  exit: ProcessExit | undefined;
  timedOut: boolean;
  /** `[stage/kind] message` lines: the run could not give a usable report. */
  failures: string[];
  /** The client's captured stdout and stderr. */
  logFile: string;
}

export async function runProbeClient(run: ProbeClientRun): Promise<ProbeClientOutcome> {
  const dir = mkdtempSync(path.join(run.workDir, `${fileNamePart(run.name, 60)}-`));
  const files = {
    scenarioFile: path.join(dir, 'scenarios.json'),
    config: path.join(dir, 'client-config.json'),
    reportFile: path.join(dir, 'report.json'),
    logFile: path.join(dir, 'client.log'),
  };
  const graceMs = run.graceMs ?? 1000;
  const failures: string[] = [];
  const who = `client "${run.client.name}"`;
  writeFileSync(files.scenarioFile, serializeScenarioFile({ version: 1, scenarios: run.scenarios }));
  writePrivateJson(files.config, {
    transport: 'http',
    endpoint: run.endpoint,
    scenarioFile: files.scenarioFile,
    reportFile: files.reportFile,
    auth: run.auth,
    schemaDir: run.schemasDir,
  });

  const ran = await runClientProcess({
    command: [...run.client.manifest.client, '--config', files.config],
    cwd: run.client.cwd,
    logFile: files.logFile,
    runMs: run.runMs,
    graceMs,
  });
  if (!ran.started) {
    failures.push(`[spawn/${ran.spawnError.code}] ${who}: ${ran.spawnError.message}; see ${files.logFile}`);
    return { report: undefined, exit: undefined, timedOut: false, failures, logFile: files.logFile };
  }
  const { exit, timedOut } = ran;
  if (timedOut) failures.push(`[run/timeout] ${who} did not finish within the run watchdog (${run.runMs} ms); its process tree was killed; see ${files.logFile}`);
  if (!timedOut && exit.signal !== null) failures.push(`[run/signal] ${who} was ended by signal ${exit.signal}; see ${files.logFile}`);
  if ((exit.leftovers ?? 0) > 0) failures.push(`[run/leftover-process] ${who} left ${exit.leftovers} process(es) running after it exited; the harness killed them`);
  const report = readJsonFile(files.reportFile, (kind, message) => failures.push(`[report/${kind}] ${who}: ${message}; see ${files.logFile}`), 'report');
  return { report, exit, timedOut, failures, logFile: files.logFile };
}
