// The elicitation grid (ELICITATION-RULES §1): every directed sender × receiver pair of the configured
// adapters (an adapter with itself included), over HTTP with the pair's own bearers only — the grid
// does not follow the config's transports and modes, it is fixed by what it proves. The config's
// `pairings` restrict it (server = receiver, client = sender). A pair where either adapter has no
// `elicitation` command, declared or at its conventional location, is planned `unsupported`.

import type { LoadedAdapter } from '../../adapters/types.ts';
import type { Pairing } from '../../config/define-config.ts';
import type { MatrixGroup } from '../../runs/plan.ts';
import { resolvePairCommands } from './pair-commands.ts';

/** `<sender>→<receiver> http/bearer`: the describe name of every test of the pair. */
export function pairLabel(sender: string, receiver: string): string {
  return `${sender}→${receiver} http/bearer`;
}

export function planElicitationPairs(adapters: Map<string, LoadedAdapter>, pairings: readonly Pairing[] | null): MatrixGroup[] {
  const names = [...adapters.keys()];
  const pairs = pairings ?? names.flatMap((sender) => names.map((receiver) => ({ server: receiver, client: sender })));
  return pairs.map((pairing, rank) => {
    const sender = adapters.get(pairing.client);
    const receiver = adapters.get(pairing.server);
    if (!sender || !receiver) throw new Error(`pairing ${pairing.server}→${pairing.client} names an adapter that is not loaded`);
    const group: MatrixGroup = { label: pairLabel(sender.name, receiver.name), rank, server: receiver, client: sender, transport: 'http', auth: 'bearer' };
    const commands = resolvePairCommands(sender, receiver);
    if (!commands.ok) group.unsupported = commands.reason;
    return group;
  });
}
