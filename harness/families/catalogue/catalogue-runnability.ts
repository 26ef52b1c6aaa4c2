// The runnability rules of a catalogue scenario file (see scenarios/runnability.ts), read off the
// client duties of CATALOGUE-RULES §5 and the message rules of §3. Pure; runs on a file that already
// passed lintCatalogueScenarioFile.
//
//   - §5 notify/rawNotify: after every send the client calls `POST /wait-observed {eventId, count}`
//     with the message's `params.event.id`, so every sent message carries one (a string, the type of
//     an event id). A message that cannot name an event is judged by the receiver probes instead
//     (catalogue-receiver-probes.ts), where the harness sends the bytes itself.
//   - §5 notify: the message goes through the SDK's public observe path and the wire must equal the
//     fixture, so it is exactly the notification such a path writes: `{jsonrpc:"2.0",
//     method:"hooks/observe", params:{protocolVersion, event}}` and nothing else (no `id`, no extra
//     params). Anything else can only go raw.
//   - §3 messages / §5 aliases: a catalogue run uploads nothing (no upload steps, `contentSources:[]`),
//     so no message may carry a `body: {ref}`: no ref can be ready at the receiver.

import { isJsonObject, type JsonObject } from '../../protocol/json.ts';
import { describeValue } from '../../protocol/json-text.ts';
import { indexPath, joinPath } from '../../scenarios/json-path.ts';
import { bodyReferences, type RunnabilityProblem, type RunnabilityRule } from '../../scenarios/runnability.ts';
import { isMessageStep, type CatalogueScenarioFile } from './scenario-types.ts';

export const CATALOGUE_RUNNABILITY_RULES = {
  waitObservedEventId: {
    section: 'CATALOGUE-RULES §5 notify/rawNotify',
    demand: 'sends only messages with a string params.event.id, the eventId the client passes to POST /wait-observed after the send',
  },
  notifyWire: {
    section: 'CATALOGUE-RULES §5 notify',
    demand: 'sends through the SDK (notify) only a message an SDK observe path writes unchanged: {jsonrpc:"2.0", method:"hooks/observe", params:{protocolVersion, event}}',
  },
  noUploadedBodies: {
    section: 'CATALOGUE-RULES §3 messages',
    demand: 'sends no body reference ({ref}): a catalogue run uploads nothing, so no ref is ready at the receiver',
  },
} as const satisfies Record<string, RunnabilityRule>;

/** Every runnability problem of a well-formed catalogue file, in document order. */
export function catalogueRunnabilityProblems(file: CatalogueScenarioFile): RunnabilityProblem[] {
  const problems: RunnabilityProblem[] = [];
  file.scenarios.forEach((row, i) => {
    const report = (path: string, rule: RunnabilityRule, problem: string): void => {
      problems.push({ row: row.id, path, rule, problem });
    };
    row.steps.forEach((step, j) => {
      if (!isMessageStep(step)) return;
      const at = joinPath(indexPath(joinPath(indexPath('scenarios', i), 'steps'), j), 'message');
      const missing = missingEventId(step.message, at);
      if (missing !== undefined) {
        report(missing.path, CATALOGUE_RUNNABILITY_RULES.waitObservedEventId, `expected ${missing.wanted} (the client waits on it after sending), got ${missing.got}`);
      }
      if (step.op === 'notify') {
        const off = notifyWireProblem(step.message, at);
        if (off !== undefined) report(off.path, CATALOGUE_RUNNABILITY_RULES.notifyWire, `${off.problem}; a message an SDK would not write goes as rawNotify`);
      }
      for (const { path } of bodyReferences(step.message, at)) {
        report(path, CATALOGUE_RUNNABILITY_RULES.noUploadedBodies, 'expected inline or metadata-only content, got a body reference (nothing is uploaded in a catalogue run)');
      }
    });
  });
  return problems;
}

/** Where the event id the client needs is missing: the deepest absent or wrong level. */
function missingEventId(message: JsonObject, at: string): { path: string; wanted: string; got: string } | undefined {
  const paramsAt = joinPath(at, 'params');
  if (!isJsonObject(message.params)) return { path: paramsAt, wanted: 'a params object holding the event', got: describeValue(message.params) };
  const eventAt = joinPath(paramsAt, 'event');
  const event = message.params.event;
  if (!isJsonObject(event)) return { path: eventAt, wanted: 'an event object with an id', got: describeValue(event) };
  if (typeof event.id !== 'string') return { path: joinPath(eventAt, 'id'), wanted: 'the event id (a string)', got: describeValue(event.id) };
  return undefined;
}

function notifyWireProblem(message: JsonObject, at: string): { path: string; problem: string } | undefined {
  const extra = Object.keys(message).filter((key) => !['jsonrpc', 'method', 'params'].includes(key));
  if (extra.length > 0) return { path: joinPath(at, extra[0]!), problem: `expected only jsonrpc, method and params, got ${JSON.stringify(extra[0])} as well` };
  if (message.jsonrpc !== '2.0') return { path: joinPath(at, 'jsonrpc'), problem: `expected "2.0", got ${describeValue(message.jsonrpc)}` };
  if (message.method !== 'hooks/observe') return { path: joinPath(at, 'method'), problem: `expected "hooks/observe", got ${describeValue(message.method)}` };
  // A params object without an event is the wait-observed rule's finding; only extra params are this rule's.
  if (!isJsonObject(message.params)) return undefined;
  const extraParams = Object.keys(message.params).filter((key) => !['protocolVersion', 'event'].includes(key));
  if (extraParams.length > 0) return { path: joinPath(joinPath(at, 'params'), extraParams[0]!), problem: `expected only protocolVersion and event in params, got ${JSON.stringify(extraParams[0])} as well` };
  if (message.params.protocolVersion === undefined) return { path: joinPath(joinPath(at, 'params'), 'protocolVersion'), problem: 'expected the protocolVersion every notification carries, got nothing (missing)' };
  return undefined;
}
