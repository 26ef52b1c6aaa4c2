import type { AuthMode, Pairing, Transport } from '../config/define-config.ts';
import type { ResolvedConfig } from '../config/load-config.ts';
import { loadAdapter } from '../adapters/adapter-manifest.ts';
import type { LoadedAdapter } from '../adapters/types.ts';

/** One `<server>→<client> <transport>/<auth>` cell of the matrix. */
export interface MatrixGroup {
  /** Stable key and vitest describe name: `<server>→<client> <transport>/<auth>`. */
  label: string;
  /** Position in the planner's whole list (before sharding): the order the reports list groups in. */
  rank: number;
  server: LoadedAdapter;
  client: LoadedAdapter;
  transport: Transport;
  auth: AuthMode;
  /** Set when the cell can never run (e.g. stdio with an HTTP auth mode); the reason is shown as the skip note. */
  inapplicable?: string;
  /**
   * Set when the server or client adapter declares (adapter.json `auth`) which modes it implements
   * and this group's mode is not among them. Never run and no server is started; every row is a
   * skipped test with this reason, never a pass.
   */
  unsupported?: string;
}

/** True when the group can run at all (neither inapplicable nor unsupported). */
export function isRunnable(group: MatrixGroup): boolean {
  return group.inapplicable === undefined && group.unsupported === undefined;
}

/** The skip reason of a group that never runs, or undefined when it runs. */
export function notRunReason(group: MatrixGroup): string | undefined {
  return group.inapplicable ?? group.unsupported;
}

/**
 * Why `auth` is unsupported by the pairing, or undefined when both adapters implement it (or do not
 * declare their modes at all).
 */
export function unsupportedReason(server: LoadedAdapter, client: LoadedAdapter, auth: AuthMode): string | undefined {
  const lacking = [server, client].filter((adapter) => adapter.manifest.auth !== undefined && !adapter.manifest.auth.includes(auth));
  const names = [...new Set(lacking.map((adapter) => adapter.name))];
  if (names.length === 0) return undefined;
  const who = names.length === 1 ? `adapter "${names[0]}" does not` : `adapters ${names.map((name) => `"${name}"`).join(' and ')} do not`;
  return `unsupported: ${who} implement auth mode "${auth}" (interop/adapter.json auth)`;
}

/** Loads and validates every configured adapter.json up front, so a broken one fails fast. */
export function loadAdapters(config: ResolvedConfig): Map<string, LoadedAdapter> {
  return new Map(config.adapters.map((entry) => [entry.name, loadAdapter(entry)]));
}

export function groupLabel(server: string, client: string, transport: Transport, auth: AuthMode): string {
  return `${server}→${client} ${transport}/${auth}`;
}

/**
 * The matrix in a stable order: pairings (configured, or every server × every client including an
 * adapter with itself), then transports, then auth modes. Stdio is process trust only, so stdio with
 * any other auth mode is inapplicable — listed (and skipped with that reason), never run. A mode that
 * the server or client adapter's adapter.json `auth` list leaves out is unsupported — likewise listed,
 * skipped with that reason and never run, and so is a pairing that lacks what the suite family
 * needs (`requirement`, e.g. lifecycle commands). Inapplicable wins when both hold.
 */
/**
 * What a suite family needs of a pairing beyond the core commands (e.g. the lifecycle commands):
 * the `unsupported: ...` reason when the pairing lacks it, or undefined.
 */
export type PairingRequirement = (server: LoadedAdapter, client: LoadedAdapter) => string | undefined;

export function planMatrix(config: ResolvedConfig, adapters: Map<string, LoadedAdapter>, requirement?: PairingRequirement): MatrixGroup[] {
  const names = [...adapters.keys()];
  const pairings: Pairing[] = config.pairings ?? names.flatMap((server) => names.map((client) => ({ server, client })));
  const groups: MatrixGroup[] = [];
  for (const pairing of pairings) {
    const server = adapters.get(pairing.server);
    const client = adapters.get(pairing.client);
    if (!server || !client) throw new Error(`pairing ${pairing.server}→${pairing.client} names an adapter that is not loaded`);
    for (const transport of config.transports) {
      for (const auth of config.auth) {
        const group: MatrixGroup = { label: groupLabel(server.name, client.name, transport, auth), rank: groups.length, server, client, transport, auth };
        if (transport === 'stdio' && auth !== 'none') {
          group.inapplicable = `inapplicable: stdio uses process trust only; auth mode "${auth}" applies to HTTP`;
        } else {
          const unsupported = requirement?.(server, client) ?? unsupportedReason(server, client, auth);
          if (unsupported) group.unsupported = unsupported;
        }
        groups.push(group);
      }
    }
  }
  return groups;
}

/** Key of a shared HTTP server: one per (server adapter, auth mode) per run. */
export function httpServerKey(adapter: string, auth: AuthMode): string {
  return `${adapter}/${auth}`;
}

/** The HTTP servers the runnable groups need, each once. */
export function httpServersNeeded(groups: MatrixGroup[]): Array<{ adapter: LoadedAdapter; auth: AuthMode; key: string }> {
  const needed = new Map<string, { adapter: LoadedAdapter; auth: AuthMode; key: string }>();
  for (const group of groups) {
    if (group.transport !== 'http' || !isRunnable(group)) continue;
    const key = httpServerKey(group.server.name, group.auth);
    if (!needed.has(key)) needed.set(key, { adapter: group.server, auth: group.auth, key });
  }
  return [...needed.values()];
}

/**
 * The lifecycle family (and the catalogue, which runs through the same adapters) needs the server's
 * `lifecycleServer` and the client's `lifecycleClient` command.
 */
export const needsLifecycleCommands: PairingRequirement = (server, client) => {
  const lacking = [
    ...(server.manifest.lifecycleServer ? [] : [`adapter "${server.name}" has no lifecycleServer command`]),
    ...(client.manifest.lifecycleClient ? [] : [`adapter "${client.name}" has no lifecycleClient command`]),
  ];
  return lacking.length > 0 ? `unsupported: ${lacking.join(' and ')} (interop/adapter.json)` : undefined;
};

/** Every row id in every group, as a report labels the test: `{project, group, id}`. */
export function matrixRows(project: string, groups: readonly MatrixGroup[], ids: readonly string[]): Array<{ project: string; group: string; id: string }> {
  return groups.flatMap((group) => ids.map((id) => ({ project, group: group.label, id })));
}
