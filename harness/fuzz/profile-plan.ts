// Which generation profile each fuzz target gets, and the groups of targets that share one (a batch
// is generated once per group and judged by every target in it).
//
// - A pairing whose server and client are both the embedded reference adapter (adapters/reference)
//   is ours: `wide`, unconstrained, as CI has always fuzzed it.
// - Any other pairing: `host`, inside the envelope its adapters' discovery advertises — the
//   intersection of the server adapter's and the client adapter's (each SDK's own server describes
//   the synthetic host its client plays), discovered through the pairing's transport.
// - AHP_FUZZ_PROFILE=host|wide forces one profile on every pairing. In-process targets are `wide`.
//
// A failed discovery leaves its targets out and says why, with the discovery's config and logs
// copied next to the counterexamples.

import { cpSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';

import type { LoadedAdapter } from '../adapters/types.ts';
import type { Transport } from '../config/define-config.ts';
import { projectRoot } from '../config/load-config.ts';
import { discoverCapabilities } from '../runs/discover-capabilities.ts';
import {
  EnvelopeError,
  envelopeFromBareCapabilities,
  envelopeFromManifest,
  intersectEnvelopes,
  WIDE_PROFILE,
  type FuzzProfile,
  type HostEnvelope,
} from './host-envelope.ts';
import type { ProfileName } from './parameters.ts';
import type { FuzzTarget } from './targets.ts';
import { fileNamePart } from '../adapters/file-name-part.ts';

export interface FuzzGroup {
  profile: FuzzProfile;
  targets: FuzzTarget[];
}

export interface FuzzPlan {
  groups: FuzzGroup[];
  /** Targets left out, each with why (a discovery that failed, an envelope with nothing to fuzz). */
  problems: string[];
}

/** The host envelope of one adapter over one transport; throws EnvelopeUnavailable when there is none. */
export type EnvelopeSource = (adapter: LoadedAdapter, transport: Transport) => Promise<HostEnvelope>;

export class EnvelopeUnavailable extends Error {
  override readonly name = 'EnvelopeUnavailable';
}

const REFERENCE_DIR = path.join(projectRoot(), 'adapters', 'reference');

/** True for the embedded reference adapter (its folder), the one adapter this project owns. */
export function isReferenceAdapter(adapter: LoadedAdapter): boolean {
  return samePath(adapter.cwd, REFERENCE_DIR) && samePath(adapter.adapterFile, path.join(REFERENCE_DIR, 'interop', 'adapter.json'));
}

export async function planFuzzGroups(targets: FuzzTarget[], options: { override?: ProfileName; envelopeOf: EnvelopeSource }): Promise<FuzzPlan> {
  const groups: FuzzGroup[] = [];
  const problems: string[] = [];
  // Targets whose envelopes offer the same share one group (and its batches), whatever they came from.
  const add = (profile: FuzzProfile, target: FuzzTarget): void => {
    const group = groups.find((g) => profileKey(g.profile) === profileKey(profile));
    if (!group) {
      groups.push({ profile, targets: [target] });
      return;
    }
    group.targets.push(target);
    if (group.profile.name === 'host' && profile.name === 'host') {
      const { envelope } = group.profile;
      const sources = [...envelope.sources, ...profile.envelope.sources.filter((source) => !envelope.sources.includes(source))];
      group.profile = { name: 'host', envelope: { ...envelope, sources } };
    }
  };
  for (const target of targets) {
    const replay = target.replay;
    const ours = !replay || (isReferenceAdapter(replay.server) && isReferenceAdapter(replay.client));
    const name = options.override ?? (ours ? 'wide' : 'host');
    if (name === 'wide' || !replay) {
      add(WIDE_PROFILE, target);
      continue;
    }
    try {
      const server = await options.envelopeOf(replay.server, replay.transport);
      const envelope =
        replay.client.name === replay.server.name ? server : intersectEnvelopes(server, await options.envelopeOf(replay.client, replay.transport));
      add({ name: 'host', envelope }, target);
    } catch (error) {
      if (!(error instanceof EnvelopeUnavailable || error instanceof EnvelopeError)) throw error;
      problems.push(`${target.label} left out: ${error.message}`);
    }
  }
  return { groups, problems };
}

/**
 * Envelopes discovered through the real transport (runs/discover-capabilities.ts), once per adapter
 * and transport. A failed discovery's folder is copied to `<evidenceDir>/<adapter>-discovery-<transport>/`
 * and the message points there.
 */
export function discoveredEnvelopes(options: {
  schemasDir: string;
  workDir: string;
  watchdogs: { startupMs: number };
  evidenceDir: string;
}): EnvelopeSource {
  const cache = new Map<string, Promise<HostEnvelope>>();
  return (adapter, transport) => {
    const key = `${adapter.name}\u0000${transport}`;
    let found = cache.get(key);
    if (!found) {
      found = discover(adapter, transport);
      cache.set(key, found);
    }
    return found;
  };

  async function discover(adapter: LoadedAdapter, transport: Transport): Promise<HostEnvelope> {
    const found = await discoverCapabilities({ adapter, transport, schemasDir: options.schemasDir, workDir: options.workDir, startupMs: options.watchdogs.startupMs });
    if (found.ok) {
      return found.form === 'manifest' ? envelopeFromManifest(found.manifest, `manifest of ${found.via}`) : envelopeFromBareCapabilities(found.capabilities, found.via);
    }
    const kept = path.join(options.evidenceDir, `${fileNamePart(adapter.name)}-discovery-${transport}`);
    rmSync(kept, { recursive: true, force: true });
    cpSync(found.dir, kept, { recursive: true });
    rmSync(found.dir, { recursive: true, force: true });
    throw new EnvelopeUnavailable(
      `the host envelope of adapter "${adapter.name}" could not be discovered: ${found.problem.split(found.dir).join(kept)}; ` +
        `its config and logs are kept in ${kept}. AHP_FUZZ_PROFILE=wide fuzzes without an envelope.`,
    );
  }
}

function profileKey(profile: FuzzProfile): string {
  if (profile.name === 'wide') return 'wide';
  const { boundaries, toolPaths, maxContinuations } = profile.envelope;
  return JSON.stringify({ boundaries, toolPaths, maxContinuations });
}

function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return path.resolve(a) === path.resolve(b);
  }
}
