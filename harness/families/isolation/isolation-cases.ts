import type { LoadedAdapter } from '../../adapters/types.ts';
import type { AuthMode, Transport } from '../../config/define-config.ts';
import { groupLabel, needsLifecycleCommands, unsupportedReason, type MatrixGroup } from '../../runs/plan.ts';

/** The six cases per sender (§1): four credentialed HTTP modes, then the HTTP and stdio controls. */
export const ISOLATION_CASES: ReadonlyArray<{ transport: Transport; auth: AuthMode; credential: boolean }> = [
  { transport: 'http', auth: 'bearer', credential: true },
  { transport: 'http', auth: 'oauth', credential: true },
  { transport: 'http', auth: 'workload', credential: true },
  { transport: 'http', auth: 'mtls', credential: true },
  { transport: 'http', auth: 'none', credential: false },
  { transport: 'stdio', auth: 'none', credential: false },
];

/**
 * Every configured adapter as a sender against its own lifecycle server, in each case: 6 per adapter
 * (the protocol's grid is 24 for its four SDKs). A case the adapter cannot run — no lifecycle commands,
 * or a mode its adapter.json `auth` leaves out — is planned `unsupported`. The grid does not follow the
 * config's transports and modes: it is fixed by what it proves.
 */
export function planIsolationCases(adapters: Iterable<LoadedAdapter>): MatrixGroup[] {
  const groups: MatrixGroup[] = [];
  for (const adapter of adapters) {
    for (const { transport, auth } of ISOLATION_CASES) {
      const group: MatrixGroup = { label: groupLabel(adapter.name, adapter.name, transport, auth), rank: groups.length, server: adapter, client: adapter, transport, auth };
      const unsupported = needsLifecycleCommands(adapter, adapter) ?? unsupportedReason(adapter, adapter, auth);
      if (unsupported) group.unsupported = unsupported;
      groups.push(group);
    }
  }
  return groups;
}
