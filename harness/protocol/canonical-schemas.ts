import { existsSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../config/load-config.ts';

/** Where the protocol's canonical `schema/draft` directory is looked for when AHP_CANONICAL_SCHEMAS is unset. */
export const DEFAULT_CANONICAL_SCHEMAS = path.resolve(projectRoot(), '..', 'shared', 'reference', 'schema');

/**
 * The protocol's canonical schema directory for the differential tests and benches:
 * `AHP_CANONICAL_SCHEMAS`, else `../shared/reference/schema` beside the checkout (where CI puts it).
 * `undefined` when the chosen directory holds no canonical schemas; callers skip with that reason.
 */
export function canonicalSchemaDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = env.AHP_CANONICAL_SCHEMAS || DEFAULT_CANONICAL_SCHEMAS;
  return existsSync(path.join(dir, 'intercept-request.schema.json')) ? dir : undefined;
}

/** The directory `canonicalSchemaDir` looks at, for skip messages. */
export function canonicalSchemaCandidate(env: NodeJS.ProcessEnv = process.env): string {
  return env.AHP_CANONICAL_SCHEMAS || DEFAULT_CANONICAL_SCHEMAS;
}
