// The compaction grid (COMPACTION-RULES §1): every configured pairing as sender → receiver, on each
// configured transport, HTTP with bearer (one scope per subscription) and stdio with process trust
// (`stdio/none`, as every family names it). The config's auth modes do not apply: the rules fix one
// per transport. A pair whose sender or receiver has no `compactionWire` command (declared or at
// the conventional location) is planned `unsupported` with that reason, and nothing starts.

import type { LoadedAdapter } from '../../adapters/types.ts';
import { familyCommand } from '../../adapters/family-command.ts';
import type { AuthMode, Pairing, Transport } from '../../config/define-config.ts';
import { groupLabel, type MatrixGroup } from '../../runs/plan.ts';

export const TRANSPORT_AUTH: Record<Transport, AuthMode> = { http: 'bearer', stdio: 'none' };

export function planCompactionPairs(adapters: Map<string, LoadedAdapter>, transports: readonly Transport[], pairings?: readonly Pairing[]): MatrixGroup[] {
  const names = [...adapters.keys()];
  // A pairing's `server` is the receiver and its `client` the sender, as in every family.
  const list = pairings ?? names.flatMap((server) => names.map((client) => ({ server, client })));
  const groups: MatrixGroup[] = [];
  for (const transport of (['http', 'stdio'] as const).filter((t) => transports.includes(t))) {
    for (const pairing of list) {
      const receiver = adapters.get(pairing.server);
      const sender = adapters.get(pairing.client);
      if (!receiver || !sender) throw new Error(`pairing ${pairing.server}→${pairing.client} names an adapter that is not loaded`);
      const auth = TRANSPORT_AUTH[transport];
      const group: MatrixGroup = { label: groupLabel(sender.name, receiver.name, transport, auth), rank: groups.length, server: receiver, client: sender, transport, auth };
      const lacking = [sender, ...(receiver === sender ? [] : [receiver])].map((adapter) => familyCommand(adapter, 'compactionWire')).flatMap((lookup) => (lookup.ok ? [] : [lookup.reason]));
      if (lacking.length > 0) group.unsupported = `unsupported: ${lacking.join('; ')}`;
      groups.push(group);
    }
  }
  return groups;
}
