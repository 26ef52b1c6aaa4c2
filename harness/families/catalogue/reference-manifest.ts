// The manifest our reference catalogue receiver advertises, and its discovery exchange
// (CATALOGUE-RULES §4). It satisfies everything §6 (11) checks — every catalogue type observable,
// no hook.failure, scopes exactly user then project — and everything the registration rows rely on:
// tool.before interceptable with `modify` (input merge), model.error observation only, HTTP and
// bearer advertised, policy that users can disable, no timeout limit that excludes 500 ms. It is
// also what our own fixture generator evaluates registrations against; our registration rows are
// chosen so that any manifest meeting §4 gives the same outcomes. It advertises OAuth too, so that our
// OAuth rows reach the credential check (they are refused either way).

import type { JsonObject } from '../../protocol/json.ts';
import { CATALOGUE_EVENT_TYPES, CATALOGUE_SCOPES } from './catalogue-events.ts';

/** The id both reference clients give their one discovery request. */
export const CATALOGUE_DISCOVERY_ID = 'catalogue-discovery';

/** What tool.before lets an interceptor do at this receiver. */
const TOOL_BEFORE_CAPABILITIES: JsonObject = {
  effects: ['deny', 'allow', 'ask', 'modify', 'message'],
  modify: { input: { replace: true, merge: true } },
};

export function buildCatalogueManifest(): JsonObject {
  return {
    events: CATALOGUE_EVENT_TYPES.map(
      (event): JsonObject => (event === 'tool.before' ? { event, modes: ['observe', 'intercept'], capabilities: TOOL_BEFORE_CAPABILITIES } : { event, modes: ['observe'] }),
    ),
    gaps: [
      { path: 'events.hook.failure', reason: 'hook failures are not delivered to catalogue receivers' },
      { path: 'limits.maxUploadBytes', reason: 'catalogue rows carry no uploads' },
      { path: 'limits.maxContinuations', reason: 'catalogue rows intercept no turn boundary' },
    ],
    transports: ['http', 'stdio'],
    authentication: ['bearer', 'oauth'],
    toolPaths: ['native'],
    contentCategories: ['reasoning'],
    limits: { minTimeoutMs: 1, maxTimeoutMs: 60_000 },
    managedPolicy: { scopes: [...CATALOGUE_SCOPES], disableable: true },
    correlationIdentityFields: ['session.id', 'turn.id', 'call.id'],
  };
}

/** The one discovery request a catalogue client sends before any row. */
export function catalogueDiscoveryRequest(id: string | number = CATALOGUE_DISCOVERY_ID): JsonObject {
  return { jsonrpc: '2.0', id, method: 'hooks/capabilities', params: { protocolVersion: 'draft' } };
}

/** The receiver's answer to a discovery request with `id`. */
export function catalogueDiscoveryResponse(id: string | number): JsonObject {
  return { jsonrpc: '2.0', id, result: { protocolVersion: 'draft', manifest: buildCatalogueManifest() } };
}
