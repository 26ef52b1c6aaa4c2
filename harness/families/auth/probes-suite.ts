// Raw-wire endpoint-authentication probes: every configured server adapter × auth mode, every case of
// harness/families/auth/probes.ts against both `GET /capabilities` and `POST /intercept`. One describe per
// `<server> <mode>/<case>`, one test per endpoint, so `-t 'bearer/duplicate'` picks a family.
// Tests run in file order, one after another: receipts are diffed around each probe. Each (server,
// mode) is leased from the run's broker on first use and held until the file ends, so a selection
// starts only the servers (and builds only the trust) its probes need. A probe that never runs (an
// unsupported mode, or a policy the server is not given: probeSkipReason) is a skipped test whose
// note, and `ahpAuthProbe.skipReason` meta, is the reason: never a pass, never a fail.

import { afterAll, describe, inject, test } from 'vitest';

import { planAuthProbes, PROBE_ENDPOINTS, probeCases, probeScenario, ProbeSession, probeSkipReason, type ProbeTarget } from './probes.ts';
import { baselineFor } from '../../baseline/baseline-for.ts';
import { finishTest } from '../../baseline/finish-test.ts';
import { loadConfig } from '../../config/load-config.ts';
import { loadAdapters } from '../../runs/plan.ts';
import { loadScenarioFile } from '../../scenarios/load-scenarios.ts';
import { BrokerClient } from '../../setup/broker-client.ts';

declare module 'vitest' {
  interface TaskMeta {
    /** A skipped probe's reason, for tooling that reads vitest's JSON report (skip notes are not in it). */
    ahpAuthProbe?: { skipReason: string };
  }
}

/** The endpoint-authentication probes of every configured server × mode (the file comment above). */
export async function defineEndpointProbeSuite(): Promise<void> {
  const config = await loadConfig();
  const scenarioPath = config.scenarios.core!;
  const scenario = probeScenario(await loadScenarioFile(scenarioPath), scenarioPath);
  const targets = planAuthProbes(config, loadAdapters(config));
  const baseline = await baselineFor(config);
  // A lease may wait for its server to start (the startup watchdog) and for the mode's trust.
  const broker = new BrokerClient(inject('ahpBroker'), config.watchdogs.startupMs * 2 + 30_000);

  const sessions = new Map<string, Promise<ProbeSession>>();
  const leases: string[] = [];
  function sessionFor(target: ProbeTarget): Promise<ProbeSession> {
    let session = sessions.get(target.key);
    if (!session) {
      session = (async () => {
        const trust = await broker.trust(target.mode);
        const leased = await broker.lease(target.server.name, target.mode);
        if (leased.lease !== undefined) leases.push(leased.lease);
        if (leased.server.error) throw new Error(`[${leased.server.error.stage}/${leased.server.error.kind}] ${leased.server.error.message}`);
        return new ProbeSession({ server: leased.server.handle, mode: target.mode, scenario, trust: trust.probe });
      })();
      sessions.set(target.key, session);
    }
    return session;
  }
  afterAll(async () => {
    await Promise.all(leases.splice(0).map((lease) => broker.release(lease)));
  });

  for (const target of targets) {
    for (const probe of probeCases(target.mode)) {
      const label = `${target.server.name} ${target.mode}/${probe.name}`;
      const skip = probeSkipReason(target, probe);
      describe(label, () => {
        test.for(PROBE_ENDPOINTS)('%s', async (endpoint, context) => {
          if (skip) {
            context.task.meta.ahpAuthProbe = { skipReason: skip };
            context.skip(skip);
            return;
          }
          const problems = await (await sessionFor(target)).run(probe, endpoint);
          await finishTest(context, baseline, { project: 'auth', group: label, id: endpoint }, problems.length > 0 ? `${label} › ${endpoint}\n${problems.join('\n')}` : undefined);
        });
      });
    }
  }
}
