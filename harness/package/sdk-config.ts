// What the CLI tests when it runs in an SDK's folder: the config it builds, before validation. With
// no config file, the SDK in the working directory is paired with the embedded reference adapter in
// both directions and with itself (never reference with reference: that is our own CI's business),
// and with every `--adapter` peer. Flags then override the config's keys; paths given as flags are
// relative to the working directory, paths in a config file to that file's folder.

import { existsSync } from 'node:fs';
import path from 'node:path';

import type { AdapterEntry, Pairing, UserConfig } from '../config/define-config.ts';
import { loadAdapter } from '../adapters/adapter-manifest.ts';
import { FAMILY_COMMAND_FIELDS, type FamilyCommandField } from '../adapters/adapter-manifest.ts';
import { familyCommand } from '../adapters/family-command.ts';
import type { AdapterManifest, LoadedAdapter } from '../adapters/types.ts';
import type { CliRun } from './cli-args.ts';
import { REFERENCE_DIR } from './reference-cwd.ts';
import { SUITE_ROOT, type Suite } from './suite-projects.ts';
import { FAMILIES } from '../families/family.ts';

export const REFERENCE_NAME = 'reference';
/** Config files the CLI and the helper pick up from an SDK's root, in this order. */
export const CONFIG_NAMES = ['ahp.config.ts', 'ahp.config.mjs', 'ahp.config.json'] as const;

/** The config file in `cwd` the CLI uses without `--config`, if there is one. */
export function findConfigFile(cwd: string): string | undefined {
  return CONFIG_NAMES.map((name) => path.join(cwd, name)).find((file) => existsSync(file));
}

export interface SdkAdapter extends LoadedAdapter {
  name: string;
  manifest: AdapterManifest;
}

/**
 * The SDK in `cwd`, read from its interop/adapter.json (validated; an AdapterError names the file and
 * field). Named after its `language`, or `sdk` where that would collide with the reference's name.
 */
export function sdkInFolder(cwd: string): SdkAdapter {
  const adapterFile = path.join(cwd, 'interop', 'adapter.json');
  if (!existsSync(adapterFile)) {
    throw new Error(`${adapterFile}: not found — run ahp-conformance in an SDK's root (the folder holding interop/adapter.json), pass --config FILE, or run \`ahp-conformance init\``);
  }
  const probe = loadAdapter({ name: 'sdk', cwd, adapterFile });
  const language = probe.manifest.language.trim().toLowerCase().replace(/[^a-z0-9_.-]+/g, '-');
  const name = language === '' || language === REFERENCE_NAME ? 'sdk' : language;
  return { ...probe, name };
}

/** The config the CLI runs when there is no config file. */
export function zeroConfig(cwd: string, sdk: SdkAdapter): UserConfig {
  return {
    adapters: [
      { name: sdk.name, cwd },
      { name: REFERENCE_NAME, cwd: REFERENCE_DIR },
    ],
    pairings: [
      { server: sdk.name, client: sdk.name },
      { server: sdk.name, client: REFERENCE_NAME },
      { server: REFERENCE_NAME, client: sdk.name },
    ],
    reports: path.join(cwd, 'reports'),
  };
}

/**
 * The suites an adapter has the commands for: the families whose every `adapterKeys` entry its
 * adapter.json declares (lifecycle, catalogue and isolation need the lifecycle pair), or, for the
 * elicitation and compaction commands, finds at the protocol's conventional location: SDKs ship those
 * without declaring them, as the protocol's runners expect.
 */
export function suitesFor(adapter: LoadedAdapter): Suite[] {
  const has = (key: string): boolean =>
    adapter.manifest[key] !== undefined || ((FAMILY_COMMAND_FIELDS as readonly string[]).includes(key) && familyCommand(adapter, key as FamilyCommandField).ok);
  return FAMILIES.filter((family) => family.adapterKeys.every(has)).map((family) => family.name as Suite);
}

/** `config` with the run's flags applied; `cwd` anchors the flags' paths. */
export function applyFlags(config: UserConfig, run: CliRun, cwd: string): UserConfig {
  const fromCwd = (file: string): string => path.resolve(cwd, file);
  const next: UserConfig = { ...config };
  if (run.transports) next.transports = run.transports;
  if (run.auth) next.auth = run.auth;
  if (run.schemas !== undefined) next.schemas = fromCwd(run.schemas);
  if (run.baseline !== undefined) next.baseline = fromCwd(run.baseline);
  if (run.reports !== undefined) next.reports = fromCwd(run.reports);
  if (run.blind) next.blind = true;
  if (Object.keys(run.scenarios).length > 0) {
    const scenarios = Object.fromEntries(Object.entries(run.scenarios).map(([suite, file]) => [suite, fromCwd(file)]));
    next.scenarios = { ...(config.scenarios ?? defaultScenarios()), ...scenarios };
  }
  if (run.adapters.length > 0) {
    const peers: AdapterEntry[] = run.adapters.map(({ name, dir }) => ({ name, cwd: fromCwd(dir) }));
    next.adapters = [...(config.adapters ?? []), ...peers];
    // Peers are paired with what the config tests, both ways, not with each other.
    if (config.pairings) next.pairings = [...config.pairings, ...peerPairings(config.adapters ?? [], peers)];
  }
  return next;
}

function peerPairings(tested: readonly AdapterEntry[], peers: readonly AdapterEntry[]): Pairing[] {
  const own = tested.filter((entry) => entry.name !== REFERENCE_NAME);
  return own.flatMap((sdk) => peers.flatMap((peer) => [{ server: sdk.name, client: peer.name }, { server: peer.name, client: sdk.name }]));
}

/** Our scenario files, so that `--scenarios core=FILE` keeps the other suites' defaults. */
function defaultScenarios(): Record<string, string> {
  const fixtures = path.join(SUITE_ROOT, 'fixtures');
  return {
    core: path.join(fixtures, 'scenarios.json'),
    lifecycle: path.join(fixtures, 'lifecycle-scenarios.json'),
    catalogue: path.join(fixtures, 'catalogue-scenarios.json'),
  };
}
