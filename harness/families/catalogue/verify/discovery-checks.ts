// The one real discovery (CATALOGUE-RULES §5, §6 (7)–(11)): exactly one `discovery` receipt; its
// request and response valid under the capabilities schemas; the client's copy of the response equal
// to the receiver's; the response correlated to the request; and a manifest that lets the catalogue
// run — every catalogue type observable, hook.failure absent, scopes exactly user then project.
// Discovery belongs to no single row, so every failure here is a run failure.

import { CATALOGUE_EVENT_TYPES, CATALOGUE_SCOPES, UNSUPPORTED_CATALOGUE_EVENT } from '../catalogue-events.ts';
import { isJsonObject, jsonEqual, type JsonObject } from '../../../protocol/json.ts';
import { jsonDiff } from '../../../protocol/json-diff.ts';
import { describeValue } from '../../../protocol/json-text.ts';
import type { ProtocolValidators } from '../../../protocol/validator-types.ts';
import type { Findings } from '../../../lifecycle-adapters/findings.ts';
import { CATALOGUE_LABEL, schemaErrorLabel } from './labels.ts';

export type DiscoveryValidators = Pick<ProtocolValidators, 'capabilitiesRequest' | 'capabilitiesResponse'>;

/** (7)–(11) over the receipt entries (in any position) and the report's own `discovery`. */
export function checkDiscovery(entries: readonly JsonObject[], report: JsonObject, validators: DiscoveryValidators, findings: Findings): void {
  const discoveries = entries.flatMap((entry, index) => (entry.kind === 'discovery' ? [{ entry, index }] : []));
  // (7)
  if (discoveries.length !== 1) {
    const where = discoveries.map((d) => `entries[${d.index}]`).join(', ');
    findings.run(
      CATALOGUE_LABEL.discoveryCount,
      'client or server',
      discoveries.length === 0 ? 'the receiver recorded no discovery exchange' : `the receiver recorded ${discoveries.length} discovery exchanges (${where}); the client must discover exactly once`,
    );
    return;
  }
  const { entry, index } = discoveries[0]!;
  const at = `entries[${index}]`;
  // (8)
  for (const error of validators.capabilitiesRequest(entry.request).errors) {
    findings.run(schemaErrorLabel(error), 'client', `the discovery request ${at}.request is not a valid hooks/capabilities request: ${error}`);
  }
  for (const error of validators.capabilitiesResponse(entry.response).errors) {
    findings.run(schemaErrorLabel(error), 'server', `the discovery response ${at}.response is not a valid hooks/capabilities response: ${error}`);
  }
  // (9)
  if (!jsonEqual(entry.response, report.discovery)) {
    findings.run(
      CATALOGUE_LABEL.discoveryDiffers,
      'client or server',
      `report.discovery differs from the response the receiver recorded at ${at}: ${jsonDiff(entry.response, report.discovery).join('; ')}`,
    );
  }
  // (10)
  if (!isJsonObject(entry.request) || !isJsonObject(entry.response)) {
    findings.run(CATALOGUE_LABEL.discoveryCorrelation, 'client or server', `${at}.request and ${at}.response must both be objects; got ${describeValue(entry.request)} and ${describeValue(entry.response)}`);
  } else if (!jsonEqual(entry.request.id, entry.response.id)) {
    findings.run(CATALOGUE_LABEL.discoveryCorrelation, 'server', `the discovery response id ${describeValue(entry.response.id)} does not answer request id ${describeValue(entry.request.id)}`);
  }
  // (11)
  if (isJsonObject(entry.response)) checkManifest(entry.response, at, findings);
}

function checkManifest(response: JsonObject, at: string, findings: Findings): void {
  const result = response.result;
  const manifest = isJsonObject(result) ? result.manifest : undefined;
  if (!isJsonObject(manifest)) {
    // Upstream's runner raises here and the group fails; no catalogue type can be advertised without a manifest.
    findings.run(CATALOGUE_LABEL.observationNotAdvertised, 'server', `${at}.response has no result.manifest object (result is ${describeValue(result)})`);
    return;
  }
  const entries = Array.isArray(manifest.events) ? manifest.events.filter(isJsonObject) : [];
  const observable = (type: string): boolean => entries.some((e) => e.event === type && Array.isArray(e.modes) && e.modes.includes('observe'));
  const missing = CATALOGUE_EVENT_TYPES.filter((type) => !observable(type));
  if (missing.length > 0) {
    findings.run(CATALOGUE_LABEL.observationNotAdvertised, 'server', `the manifest does not advertise observation of ${missing.join(', ')}`);
  }
  if (entries.some((e) => e.event === UNSUPPORTED_CATALOGUE_EVENT)) {
    findings.run(CATALOGUE_LABEL.hookFailureAdvertised, 'server', `the manifest advertises ${UNSUPPORTED_CATALOGUE_EVENT}, which no catalogue row can deliver`);
  }
  const scopes = isJsonObject(manifest.managedPolicy) ? manifest.managedPolicy.scopes : undefined;
  if (!jsonEqual(scopes, [...CATALOGUE_SCOPES])) {
    findings.run(CATALOGUE_LABEL.scopes, 'server', `managedPolicy.scopes is ${scopes === undefined ? 'missing' : JSON.stringify(scopes)}, expected exactly ${JSON.stringify(CATALOGUE_SCOPES)}`);
  }
}
