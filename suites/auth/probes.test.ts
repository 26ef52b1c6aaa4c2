// Raw-wire endpoint-authentication probes: every configured server adapter × auth mode, every case of
// harness/auth/probes.ts against both `GET /capabilities` and `POST /intercept`. One describe per
// `<server> <mode>/<case>`, one test per endpoint, so `-t 'bearer/duplicate'` picks a family.
// Tests run in file order, one after another: receipts are diffed around each probe.

import { describe, inject, test } from 'vitest';

import { planAuthProbes, PROBE_ENDPOINTS, probeCases, probeScenario, ProbeSession, type ProbeTarget } from '../../harness/auth/probes.ts';
import { baselineFor } from '../../harness/baseline/baseline-for.ts';
import { finishTest } from '../../harness/baseline/finish-test.ts';
import { loadConfig } from '../../harness/config/load-config.ts';
import { loadAdapters } from '../../harness/runs/plan.ts';
import { loadScenarioFile } from '../../harness/scenarios/load-scenarios.ts';

const config = await loadConfig();
const scenarioPath = config.scenarios.core!;
const scenario = probeScenario(await loadScenarioFile(scenarioPath), scenarioPath);
const targets = planAuthProbes(config, loadAdapters(config));
const baseline = await baselineFor(config);
const servers = inject('ahpAuthServers');
const trust = inject('ahpAuthTrust');

const sessions = new Map<string, ProbeSession>();
function sessionFor(target: ProbeTarget): ProbeSession {
  const provided = servers[target.key];
  if (!provided) throw new Error(`harness bug: server ${target.key} was not started by the auth globalSetup`);
  if (provided.error) throw new Error(`[${provided.error.stage}/${provided.error.kind}] ${provided.error.message}`);
  let session = sessions.get(target.key);
  if (!session) sessions.set(target.key, (session = new ProbeSession({ server: provided.handle, mode: target.mode, scenario, trust })));
  return session;
}

for (const target of targets) {
  for (const probe of probeCases(target.mode)) {
    const label = `${target.server.name} ${target.mode}/${probe.name}`;
    describe(label, () => {
      test.for(PROBE_ENDPOINTS)('%s', async (endpoint, context) => {
        if (target.skip) {
          context.skip(target.skip);
          return;
        }
        const problems = await sessionFor(target).run(probe, endpoint);
        await finishTest(context, baseline, { project: 'auth', group: label, id: endpoint }, problems.length > 0 ? `${label} › ${endpoint}\n${problems.join('\n')}` : undefined);
      });
    });
  }
}
