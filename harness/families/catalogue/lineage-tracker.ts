// The catalogue receiver's judgement of one `hooks/observe` notification (CATALOGUE-RULES §4 and
// task-workspace-lineage.md): first the observe-notification schema (`schema`), then source-local
// lineage (`lineage`). One tracker lives for a whole server process, so lineage spans every row of a
// run. Pure: no I/O, no clock; the validator comes in compiled.
//
// The rules, as numbered in §4:
//  1. an event is identified by (source, id); its parent is (source, parentEventId) — never another source's;
//  2. task/workspace/file events are schema-checked by the observe schema (and reach a receiver only as
//     observations); a task.change.after `update` needs a non-empty `change` that is not a no-op against
//     a present `prior`; a workspace.change.after is not a no-op either; a file.changed `update` does not
//     carry equal `before` and `after` snapshots;
//  3. an identity seen again keeps its type, its parent and (tasks) its task id;
//  4. walking up from the parent must never reach the event itself or loop (a self-parent is a cycle);
//     a parent the receiver never saw is legal (it may have been filtered);
//  5. a known parent of a task.change.after that is a task.change.before shares the task id and the
//     operation; a known parent of a workspace.change.after that is a workspace.change.before shares the
//     kind. Proposed and applied values are never compared;
//  6. when a parent arrives late, rule 5 applies to every recorded child that names it;
//  7. only an event that passes every check is recorded: a rejection leaves no trace.

import { isJsonObject, jsonEqual, type JsonObject } from '../../protocol/json.ts';
import type { ProtocolValidators } from '../../protocol/validator-types.ts';

/** Which lineage rule refused an event: `change` (2), `identity` (3), `cycle` (4), `parent` (5), `late-parent` (6). */
export type LineageRule = 'change' | 'identity' | 'cycle' | 'parent' | 'late-parent';

export type LineageVerdict =
  | { accepted: true }
  | { accepted: false; errorKind: 'schema'; reason: string }
  | { accepted: false; errorKind: 'lineage'; rule: LineageRule; reason: string };

export type LineageValidators = Pick<ProtocolValidators, 'observeNotification'>;

/** What lineage needs to remember of an accepted event. */
interface LineageRecord {
  source: string;
  id: string;
  type: string;
  parentEventId: string | undefined;
  /** task.change.*: the task's id and operation. */
  task?: { id: unknown; operation: unknown };
  /** workspace.change.*: the workspace change's kind. */
  workspaceKind?: unknown;
}

const identityKey = (source: string, id: string): string => JSON.stringify([source, id]);
const describe = (record: Pick<LineageRecord, 'type' | 'id'>): string => `${record.type} ${JSON.stringify(record.id)}`;

export class LineageTracker {
  private readonly records = new Map<string, LineageRecord>();
  /** Parent identity key → identity keys of the recorded events that name it. */
  private readonly childrenOf = new Map<string, string[]>();

  constructor(private readonly validators: LineageValidators) {}

  /** Judges one notification as the receiver gets it and, when it is accepted, records its lineage. */
  accept(message: unknown): LineageVerdict {
    const schema = this.validators.observeNotification(message);
    if (!schema.valid) return { accepted: false, errorKind: 'schema', reason: `not a valid hooks/observe notification: ${schema.errors.slice(0, 3).join('; ')}` };
    // The observe schema guarantees an event object with string `id`, `source` and `type`.
    const event = (message as { params: { event: JsonObject } }).params.event;
    const record = recordOf(event);
    const checks: Array<[LineageRule, () => string | undefined]> = [
      ['change', () => changeProblem(event)],
      ['identity', () => this.identityProblem(record)],
      ['cycle', () => this.cycleProblem(record)],
      ['parent', () => this.parentProblem(record)],
      ['late-parent', () => this.lateParentProblem(record)],
    ];
    for (const [rule, check] of checks) {
      const reason = check();
      if (reason !== undefined) return { accepted: false, errorKind: 'lineage', rule, reason };
    }
    this.record(record);
    return { accepted: true };
  }

  /** Rule 3. */
  private identityProblem(record: LineageRecord): string | undefined {
    const seen = this.records.get(identityKey(record.source, record.id));
    if (seen === undefined) return undefined;
    if (seen.type !== record.type) return `event id ${JSON.stringify(record.id)} was already seen as ${seen.type} in this source; now it is ${record.type}`;
    if (seen.parentEventId !== record.parentEventId) {
      return `${describe(record)} was already seen with parent ${JSON.stringify(seen.parentEventId ?? null)}; now its parent is ${JSON.stringify(record.parentEventId ?? null)}`;
    }
    if (seen.task !== undefined && !jsonEqual(seen.task.id, record.task?.id)) {
      return `${describe(record)} was already seen for task ${JSON.stringify(seen.task.id)}; now it is for task ${JSON.stringify(record.task?.id)}`;
    }
    return undefined;
  }

  /** Rule 4: the ancestry of the new event, as recorded so far, must not lead back to it or loop. */
  private cycleProblem(record: LineageRecord): string | undefined {
    if (record.parentEventId === undefined) return undefined;
    const own = identityKey(record.source, record.id);
    const visited = new Set<string>();
    const path = [record.id];
    let parentId: string | undefined = record.parentEventId;
    while (parentId !== undefined) {
      const key = identityKey(record.source, parentId);
      path.push(parentId);
      if (key === own) return `${describe(record)} is its own ancestor: ${path.map((id) => JSON.stringify(id)).join(' → ')}`;
      if (visited.has(key)) return `the ancestry of ${describe(record)} loops: ${path.map((id) => JSON.stringify(id)).join(' → ')}`;
      visited.add(key);
      parentId = this.records.get(key)?.parentEventId;
    }
    return undefined;
  }

  /** Rule 5, for the new event's own parent when the receiver knows it. */
  private parentProblem(record: LineageRecord): string | undefined {
    if (record.parentEventId === undefined) return undefined;
    const parent = this.records.get(identityKey(record.source, record.parentEventId));
    return parent === undefined ? undefined : pairProblem(record, parent);
  }

  /** Rule 6: the new event is the late parent of children recorded before it. */
  private lateParentProblem(record: LineageRecord): string | undefined {
    for (const childKey of this.childrenOf.get(identityKey(record.source, record.id)) ?? []) {
      const child = this.records.get(childKey);
      const problem = child === undefined ? undefined : pairProblem(child, record);
      if (problem !== undefined) return `late parent: ${problem}`;
    }
    return undefined;
  }

  /** Rule 7: called only once every check passed. A re-seen identity keeps its first record. */
  private record(record: LineageRecord): void {
    const key = identityKey(record.source, record.id);
    if (this.records.has(key)) return;
    this.records.set(key, record);
    if (record.parentEventId === undefined) return;
    const parentKey = identityKey(record.source, record.parentEventId);
    const siblings = this.childrenOf.get(parentKey) ?? [];
    siblings.push(key);
    this.childrenOf.set(parentKey, siblings);
  }
}

function recordOf(event: JsonObject): LineageRecord {
  const record: LineageRecord = {
    source: event.source as string,
    id: event.id as string,
    type: event.type as string,
    parentEventId: typeof event.parentEventId === 'string' ? event.parentEventId : undefined,
  };
  if (record.type.startsWith('task.change.') && isJsonObject(event.task)) record.task = { id: event.task.id, operation: event.task.operation };
  if (record.type.startsWith('workspace.change.') && isJsonObject(event.workspace)) record.workspaceKind = event.workspace.kind;
  return record;
}

/** Rule 5 for one child and its known parent; proposed and applied values are never compared. */
function pairProblem(child: LineageRecord, parent: LineageRecord): string | undefined {
  if (child.type === 'task.change.after' && parent.type === 'task.change.before') {
    const differs = [
      !jsonEqual(child.task?.id, parent.task?.id) ? `task id ${JSON.stringify(child.task?.id)} ≠ ${JSON.stringify(parent.task?.id)}` : undefined,
      !jsonEqual(child.task?.operation, parent.task?.operation) ? `operation ${JSON.stringify(child.task?.operation)} ≠ ${JSON.stringify(parent.task?.operation)}` : undefined,
    ].filter((d) => d !== undefined);
    if (differs.length > 0) return `${describe(child)} does not apply its known proposal ${describe(parent)}: ${differs.join(', ')}`;
  }
  if (child.type === 'workspace.change.after' && parent.type === 'workspace.change.before' && !jsonEqual(child.workspaceKind, parent.workspaceKind)) {
    return `${describe(child)} does not apply its known proposal ${describe(parent)}: kind ${JSON.stringify(child.workspaceKind)} ≠ ${JSON.stringify(parent.workspaceKind)}`;
  }
  return undefined;
}

/** Rule 2: an applied change that changes nothing is not a change. */
function changeProblem(event: JsonObject): string | undefined {
  const what = `${String(event.type)} ${JSON.stringify(event.id)}`;
  if (event.type === 'task.change.after' && isJsonObject(event.task) && event.task.operation === 'update') {
    const { change, prior } = event.task;
    if (!isJsonObject(change) || Object.keys(change).length === 0) return `${what} reports an update without any changed field`;
    if (isJsonObject(prior) && unchanged(change, prior)) return `${what} reports an update whose every changed field equals its prior value (a no-op)`;
  }
  if (event.type === 'workspace.change.after' && isJsonObject(event.workspace)) {
    const { change, prior } = event.workspace;
    if (isJsonObject(change) && isJsonObject(prior) && unchanged(change, prior)) return `${what} reports a change whose every field equals its prior value (a no-op)`;
  }
  if (event.type === 'file.changed' && Array.isArray(event.changes)) {
    for (const [index, change] of event.changes.entries()) {
      if (!isJsonObject(change) || change.operation !== 'update') continue;
      if (change.before !== undefined && change.after !== undefined && jsonEqual(change.before, change.after)) {
        return `${what} reports changes[${index}] (${JSON.stringify(change.path)}) as an update with equal before and after snapshots`;
      }
    }
  }
  return undefined;
}

/** Every key of a non-empty `change` is in `prior` with an equal value. */
function unchanged(change: JsonObject, prior: JsonObject): boolean {
  const keys = Object.keys(change);
  return keys.length > 0 && keys.every((key) => Object.hasOwn(prior, key) && jsonEqual(change[key], prior[key]));
}
