// Every wire message and registration of the protocol's catalogue file and of ours gets the same
// verdict from our schemas and the canonical ones, and the verdict the file implies: a message
// expected to be rejected for its schema is invalid, every other one valid. Registrations carry no
// expected schema verdict, so for them the two schema sets must simply agree. The reference
// receiver's discovery exchange is valid under both.

import path from 'node:path';

import { describe, expect, test } from 'vitest';

import { loadCatalogueScenarioFileSync } from '../../harness/families/catalogue/load-catalogue-scenarios.ts';
import { catalogueDiscoveryRequest, catalogueDiscoveryResponse } from '../../harness/families/catalogue/reference-manifest.ts';
import type { CatalogueScenarioFile } from '../../harness/families/catalogue/scenario-types.ts';
import { catalogueMessages } from '../../harness/families/catalogue/generate.ts';
import { CATALOGUE_SCENARIOS_FILE } from '../../harness/generate/fixture-target.ts';
import { canonicalInteropCandidate, canonicalInteropFile } from '../../harness/protocol/canonical-interop.ts';
import { canonicalSchemaCandidate, canonicalSchemaDir } from '../../harness/protocol/canonical-schemas.ts';
import { PROJECT_ROOT, loadValidators } from '../../harness/protocol/load-validators.ts';

const ours = loadValidators(path.join(PROJECT_ROOT, 'schemas'));
const canonicalSchemas = canonicalSchemaDir();
const canonical = canonicalSchemas ? loadValidators(canonicalSchemas) : undefined;
const canonicalFile = canonicalInteropFile('catalogue-scenarios.json');

const FILES: Array<[string, CatalogueScenarioFile | undefined]> = [
  [canonicalFile ? 'canonical catalogue-scenarios.json' : `canonical catalogue-scenarios.json (SKIPPED: none in ${canonicalInteropCandidate()})`, canonicalFile ? loadCatalogueScenarioFileSync(canonicalFile) : undefined],
  ['our fixtures/catalogue-scenarios.json', loadCatalogueScenarioFileSync(CATALOGUE_SCENARIOS_FILE)],
];

const registrations = (file: CatalogueScenarioFile) =>
  file.scenarios.flatMap((row) => row.steps.flatMap((step, k) => (step.op === 'register' ? [{ name: `${row.id} › steps[${k}].registration`, registration: step.registration }] : [])));

for (const [title, file] of FILES) {
  describe.skipIf(file === undefined)(title, () => {
    const messages = file ? catalogueMessages(file) : [];
    const documents = file ? registrations(file) : [];

    test('the file has messages of both verdicts and registrations', () => {
      expect(messages.some((m) => m.delivery?.errorKind === 'schema')).toBe(true);
      expect(messages.some((m) => m.delivery?.errorKind !== 'schema')).toBe(true);
      expect(documents.length).toBeGreaterThan(0);
    });

    test.each(messages.map((m) => [m.name, m] as const))('ours: %s', (_name, m) => {
      const wanted = m.delivery?.errorKind !== 'schema';
      const check = ours.observeNotification(m.message);
      expect(check.valid, check.errors.join('\n')).toBe(wanted);
    });

    describe.skipIf(canonical === undefined)(canonical ? 'canonical schemas agree' : `canonical schemas agree (SKIPPED: none at ${canonicalSchemaCandidate()})`, () => {
      test.each(messages.map((m) => [m.name, m] as const))('canonical: %s', (_name, m) => {
        const wanted = m.delivery?.errorKind !== 'schema';
        const check = canonical!.observeNotification(m.message);
        expect(check.valid, check.errors.join('\n')).toBe(wanted);
      });

      test.each(documents.map((d) => [d.name, d] as const))('registration: %s', (_name, d) => {
        expect(ours.registration(d.registration).valid).toBe(canonical!.registration(d.registration).valid);
      });
    });
  });
}

test('the reference discovery request and response are valid under our schemas and the canonical ones', () => {
  for (const validators of [ours, ...(canonical ? [canonical] : [])]) {
    expect(validators.capabilitiesRequest(catalogueDiscoveryRequest()).errors).toEqual([]);
    expect(validators.capabilitiesResponse(catalogueDiscoveryResponse('catalogue-discovery')).errors).toEqual([]);
  }
});
