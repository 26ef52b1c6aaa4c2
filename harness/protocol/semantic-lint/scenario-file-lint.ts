// The semantic lint of a whole scenario file, any family's (core, lifecycle, catalogue; ours or the
// protocol's): every message the file makes a client send, judged by the spec's MUSTs beside the
// schemas. It reads rows by the keys that carry sent messages, so one walk serves every format:
//   core       `request`                                     (a hooks/intercept request)
//   lifecycle  `requests.<key>`, `chainProof.requests[i]`,   (requests; the chain's calls)
//              `chainProof.observations[i]`, observe steps' `items`
//   catalogue  `steps[i].message` of notify and rawNotify    (hooks/observe notifications)
// Scripted responses are not linted: negative rows break response rules on purpose, and the oracle
// judges responses. A rawNotify whose expected delivery is a schema rejection is not linted either:
// the row means it to be invalid. One the receiver must reject for lineage breaks identity on
// purpose, so it is left out of the event-id uniqueness rule (and, never recorded, frees its id).

import { isJsonObject, jsonEqual, type JsonObject } from '../json.ts';
import { indexPath, joinPath } from '../../scenarios/json-path.ts';
import { lintContentItems, lintSentMessage, type SentKind } from './message-rules.ts';
import { SEMANTIC_RULES, type SemanticRuleId } from './rules.ts';

/** One broken MUST: the file, the row (its id, or `scenarios[i]`), the JSON path in the file, the rule. */
export interface SemanticProblem {
  file: string;
  row: string;
  path: string;
  rule: SemanticRuleId;
  message: string;
}

/** How a sent message relates to the file's events: a new event, or another delivery of the row's boundary. */
type Role = { kind: 'event'; identityTested?: true } | { kind: 'delivery'; of: JsonObject; ofAt: string };

interface Sent {
  row: string;
  at: string;
  kind: SentKind;
  message: unknown;
  role: Role;
}

export function formatSemanticProblem(problem: SemanticProblem): string {
  return `${problem.file} › ${problem.row} › ${problem.path || '(row)'}: [${problem.rule}] ${problem.message}`;
}

/** Every semantic problem of `file` (parsed JSON), in document order; `fileName` names it in each problem. */
export function lintScenarioFileSemantics(file: unknown, fileName: string): SemanticProblem[] {
  const problems: SemanticProblem[] = [];
  const rows = isJsonObject(file) && Array.isArray(file.scenarios) ? file.scenarios : [];
  const sent: Sent[] = [];
  rows.forEach((row, i) => {
    if (!isJsonObject(row)) return;
    const at = indexPath('scenarios', i);
    const rowName = typeof row.id === 'string' && row.id !== '' ? row.id : at;
    collectRow(row, at, rowName, sent, problems, fileName);
  });

  let snapshot: { value: string; at: string } | undefined;
  const firstEvent = new Map<string, { row: string; at: string; event: JsonObject }>();
  for (const item of sent) {
    const add = (path: string, rule: SemanticRuleId, message: string) => problems.push({ file: fileName, row: item.row, path, rule, message });
    for (const p of lintSentMessage(item.message, item.kind, item.at)) add(p.path, p.rule, p.message);
    const params = isJsonObject(item.message) && isJsonObject(item.message.params) ? item.message.params : undefined;
    const version = params?.protocolVersion;
    if (typeof version === 'string') {
      if (snapshot === undefined) snapshot = { value: version, at: joinPath(joinPath(item.at, 'params'), 'protocolVersion') };
      else if (version !== snapshot.value) {
        add(joinPath(joinPath(item.at, 'params'), 'protocolVersion'), SEMANTIC_RULES.protocolVersion.id, `one file speaks one snapshot: ${snapshot.at} says ${JSON.stringify(snapshot.value)}, this says ${JSON.stringify(version)}`);
      }
    }
    const event = isJsonObject(params?.event) ? params.event : undefined;
    if (event === undefined) continue;
    const eventAt = joinPath(joinPath(item.at, 'params'), 'event');
    if (item.role.kind === 'event') {
      if ((typeof event.id !== 'string' && typeof event.id !== 'number') || item.role.identityTested === true) continue;
      const key = JSON.stringify([event.source ?? null, event.id]);
      const earlier = firstEvent.get(key);
      if (earlier === undefined) firstEvent.set(key, { row: item.row, at: eventAt, event });
      // The same event again, unchanged, is a retry (AHP-CORE-004), not a second event.
      else if (!jsonEqual(earlier.event, event)) {
        add(joinPath(eventAt, 'id'), SEMANTIC_RULES.eventIdUnique.id, `event id ${JSON.stringify(event.id)} of source ${JSON.stringify(event.source)} is already the id of another event (${earlier.at}, row ${earlier.row})`);
      }
    } else {
      const boundary = item.role.of;
      for (const field of ['id', 'source'] as const) {
        if (event[field] !== boundary[field]) {
          add(joinPath(eventAt, field), SEMANTIC_RULES.sameLogicalEvent.id, `expected the boundary's event ${field} ${JSON.stringify(boundary[field])} (${item.role.ofAt}), got ${JSON.stringify(event[field])}`);
        }
      }
    }
  }
  return problems;
}

function collectRow(row: JsonObject, at: string, rowName: string, sent: Sent[], problems: SemanticProblem[], fileName: string): void {
  if (row.request !== undefined) sent.push({ row: rowName, at: joinPath(at, 'request'), kind: 'intercept', message: row.request, role: { kind: 'event' } });

  const requestsAt = joinPath(at, 'requests');
  const requests = isJsonObject(row.requests) ? Object.entries(row.requests) : [];
  for (const [key, request] of requests) sent.push({ row: rowName, at: joinPath(requestsAt, key), kind: 'intercept', message: request, role: { kind: 'event' } });

  const proof = row.chainProof;
  const first = requests[0];
  if (isJsonObject(proof) && first !== undefined && isJsonObject(first[1]) && isJsonObject(first[1].params) && isJsonObject(first[1].params.event)) {
    const role: Role = { kind: 'delivery', of: first[1].params.event, ofAt: joinPath(joinPath(joinPath(requestsAt, first[0]), 'params'), 'event') };
    const proofAt = joinPath(at, 'chainProof');
    for (const [list, kind] of [['requests', 'intercept'], ['observations', 'observe']] as const) {
      const messages = proof[list];
      if (Array.isArray(messages)) messages.forEach((message, k) => sent.push({ row: rowName, at: indexPath(joinPath(proofAt, list), k), kind, message, role }));
    }
  }

  const steps = Array.isArray(row.steps) ? row.steps : [];
  const deliveries = isJsonObject(row.expected) && Array.isArray(row.expected.deliveries) ? row.expected.deliveries : [];
  let messageStep = 0;
  steps.forEach((step, j) => {
    if (!isJsonObject(step)) return;
    const stepAt = indexPath(joinPath(at, 'steps'), j);
    if (step.op === 'observe' && Array.isArray(step.items)) {
      for (const p of lintContentItems(step.items, joinPath(stepAt, 'items'))) problems.push({ file: fileName, row: rowName, ...p });
    }
    if (step.op !== 'notify' && step.op !== 'rawNotify') return;
    const delivery = deliveries[messageStep++];
    const rejectedFor = step.op === 'rawNotify' && isJsonObject(delivery) ? delivery.errorKind : null;
    if (rejectedFor === 'schema') return;
    const role: Role = rejectedFor === 'lineage' ? { kind: 'event', identityTested: true } : { kind: 'event' };
    sent.push({ row: rowName, at: joinPath(stepAt, 'message'), kind: 'observe', message: step.message, role });
  });
}
