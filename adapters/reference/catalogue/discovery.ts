// The catalogue client's one discovery (CATALOGUE-RULES §5), before any row: the request
// `{jsonrpc, id:"catalogue-discovery", method:"hooks/capabilities", params:{protocolVersion}}` through
// the event transport with event auth; the reply must be a capabilities-response-valid JSON-RPC
// response correlated to that id. Its manifest is the only host-capability input of every `register`
// step. The reply as received goes into the report's `discovery`, also when it is refused.

import { catalogueDiscoveryRequest, CATALOGUE_DISCOVERY_ID } from '../../../harness/families/catalogue/reference-manifest.ts';
import type { JsonValue } from '../../../harness/protocol/json.ts';
import type { ProtocolValidators } from '../../../harness/protocol/validator-types.ts';
import { checkDiscovery } from '../lib/discovery.ts';
import type { CatalogueTransport } from './catalogue-transport.ts';

export type Discovered =
  | { ok: true; response: JsonValue; manifest: unknown }
  | { ok: false; error: string; /** The reply when one arrived (parsed), for the report. */ response: JsonValue | null };

export async function discoverOnce(transport: CatalogueTransport, validators: Pick<ProtocolValidators, 'capabilitiesResponse' | 'capabilities'>): Promise<Discovered> {
  const received = await transport.discover(catalogueDiscoveryRequest(CATALOGUE_DISCOVERY_ID));
  if (!received.ok) return { ok: false, error: `discovery: ${received.error}`, response: null };
  const response = received.message as JsonValue;
  const check = checkDiscovery(response, validators, { requestId: CATALOGUE_DISCOVERY_ID, allowBare: false });
  if (!check.ok) return { ok: false, error: check.error, response };
  return { ok: true, response, manifest: (response as { result: { manifest: unknown } }).result.manifest };
}
