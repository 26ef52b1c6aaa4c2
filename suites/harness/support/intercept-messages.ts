// Hand-written intercept messages for the end-to-end tests of the reference adapter: a tool.before
// request (tool `task.run`, input {task: 1}, the fixture host's source and time) with the given
// capabilities, and a scripted success reply carrying the given effects.

import type { JsonObject } from '../../../harness/protocol/json.ts';
import type { InterceptRequest } from '../../../harness/protocol/messages.ts';

/** A fresh tool.before request with id `id` (its event id, call id `call-<id>`). */
export function toolBeforeRequest(id: string, capabilities: object): InterceptRequest {
  return JSON.parse(
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'hooks/intercept',
      params: {
        protocolVersion: 'draft',
        event: {
          id,
          source: 'urn:ahp:interop:fixture-host',
          type: 'tool.before',
          time: '2026-01-01T00:00:00Z',
          call: { id: `call-${id}` },
          tool: { name: 'task.run', input: { task: 1 }, origin: 'native' },
          path: 'task.run',
        },
        capabilities,
      },
    }),
  ) as InterceptRequest;
}

/** A success reply to request `id` with `effects` (not validated: a test may script invalid ones). */
export function okResponse(id: string, effects: unknown[]): JsonObject {
  return { jsonrpc: '2.0', id, result: { protocolVersion: 'draft', effects } } as JsonObject;
}
