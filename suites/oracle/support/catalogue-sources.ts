// What the catalogue oracle tests run against besides our own files: the protocol's canonical
// catalogue file and the schema sets to judge with (ours always, the canonical ones when present).
// Each comes with a name that says why it is skipped when it is absent.

import path from 'node:path';

import { loadCatalogueScenarioFileSync } from '../../../harness/families/catalogue/load-catalogue-scenarios.ts';
import type { CatalogueScenarioFile } from '../../../harness/families/catalogue/scenario-types.ts';
import { canonicalInteropCandidate, canonicalInteropFile } from '../../../harness/protocol/canonical-interop.ts';
import { canonicalSchemaCandidate, canonicalSchemaDir } from '../../../harness/protocol/canonical-schemas.ts';
import { PROJECT_ROOT } from '../../../harness/protocol/load-validators.ts';

const canonicalFile = canonicalInteropFile('catalogue-scenarios.json');

/** The protocol's catalogue file, or `undefined` when it is not there. */
export const CANONICAL_CATALOGUE: CatalogueScenarioFile | undefined = canonicalFile ? loadCatalogueScenarioFileSync(canonicalFile) : undefined;

/** `title`, or `title (SKIPPED: ...)` when the canonical catalogue file is absent. */
export function canonicalCatalogueTitle(title: string): string {
  return CANONICAL_CATALOGUE ? title : `${title} (SKIPPED: no catalogue-scenarios.json in ${canonicalInteropCandidate()})`;
}

const canonicalSchemas = canonicalSchemaDir();

/** Schema directories to judge with: `[name, dir]`, `dir` undefined (skip) when the canonical set is absent. */
export const SCHEMA_SETS: ReadonlyArray<readonly [string, string | undefined]> = [
  ['our schemas', path.join(PROJECT_ROOT, 'schemas')],
  [canonicalSchemas ? 'the canonical schemas' : `the canonical schemas (SKIPPED: none at ${canonicalSchemaCandidate()})`, canonicalSchemas],
];
