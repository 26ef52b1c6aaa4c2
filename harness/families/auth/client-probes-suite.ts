// Client-side credential probes: every configured client adapter × credentialed auth mode, every case
// of harness/families/auth/client-probe-cases.ts, the client pointed at a hostile endpoint the harness owns.
// One describe per `<client> <mode>/<case>` with one test, `client`, so `-t 'oauth/token-redirect'`
// picks a family. A file-level beforeAll starts the selected probes, `parallelism` at a time; each
// test waits for its own.

import path from 'node:path';

import { afterAll, beforeAll, describe, inject, test } from 'vitest';

import {
  CLIENT_PROBE_TEST,
  clientProbeCases,
  clientProbeLabel,
  clientProbeScenarios,
  planClientProbes,
  probeCapabilities,
  type ClientProbeCase,
  type ClientProbeTarget,
} from './client-probe-cases.ts';
import { runClientProbe, type ClientProbeResult } from './client-probes.ts';
import { baselineFor } from '../../baseline/baseline-for.ts';
import { finishTest } from '../../baseline/finish-test.ts';
import { loadConfig } from '../../config/load-config.ts';
import { keepLogs } from '../../runs/keep-logs.ts';
import { loadAdapters } from '../../runs/plan.ts';
import { loadScenarioFile } from '../../scenarios/load-scenarios.ts';
import { BrokerClient } from '../../setup/broker-client.ts';
import { openRunDir } from '../../setup/run-dir.ts';

/** The credential probes of every configured client × credentialed mode (the file comment above). */
export async function defineClientProbeSuite(): Promise<void> {
  const config = await loadConfig();
  const scenarioPath = config.scenarios.core!;
  const scenarios = clientProbeScenarios(await loadScenarioFile(scenarioPath), scenarioPath);
  const capabilities = probeCapabilities(scenarios[0]!, scenarioPath);
  const targets = planClientProbes(config, loadAdapters(config));
  const baseline = await baselineFor(config);
  // Each probe asks the run's broker for its mode's trust (built on first use).
  const broker = new BrokerClient(inject('ahpBroker'), config.watchdogs.startupMs * 2 + 30_000);
  const keptLogsDir = path.join(config.reports, 'logs', 'auth-client-probes');

  const probes = new Map<string, { target: ClientProbeTarget; probe: ClientProbeCase }>();
  for (const target of targets) for (const probe of clientProbeCases(target.mode)) probes.set(clientProbeLabel(target, probe), { target, probe });

  let runDir: ReturnType<typeof openRunDir> | undefined;
  const started = new Map<string, Promise<ClientProbeResult>>();
  let active = 0;
  const waiting: Array<() => void> = [];

  /** The probe's result, started at most once, at most `parallelism` client runs at a time. */
  function probeResult(label: string): Promise<ClientProbeResult> {
    let result = started.get(label);
    if (!result) {
      const { target, probe } = probes.get(label)!;
      result = (async () => {
        if (active >= config.parallelism) await new Promise<void>((resolve) => waiting.push(resolve));
        active++;
        try {
          runDir ??= openRunDir('ahp-auth-client-');
          return await runClientProbe({
            client: target.client,
            mode: target.mode,
            probe,
            scenarios,
            capabilities,
            trust: (await broker.trust(target.mode)).probe,
            schemasDir: config.schemas,
            workDir: runDir.path,
            runMs: config.watchdogs.runMs,
          });
        } finally {
          active--;
          waiting.shift()?.();
        }
      })();
      result.catch(() => undefined);
      started.set(label, result);
    }
    return result;
  }

  interface SuiteLike {
    name: string;
    type: string;
    mode: string;
    tasks?: SuiteLike[];
  }

  // eslint-disable-next-line no-empty-pattern -- vitest requires a destructuring pattern for fixtures
  beforeAll(({}, file) => {
    // Start every selected, runnable probe now, so they share the cores; tests then wait in file order.
    for (const child of (file as unknown as SuiteLike).tasks ?? []) {
      const entry = probes.get(child.name);
      if (!entry || entry.target.skip !== undefined || child.type !== 'suite') continue;
      if ((child.tasks ?? []).some((task) => task.type === 'test' && task.mode === 'run')) void probeResult(child.name);
    }
  });

  afterAll(async () => {
    await Promise.allSettled(started.values());
    runDir?.remove();
  });

  // A file without tests is an error to vitest; a run whose auth modes carry no client credentials
  // (`--auth none`) has no probe, and says so.
  if (probes.size === 0) test.skip('no client probes: no credentialed auth mode (bearer, oauth, mtls, workload) is configured');

  for (const [label, { target }] of probes) {
    describe(label, () => {
      // A test waits for its own client run at most (earlier ones were awaited by earlier tests).
      test(CLIENT_PROBE_TEST, { timeout: config.watchdogs.runMs + 30_000 }, async (context) => {
        if (target.skip) {
          context.skip(target.skip);
          return;
        }
        const result = await probeResult(label);
        let failure: string | undefined;
        if (result.problems.length > 0) {
          const kept = keepLogs([result.logFile], keptLogsDir);
          failure = `${label} › ${CLIENT_PROBE_TEST}\n${result.problems.join('\n')}${kept.length > 0 ? `\nlogs: ${kept.join(', ')}` : ''}`;
        }
        await finishTest(context, baseline, { project: 'auth', group: label, id: CLIENT_PROBE_TEST }, failure);
      });
    });
  }
}
