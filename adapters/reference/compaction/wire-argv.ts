// The wire adapter's argv. Receivers get their mode after the three paths
// (`<schemaDir> <storeDir> <configPath> server` / `… stdio <scope>`), as the protocol's runner
// starts them; the mode-first order is accepted too. A probe client appends one extra trailing
// `stdio` to a stdio receiver's command, which is ignored. The host is just `host`.

export type WireMode =
  | { mode: 'host' }
  | { mode: 'server'; schemaDir: string; storeDir: string; configPath: string }
  | { mode: 'stdio'; schemaDir: string; storeDir: string; configPath: string; scope: string };

export const WIRE_USAGE = 'usage: compaction-wire host | <schemaDir> <storeDir> <configPath> server | <schemaDir> <storeDir> <configPath> stdio <scope>';

const MODES = new Set(['host', 'server', 'stdio']);

export function parseWireArgv(argv: readonly string[]): WireMode | { error: string } {
  if (argv.length === 1 && argv[0] === 'host') return { mode: 'host' };
  // Mode first (`server <schemaDir> …`) is moved to the protocol's mode-last order.
  const ordered = MODES.has(argv[0] ?? '') && argv.length >= 4 ? [...argv.slice(1, 4), argv[0]!, ...argv.slice(4)] : [...argv];
  const [schemaDir, storeDir, configPath, mode, scope, ...rest] = ordered;
  if (schemaDir === undefined || storeDir === undefined || configPath === undefined || mode === undefined) return { error: WIRE_USAGE };
  if (mode === 'server' && scope === undefined) return { mode: 'server', schemaDir, storeDir, configPath };
  if (mode === 'stdio' && scope !== undefined && scope !== '' && (rest.length === 0 || (rest.length === 1 && rest[0] === 'stdio'))) {
    return { mode: 'stdio', schemaDir, storeDir, configPath, scope };
  }
  return { error: WIRE_USAGE };
}
