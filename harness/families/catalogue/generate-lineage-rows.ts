// The lineage rows of our catalogue fixture: one accepted notification per task, workspace and file
// event type, then one or more rows per rule of the receiver's source-local lineage tracker
// (CATALOGUE-RULES §4, task-workspace-lineage.md). Lineage lives for the whole run, so several rows
// name events of earlier rows. What the SDK would refuse goes raw; everything else goes through the
// SDK's observe path, whose own lineage never sees the raw messages.
//
// Two rows deliberately discriminate between source-local and source-blind trackers (a blind tracker
// would reject what a source-local one must accept), and the rule 3 and rule 7 rows reuse an event
// identity on purpose: an identity is unique in the file except where a row proves what happens when
// it is seen again.

import type { JsonObject } from '../../protocol/json.ts';
import { notify, OTHER_SOURCE_A, OTHER_SOURCE_B, rawNotify, rowWire, type CatalogueRowSpec } from './wire.ts';

const task = (id: string, operation: string, change: JsonObject, prior?: JsonObject): JsonObject => ({ id, operation, change, ...(prior ? { prior } : {}) });
const lineage = (id: string, description: string, tags: string[], steps: (w: ReturnType<typeof rowWire>) => CatalogueRowSpec['steps']): CatalogueRowSpec => ({
  id,
  category: 'lineage',
  description,
  tags,
  steps: steps(rowWire(id)),
});

/** Event ids of earlier rows that later rows name as parents or reuse. */
const PROPOSAL_ROW = 'lineage:task-applied-differently';
const PROPOSAL = rowWire(PROPOSAL_ROW).eventId('proposal');
const WORKSPACE_ROW = 'lineage:workspace-file-chain';
const WORKSPACE_PROPOSAL = rowWire(WORKSPACE_ROW).eventId('proposal');
const LATE_MISMATCH_ROW = 'lineage:late-parent-mismatch';
const REJECTED_PARENT = rowWire(LATE_MISMATCH_ROW).eventId('parent');
const RETRY_ROW = 'lineage:retried-event';
const RETRIED = rowWire(RETRY_ROW).eventId('update');

export function lineageRowSpecs(): CatalogueRowSpec[] {
  return [...typeRows(), ...pairRows(), ...sourceRows(), ...orderRows(), ...changeRows(), ...identityRows()];
}

/** One accepted notification per lineage event type. */
function typeRows(): CatalogueRowSpec[] {
  const row = (type: string, description: string, payload: (w: ReturnType<typeof rowWire>) => JsonObject): CatalogueRowSpec =>
    lineage(`event:${type}`, description, [`type:${type}`], (w) => [notify(w.event('event', type, payload(w)))]);
  return [
    row('task.change.before', 'A proposal to create a task, with a description.', () => ({
      task: { ...task('task-build', 'create', { title: 'Fix the build', status: 'todo' }), description: 'from the CI failure' },
    })),
    row('task.change.after', 'An applied task creation with no known proposal (after-only support): no parent.', () => ({
      task: task('task-docs', 'create', { title: 'Write the changelog' }),
    })),
    row('workspace.change.before', 'A proposal to replace the workspace roots, with the prior roots and a reason.', () => ({
      workspace: { kind: 'roots', change: { workspaceRoots: ['/srv/app', '/srv/lib'] }, prior: { workspaceRoots: ['/srv/app'] }, reason: 'library opened' },
    })),
    row('workspace.change.after', 'An applied working-directory change with its prior directory.', () => ({
      workspace: { kind: 'cwd', change: { cwd: '/srv/app/web' }, prior: { cwd: '/srv/app' } },
    })),
    row('file.changed', 'An agent update with different before/after text snapshots, and a created image described by metadata.', (w) => {
      const changelog: JsonObject = {
        path: '/srv/app/CHANGELOG.md',
        operation: 'update',
        agentCaused: true,
        before: w.inlineText('changelog-before', '# Changes'),
        after: w.inlineText('changelog-after', '# Changes\n- build fixed'),
      };
      const diagram: JsonObject = { path: '/srv/app/diagram.png', operation: 'create', agentCaused: false, after: w.metadataAttachment('diagram', 'image/png', 30721) };
      return { changes: [changelog, diagram] };
    }),
  ];
}

/** Rule 5: a known proposal and its applied change (values may differ; identity and operation may not). */
function pairRows(): CatalogueRowSpec[] {
  return [
    lineage(
      PROPOSAL_ROW,
      'A task update proposed as `done` and applied as `blocked`: the applied change parents to its proposal, sharing task id and operation; proposed and applied values are never compared.',
      ['lineage:rule-5-task-pair'],
      (w) => [
        notify(w.event('proposal', 'task.change.before', { task: task('task-release', 'update', { status: 'done' }) })),
        notify(w.event('applied', 'task.change.after', { task: task('task-release', 'update', { status: 'blocked' }, { status: 'in-progress' }), parentEventId: w.eventId('proposal') })),
      ],
    ),
    lineage(
      'lineage:known-parent-other-task',
      `An applied change naming the proposal of ${PROPOSAL_ROW} (an earlier row: lineage spans the run) but for another task.`,
      ['lineage:rule-5-task-mismatch', 'lineage:cross-row'],
      (w) => [rawNotify(w.event('applied', 'task.change.after', { task: task('task-other', 'update', { status: 'done' }), parentEventId: PROPOSAL }))],
    ),
    lineage(
      'lineage:known-parent-other-operation',
      `An applied change naming the proposal of ${PROPOSAL_ROW} for the same task but another operation (remove instead of update).`,
      ['lineage:rule-5-operation-mismatch', 'lineage:cross-row'],
      (w) => [rawNotify(w.event('applied', 'task.change.after', { task: task('task-release', 'remove', {}), parentEventId: PROPOSAL }))],
    ),
    lineage(
      WORKSPACE_ROW,
      'A working-directory proposal, its applied change to another directory, and a file change caused by it, each parented to the previous one.',
      ['lineage:rule-5-workspace-pair', 'lineage:file-parented-to-workspace'],
      (w) => [
        notify(w.event('proposal', 'workspace.change.before', { workspace: { kind: 'cwd', change: { cwd: '/srv/app/api' } } })),
        notify(w.event('applied', 'workspace.change.after', { workspace: { kind: 'cwd', change: { cwd: '/srv/app/api-v2' } }, parentEventId: w.eventId('proposal') })),
        notify(w.event('file', 'file.changed', { changes: [{ path: '/srv/app/api-v2/.env', operation: 'create', agentCaused: true }], parentEventId: w.eventId('applied') })),
      ],
    ),
    lineage(
      'lineage:workspace-kind-mismatch',
      `An applied roots change naming the working-directory proposal of ${WORKSPACE_ROW}.`,
      ['lineage:rule-5-workspace-kind-mismatch', 'lineage:cross-row'],
      (w) => [rawNotify(w.event('applied', 'workspace.change.after', { workspace: { kind: 'roots', change: { workspaceRoots: ['/srv/app/api'] } }, parentEventId: WORKSPACE_PROPOSAL }))],
    ),
    lineage(
      'lineage:unknown-parent',
      'An applied change whose parent the receiver never got (it may have been filtered): legal, nothing to check it against.',
      ['lineage:rule-4-unknown-parent'],
      (w) => [notify(w.event('applied', 'task.change.after', { task: task('task-filtered', 'create', { status: 'todo' }), parentEventId: w.eventId('filtered-proposal') }))],
    ),
  ];
}

/** Rule 1: identity and parentage are per source; a source-blind tracker would get both rows wrong. */
function sourceRows(): CatalogueRowSpec[] {
  return [
    lineage(
      'lineage:source-local-parent',
      'Source a proposes updating task A; source b applies a creation of task B naming an id equal to the proposal\'s. In source b that parent is unknown, so it is accepted (a source-blind tracker would see a task and operation mismatch).',
      ['lineage:rule-1-source-local-parent'],
      (w) => [
        notify(w.event('shared-id', 'task.change.before', { task: task('task-a', 'update', { status: 'done' }) }, OTHER_SOURCE_A)),
        notify(w.event('applied', 'task.change.after', { task: task('task-b', 'create', { status: 'todo' }), parentEventId: w.eventId('shared-id') }, OTHER_SOURCE_B)),
      ],
    ),
    lineage(
      'lineage:source-local-cycle',
      'Source a has x parented to y; source b has y parented to x. Within each source there is no cycle, so both are accepted (a source-blind tracker would see x → y → x).',
      ['lineage:rule-1-source-local-cycle'],
      (w) => [
        notify(w.event('x', 'task.change.before', { task: task('task-c', 'create', { status: 'todo' }), parentEventId: w.eventId('y') }, OTHER_SOURCE_A)),
        notify(w.event('y', 'task.change.before', { task: task('task-d', 'create', { status: 'todo' }), parentEventId: w.eventId('x') }, OTHER_SOURCE_B)),
      ],
    ),
  ];
}

/** Rules 4 and 6: cycles and late parents, which only a tracker that remembers children can judge. */
function orderRows(): CatalogueRowSpec[] {
  return [
    lineage('lineage:self-parent', 'A proposal that names itself as its parent: a cycle of length one.', ['lineage:rule-4-self-parent'], (w) => [
      rawNotify(w.event('self', 'task.change.before', { task: task('task-e', 'create', { status: 'todo' }), parentEventId: w.eventId('self') })),
    ]),
    lineage(
      'lineage:late-cycle',
      'An applied change first names a parent the receiver does not know yet; that parent then arrives naming the applied change: a cycle found only when the late parent arrives.',
      ['lineage:rule-4-late-cycle'],
      (w) => [
        notify(w.event('applied', 'task.change.after', { task: task('task-f', 'create', { status: 'todo' }), parentEventId: w.eventId('proposal') })),
        rawNotify(w.event('proposal', 'task.change.before', { task: task('task-f', 'create', { status: 'todo' }), parentEventId: w.eventId('applied') })),
      ],
    ),
    lineage(
      'lineage:three-step-cycle',
      'Three proposals p1 → p3 (unknown yet), p2 → p1; then p3 arrives naming p2, closing p1 → p3 → p2 → p1.',
      ['lineage:rule-4-long-cycle'],
      (w) => [
        notify(w.event('p1', 'task.change.before', { task: task('task-g1', 'create', { status: 'todo' }), parentEventId: w.eventId('p3') })),
        notify(w.event('p2', 'task.change.before', { task: task('task-g2', 'create', { status: 'todo' }), parentEventId: w.eventId('p1') })),
        rawNotify(w.event('p3', 'task.change.before', { task: task('task-g3', 'create', { status: 'todo' }), parentEventId: w.eventId('p2') })),
      ],
    ),
    lineage(
      'lineage:late-parent',
      'The applied change arrives before its proposal; when the proposal arrives it is checked against the recorded child (same task and operation) and there is no false cycle.',
      ['lineage:rule-6-late-parent'],
      (w) => [
        notify(w.event('applied', 'task.change.after', { task: task('task-h', 'update', { owner: 'lee' }, { owner: 'kim' }), parentEventId: w.eventId('proposal') })),
        notify(w.event('proposal', 'task.change.before', { task: task('task-h', 'update', { owner: 'lee' }) })),
      ],
    ),
    lineage(
      LATE_MISMATCH_ROW,
      'The applied creation arrives first; its late parent proposes an update of the same task, which does not match the recorded child, so the parent is rejected.',
      ['lineage:rule-6-late-parent-mismatch'],
      (w) => [
        notify(w.event('applied', 'task.change.after', { task: task('task-i', 'create', { status: 'todo' }), parentEventId: w.eventId('parent') })),
        rawNotify(w.event('parent', 'task.change.before', { task: task('task-i', 'update', { status: 'todo' }) })),
      ],
    ),
    lineage(
      'lineage:rejected-parent-leaves-no-trace',
      `Another applied creation names the parent rejected in ${LATE_MISMATCH_ROW}. Rejections leave no trace, so that parent is unknown and the child is accepted (a tracker that recorded the rejected update would refuse this creation).`,
      ['lineage:rule-7-no-trace'],
      (w) => [notify(w.event('applied', 'task.change.after', { task: task('task-i', 'create', { status: 'todo' }), parentEventId: REJECTED_PARENT }))],
    ),
    lineage(
      'lineage:rejected-identity-is-free',
      `The event id rejected in ${LATE_MISMATCH_ROW} is used again, now for a workspace proposal: it was never recorded, so this is a first sighting, not a changed identity.`,
      ['lineage:rule-7-identity-free'],
      (w) => [notify({ ...w.event('reused', 'workspace.change.before', { workspace: { kind: 'switch', change: { cwd: '/srv/other' } } }), id: REJECTED_PARENT })],
    ),
  ];
}

/** Rule 2: an applied change must change something. */
function changeRows(): CatalogueRowSpec[] {
  return [
    lineage('lineage:no-op-task-update', 'An applied task update whose only changed field equals its prior value.', ['lineage:rule-2-no-op-task'], (w) => [
      rawNotify(w.event('applied', 'task.change.after', { task: task('task-j', 'update', { status: 'todo' }, { status: 'todo', owner: 'kim' }) })),
    ]),
    lineage('lineage:empty-task-update', 'An applied task update with an empty change.', ['lineage:rule-2-empty-task-update'], (w) => [
      rawNotify(w.event('applied', 'task.change.after', { task: task('task-k', 'update', {}) })),
    ]),
    lineage(
      'lineage:partly-changed-task-update',
      'An applied task update where one changed field equals its prior value and another does not: a real change.',
      ['lineage:rule-2-real-task-update'],
      (w) => [notify(w.event('applied', 'task.change.after', { task: task('task-l', 'update', { status: 'todo', owner: 'lee' }, { status: 'todo', owner: 'kim' }) }))],
    ),
    lineage('lineage:no-op-workspace-change', 'An applied working-directory change to the directory it already was.', ['lineage:rule-2-no-op-workspace'], (w) => [
      rawNotify(w.event('applied', 'workspace.change.after', { workspace: { kind: 'cwd', change: { cwd: '/srv/app' }, prior: { cwd: '/srv/app' } } })),
    ]),
    lineage('lineage:equal-file-snapshots', 'A file update whose before and after snapshots are the same.', ['lineage:rule-2-equal-file-snapshots'], (w) => {
      const snapshot = w.inlineText('snapshot', 'unchanged\n');
      return [rawNotify(w.event('file', 'file.changed', { changes: [{ path: '/srv/app/notes.txt', operation: 'update', agentCaused: true, before: snapshot, after: snapshot }] }))];
    }),
  ];
}

/** Rule 3: an identity seen again keeps type, parent and task. */
function identityRows(): CatalogueRowSpec[] {
  const update = (w: ReturnType<typeof rowWire>): JsonObject =>
    w.event('update', 'task.change.after', { task: task('task-m', 'update', { status: 'review' }, { status: 'todo' }), parentEventId: w.eventId('unseen-proposal') });
  const retried = update(rowWire(RETRY_ROW));
  return [
    lineage(RETRY_ROW, 'The same applied change delivered twice (a retry): an identity seen again unchanged is accepted both times.', ['lineage:rule-3-retry'], () => [
      notify(retried),
      rawNotify(retried),
    ]),
    lineage('lineage:reused-id-other-type', `The id of the retried change of ${RETRY_ROW} reused for a task proposal.`, ['lineage:rule-3-type-changed'], (w) => [
      rawNotify({ ...w.event('reuse', 'task.change.before', { task: task('task-m', 'update', { status: 'review' }) }), id: RETRIED }),
    ]),
    lineage('lineage:reused-id-other-parent', `The retried change of ${RETRY_ROW} seen again with another parent.`, ['lineage:rule-3-parent-changed'], (w) => [
      rawNotify({ ...retried, parentEventId: w.eventId('another-proposal') }),
    ]),
    lineage('lineage:reused-id-other-task', `The retried change of ${RETRY_ROW} seen again for another task.`, ['lineage:rule-3-task-changed'], () => [
      rawNotify({ ...retried, task: task('task-n', 'update', { status: 'review' }, { status: 'todo' }) }),
    ]),
  ];
}
