// The 22 event types of the catalogue (CATALOGUE-RULES §3, §8): every receiver must advertise them
// for observation, and every catalogue fixture sends each of them at least once. The lineage types
// are those whose events carry task, workspace or file changes (task-workspace-lineage.md).

export const EXECUTION_EVENT_TYPES = [
  'tool.before',
  'tool.after',
  'turn.start',
  'turn.finish.before',
  'turn.end',
  'turn.progress',
  'model.request.before',
  'model.response.after',
  'model.error',
  'model.switch.before',
  'model.switch.after',
  'tool.permission.request',
  'tool.permission.resolved',
  'tool.progress',
  'tool.batch.after',
  'context.compact.before',
  'context.compact.after',
] as const;

export const LINEAGE_EVENT_TYPES = ['task.change.before', 'task.change.after', 'workspace.change.before', 'workspace.change.after', 'file.changed'] as const;

export const CATALOGUE_EVENT_TYPES: readonly string[] = [...EXECUTION_EVENT_TYPES, ...LINEAGE_EVENT_TYPES];

/** A receiver of the catalogue must not advertise this type: no catalogue row can deliver it. */
export const UNSUPPORTED_CATALOGUE_EVENT = 'hook.failure';

/** The configuration scopes a catalogue receiver advertises, in this order. */
export const CATALOGUE_SCOPES = ['user', 'project'] as const;
