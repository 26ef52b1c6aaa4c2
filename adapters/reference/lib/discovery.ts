// Checks a capability-discovery reply. Accepted: a full JSON-RPC hooks/capabilities response that
// the capabilities-response schema accepts (correlated to the request id when there was one); over
// HTTP GET also a bare `{protocolVersion, manifest}` result, judged as if it were wrapped.

import { isJsonObject } from '../../../harness/protocol/json.ts';
import { PROTOCOL_VERSION } from '../../../harness/protocol/messages.ts';
import type { ProtocolValidators } from '../../../harness/protocol/validator-types.ts';

export type DiscoveryCheck = { ok: true } | { ok: false; error: string };

export function checkDiscovery(
  reply: unknown,
  validators: Pick<ProtocolValidators, 'capabilitiesResponse'>,
  options: { requestId?: string | number; allowBare: boolean },
): DiscoveryCheck {
  if (!isJsonObject(reply)) return { ok: false, error: 'discovery: response is not a JSON object' };
  let envelope: unknown = reply;
  if (!('jsonrpc' in reply)) {
    if (!options.allowBare || !('manifest' in reply)) return { ok: false, error: 'discovery: response is not a JSON-RPC envelope' };
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
