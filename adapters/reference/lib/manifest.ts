// The capability manifest the reference server publishes through hooks/capabilities. It describes
// the synthetic fixture host the shared scenarios assume: tool.before and turn.finish.before in
// intercept mode, with what the reference client's oracle can actually apply. Honest coverage: what
// is not covered is listed in `gaps`, and unknown limits are absent and explained there.

import type { AuthMode } from '../auth.ts';
import { manifestAuthentication } from '../auth.ts';
import type { JsonObject } from '../../../harness/protocol/json.ts';
import { PROTOCOL_VERSION } from '../../../harness/protocol/messages.ts';

/** Continuations the fixture host allows per turn; advertised as the manifest-wide bound. */
const MAX_CONTINUATIONS = 3;

export function buildManifest(mode: AuthMode): JsonObject {
  return {
    events: [
      {
        event: 'tool.before',
        modes: ['intercept'],
        capabilities: {
          effects: ['deny', 'allow', 'ask', 'modify', 'message', 'return', 'flow', 'inject'],
          modify: { input: { replace: true, merge: true } },
          flow: { operations: ['stop'] },
          inject: { context: { append: true, deliverAt: ['now', 'next_turn'] } },
        },
      },
      {
        event: 'turn.finish.before',
        modes: ['intercept'],
        capabilities: {
          effects: ['flow', 'message'],
          flow: {
            operations: ['stop', 'continue'],
            remainingContinuations: MAX_CONTINUATIONS,
            continuationCount: 0,
            maxContinuations: MAX_CONTINUATIONS,
          },
        },
      },
    ],
    gaps: [
      { path: 'events', reason: 'only tool.before and turn.finish.before are delivered by this scripted fixture host' },
      { path: 'turn.finish.before.modify', reason: 'response modification at turn.finish.before is not applied by the reference client' },
      { path: 'limits.maxUploadBytes', reason: 'content uploads are not supported, so no upload limit exists' },
    ],
    transports: ['http', 'stdio'],
    authentication: manifestAuthentication(mode),
    toolPaths: [],
    contentCategories: [],
    limits: { maxContinuations: MAX_CONTINUATIONS, minTimeoutMs: 1, maxTimeoutMs: 60_000 },
    managedPolicy: { scopes: ['managed'], disableable: false },
    correlationIdentityFields: ['event.id'],
  };
}

/** The `result` of a successful hooks/capabilities response. */
export function capabilitiesResult(mode: AuthMode): JsonObject {
  return { protocolVersion: PROTOCOL_VERSION, manifest: buildManifest(mode) };
}
