// A minimal scenario row whose scripted reply is a single `allow` effect, for tests that need rows but
// not what they mean (scenario-file handling, process machinery). The caller says what the event
// looks like, which effects the request advertises and what result the row expects.

import type { JsonObject } from '../../../harness/protocol/json.ts';
import type { InterceptEvent } from '../../../harness/protocol/messages.ts';
import type { Scenario } from '../../../harness/scenarios/types.ts';

export interface AllowScenarioShape {
  /** The event without its id (the row's id is used). */
  event: Omit<InterceptEvent, 'id'> & { type: string };
  /** capabilities.effects of the request. */
  effects: string[];
  expected: JsonObject;
  tags?: string[];
}

/** Row `id` in `shape`, with `extra` keys added (or replacing the built ones). */
export function allowScenario(id: string, shape: AllowScenarioShape, extra: Partial<Scenario> = {}): Scenario {
  return {
    id,
    request: {
      jsonrpc: '2.0',
      id,
      method: 'hooks/intercept',
      params: {
        protocolVersion: 'draft',
        event: { id, ...shape.event },
        capabilities: { effects: shape.effects },
      },
    },
    response: { jsonrpc: '2.0', id, result: { effects: [{ type: 'allow' }] } },
    expected: shape.expected,
    ...(shape.tags ? { tags: shape.tags } : {}),
    ...extra,
  };
}
