// A synthetic honest catalogue run (CATALOGUE-RULES §7 "Base"): the receiver's log — one discovery
// entry, then one entry per expected message in file order — and the client's report with `actual`
// = expected minus deliveries. The entries are written out here from §4's wording rather than with
// the receiver helpers the verifier uses, so the two check each other. The verifier's self-tests
// start from it and break it one way at a time.

import path from 'node:path';

import type { Transport } from '../../../harness/config/define-config.ts';
import { loadCatalogueScenarioFileSync } from '../../../harness/families/catalogue/load-catalogue-scenarios.ts';
import { catalogueDiscoveryRequest, catalogueDiscoveryResponse } from '../../../harness/families/catalogue/reference-manifest.ts';
import type { CatalogueScenario } from '../../../harness/families/catalogue/scenario-types.ts';
import { CATALOGUE_SCENARIOS_FILE } from '../../../harness/generate/fixture-target.ts';
import { canonicalInteropCandidate, canonicalInteropFile } from '../../../harness/protocol/canonical-interop.ts';
import { cloneJson, type JsonObject } from '../../../harness/protocol/json.ts';
import { PROJECT_ROOT, loadValidators } from '../../../harness/protocol/load-validators.ts';
import type { CatalogueVerification } from '../../../harness/families/catalogue/verify/verify-catalogue-run.ts';
import { verifyCatalogueRun } from '../../../harness/families/catalogue/verify/verify-catalogue-run.ts';
import { deepFreeze } from './lifecycle-honest-run.ts';
import { labelsByPlace, type VerifierCase } from './verification-labels.ts';

export const validators = loadValidators(path.join(PROJECT_ROOT, 'schemas'));

const canonicalFile = canonicalInteropFile('catalogue-scenarios.json');
/** The canonical catalogue rows, or `undefined` when the file is absent (tests then skip). */
export const CANONICAL_ROWS: CatalogueScenario[] | undefined = canonicalFile ? loadCatalogueScenarioFileSync(canonicalFile).scenarios : undefined;
export const CANONICAL_SKIP = `SKIPPED: no catalogue-scenarios.json in ${canonicalInteropCandidate()}`;
export const OUR_ROWS: CatalogueScenario[] = loadCatalogueScenarioFileSync(CATALOGUE_SCENARIOS_FILE).scenarios;

/** One run's evidence, free to be broken before it is verified. */
export type CatalogueCase = VerifierCase<CatalogueScenario>;

export function honestCatalogueCase(rows: readonly CatalogueScenario[], transport: Transport = 'http', language = 'python'): CatalogueCase {
  const selected = cloneJson([...rows]);
  const request = { jsonrpc: '2.0', id: 'catalogue-discovery', method: 'hooks/capabilities', params: { protocolVersion: 'draft' } };
  const response = catalogueDiscoveryResponse('catalogue-discovery');
  if (JSON.stringify(request) !== JSON.stringify(catalogueDiscoveryRequest())) throw new Error('the honest run and the reference client disagree on the discovery request');
  const entries: JsonObject[] = [{ kind: 'discovery', request, response: cloneJson(response) }];
  for (const row of selected) {
    row.expected.sent.forEach((message, k) => {
      const delivery = row.expected.deliveries[k]!;
      const params = message.params as JsonObject | undefined;
      const event = params?.event as JsonObject | undefined;
      const eventId = event?.id ?? null;
      entries.push(
        delivery.accepted
          ? { kind: 'observed', eventId, event: cloneJson(event ?? null), message: cloneJson(message) }
          : { kind: 'rejected', eventId, message: cloneJson(message), errorKind: delivery.errorKind },
      );
    });
  }
  const report: JsonObject = {
    language,
    discovery: cloneJson(response),
    results: selected.map((row) => ({ id: row.id, status: 'passed', actual: cloneJson({ sent: row.expected.sent, registrations: row.expected.registrations }) })),
  };
  const receipts = { entries };
  if (transport === 'stdio') report.receipts = receipts;
  return { rows: selected, transport, report, receipts, exitCode: 0, clientLanguage: language, entries };
}

/** The verifier on the case, every input deep-frozen first. */
export function verifyCase(c: CatalogueCase): CatalogueVerification {
  return verifyCatalogueRun(
    deepFreeze({ rows: c.rows, transport: c.transport, report: c.report, receipts: c.receipts, exitCode: c.exitCode, clientLanguage: c.clientLanguage, validators }),
  );
}

/** Labels by where they landed: `run` and each row that has any. */
export const catalogueLabels = labelsByPlace;

/** Every label that fired, wherever it landed, without repeats. */
export function allLabels(v: CatalogueVerification): string[] {
  const found = labelsByPlace(v);
  return [...new Set([...found.run, ...Object.values(found.rows).flat()])].sort();
}
