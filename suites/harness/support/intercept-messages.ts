// Intercept messages for the end-to-end tests of the reference adapter: the generator's fixture-host
// tool.before request (the fixture host's tool `task`, input {task: 1}) with the given capabilities, and a scripted
// success reply carrying the given effects.

import { toolRequest } from '../../../harness/families/core/generate.ts';
import { cloneJson, type JsonObject } from '../../../harness/protocol/json.ts';
import type { InterceptCapabilities, InterceptRequest } from '../../../harness/protocol/messages.ts';

/** A fresh tool.before request with id `id` (its event id, call id `call-<id>`). */
export function toolBeforeRequest(id: string, capabilities: object): InterceptRequest {
  return cloneJson(toolRequest(id, { capabilities: capabilities as InterceptCapabilities }));
}

/** A success reply to request `id` with `effects` (not validated: a test may script invalid ones). */
export function okResponse(id: string, effects: unknown[]): JsonObject {
  return { jsonrpc: '2.0', id, result: { protocolVersion: 'draft', effects } } as JsonObject;
}
