import { existsSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../config/load-config.ts';

/** Where the protocol's `interop/canonical` fixture files are looked for when AHP_CANONICAL_INTEROP is unset. */
export const DEFAULT_CANONICAL_INTEROP = path.resolve(projectRoot(), '..', 'shared', 'reference', 'interop', 'canonical');

/** The directory `canonicalInteropFile` looks in, for skip messages. */
export function canonicalInteropCandidate(env: NodeJS.ProcessEnv = process.env): string {
  return env.AHP_CANONICAL_INTEROP || DEFAULT_CANONICAL_INTEROP;
}

/**
 * One of the protocol's canonical interop fixture files (`lifecycle-scenarios.json`,
 * `observation-chain-scenarios.json`, ...) for the tests that check our loaders and schemas against
 * them: in `AHP_CANONICAL_INTEROP`, else `../shared/reference/interop/canonical` beside the checkout
 * (where CI puts it). `undefined` when the file is not there; callers skip with that reason.
 */
export function canonicalInteropFile(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = path.join(canonicalInteropCandidate(env), name);
  return existsSync(file) ? file : undefined;
}
