// The auth family's hooks (family-hooks.ts): its configured rows, the server probes per endpoint and
// the client probes. Both probe the core adapters with the core scenarios, so they exist only when
// the config names a core scenario file.

import type { BaselineRow } from '../../baseline/baseline.ts';
import type { FamilyHooks } from '../family-hooks.ts';
import { CLIENT_PROBE_TEST, clientProbeCases, clientProbeLabel, planClientProbes } from './client-probe-cases.ts';
import { planAuthProbes, PROBE_ENDPOINTS, probeCases } from './probes.ts';

export const hooks: FamilyHooks = {
  async configuredRows(config, adapters) {
    if (!config.scenarios.core) return [];
    const rows: BaselineRow[] = [];
    for (const target of planAuthProbes(config, adapters)) {
      for (const probe of probeCases(target.mode)) {
        for (const endpoint of PROBE_ENDPOINTS) rows.push({ project: 'auth', group: `${target.server.name} ${target.mode}/${probe.name}`, id: endpoint });
      }
    }
    for (const target of planClientProbes(config, adapters)) {
      for (const probe of clientProbeCases(target.mode)) rows.push({ project: 'auth', group: clientProbeLabel(target, probe), id: CLIENT_PROBE_TEST });
    }
    return rows;
  },
};
