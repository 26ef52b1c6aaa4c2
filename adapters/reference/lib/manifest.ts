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

/**
 * What HTTP `GET /capabilities` answers: the bare capability set the intercept endpoint offers (the
 * object `capabilities.schema.json` describes), as every SDK server in the ecosystem does. It is the
 * union over the manifest's intercept events; the per-event sets stay in the manifest, which
 * `POST /capabilities` and stdio discovery (`hooks/capabilities`) return.
 */
export function endpointCapabilities(mode: AuthMode): JsonObject {
  const events = buildManifest(mode).events as Array<{ capabilities: JsonObject }>;
  const effects = [...new Set(events.flatMap((entry) => entry.capabilities.effects as string[]))];
  const flows = events.map((entry) => entry.capabilities.flow as JsonObject | undefined).filter((flow) => flow !== undefined);
  const operations = [...new Set(flows.flatMap((flow) => flow.operations as string[]))];
  const toolBefore = events[0]!.capabilities;
  return {
    effects,
    modify: toolBefore.modify!,
    // Continue needs its allowance details, which only the finish boundary's set carries.
    flow: { ...Object.assign({}, ...flows), operations },
    inject: toolBefore.inject!,
  };
}

/** The `result` of a successful hooks/capabilities response. */
export function capabilitiesResult(mode: AuthMode): JsonObject {
  return { protocolVersion: PROTOCOL_VERSION, manifest: buildManifest(mode) };
}
