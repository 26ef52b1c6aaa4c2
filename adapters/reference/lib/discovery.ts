// Checks a capability-discovery reply.
// - stdio (and POST): a full JSON-RPC hooks/capabilities response that the capabilities-response
//   schema accepts, correlated to the request id.
// - HTTP GET /capabilities: the ecosystem's servers answer with the bare capability set
//   (capabilities.schema.json) — the form this client expects first. A JSON-RPC response envelope
//   or its bare `{protocolVersion, manifest}` result is accepted too, judged as the envelope.

import { isJsonObject } from '../../../harness/protocol/json.ts';
import { PROTOCOL_VERSION } from '../../../harness/protocol/messages.ts';
import type { ProtocolValidators } from '../../../harness/protocol/validator-types.ts';

export type DiscoveryCheck = { ok: true } | { ok: false; error: string };

export function checkDiscovery(
  reply: unknown,
  validators: Pick<ProtocolValidators, 'capabilitiesResponse' | 'capabilities'>,
  options: { requestId?: string | number; allowBare: boolean },
): DiscoveryCheck {
  if (!isJsonObject(reply)) return { ok: false, error: 'discovery: response is not a JSON object' };
  let envelope: unknown = reply;
  if (!('jsonrpc' in reply)) {
    if (!options.allowBare) return { ok: false, error: 'discovery: response is not a JSON-RPC envelope' };
    if (!('manifest' in reply)) {
      return validators.capabilities(reply).valid
        ? { ok: true }
        : { ok: false, error: 'discovery: response fails the capabilities schema (bare capability set)' };
    }
    envelope = { jsonrpc: '2.0', id: 'capabilities', result: reply };
  } else if (options.requestId !== undefined && reply.id !== options.requestId) {
    return { ok: false, error: 'discovery: response id does not correlate with the request' };
  }
  if (!validators.capabilitiesResponse(envelope).valid) {
    return { ok: false, error: 'discovery: response fails the capabilities-response schema' };
  }
  const result = (envelope as { result?: unknown }).result;
  if (!isJsonObject(result) || result.protocolVersion !== PROTOCOL_VERSION) {
    return { ok: false, error: `discovery: protocolVersion is not "${PROTOCOL_VERSION}"` };
  }
  return { ok: true };
}
