// The receiver-probe tests a family defines (receiver-probe-suite.ts names them the same way), as the
// rows a baseline entry may name.

import type { LoadedAdapter } from '../adapters/types.ts';
import type { BaselineRow } from '../baseline/baseline.ts';
import type { ResolvedConfig } from '../config/load-config.ts';

/** The receiver probe tests of a family: `<server> <mode>` › `receiver/<probe>` per lifecycle server, over HTTP only. */
export function receiverProbeRows(config: ResolvedConfig, adapters: Iterable<LoadedAdapter>, project: string, probes: ReadonlyArray<{ name: string }>): BaselineRow[] {
  if (!config.transports.includes('http')) return [];
  const rows: BaselineRow[] = [];
  for (const adapter of adapters) {
    if (!adapter.manifest.lifecycleServer) continue;
    for (const mode of config.auth) for (const probe of probes) rows.push({ project, group: `${adapter.name} ${mode}`, id: `receiver/${probe.name}` });
  }
  return rows;
}
