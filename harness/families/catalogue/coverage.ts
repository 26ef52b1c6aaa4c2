// What our catalogue fixture must cover — every catalogue event type, the content shapes of §7's
// fixture tests, schema rejection and recovery, every lineage rule of §4 and every registration check
// of §5.1 — each with a witness: a check over a tagged row's evaluated messages and registrations that
// the row really shows the behaviour. A tag without a passing witness, a tag nobody defined, or an
// item no row is tagged with fails the generator.
//
// What no row can show, because no client following the rules can run it, is covered by a catalogue
// receiver probe instead (CATALOGUE_PROBE_COVERAGE): the harness sends those bytes itself.

import { CATALOGUE_EVENT_TYPES } from './catalogue-events.ts';
import type { RegistrationEvaluation } from './evaluate-registration.ts';
import type { LineageVerdict } from './lineage-tracker.ts';
import { eventOf } from './receipt-entries.ts';
import type { CatalogueReceiverProbeName } from './catalogue-receiver-probes.ts';
import type { CatalogueScenario, RegisterStep } from './scenario-types.ts';
import { isJsonObject, jsonEqual, type JsonObject } from '../../protocol/json.ts';

/** One sent message of a row and what the receiver's tracker made of it. */
export interface DeliveryEvidence {
  op: 'notify' | 'rawNotify';
  message: JsonObject;
  /** The event when the message carries one. */
  event: JsonObject | undefined;
  verdict: LineageVerdict;
}

export interface RowEvidence {
  row: CatalogueScenario;
  deliveries: DeliveryEvidence[];
  registrations: Array<{ step: RegisterStep; evaluation: RegistrationEvaluation }>;
  /** Every delivery of the rows before this one, in file order (lineage spans the run). */
  earlier: DeliveryEvidence[];
}

export interface CoverageItem {
  tag: string;
  text: string;
  /** `undefined` when the row shows the behaviour; otherwise what it lacks. */
  witness(evidence: RowEvidence, all: readonly RowEvidence[]): string | undefined;
}

const unless = (ok: boolean, lacking: string): string | undefined => (ok ? undefined : lacking);

// ----- helpers over evidence ---------------------------------------------------------------------------

const accepted = (e: RowEvidence): DeliveryEvidence[] => e.deliveries.filter((d) => d.verdict.accepted);
const rejectedBy = (e: RowEvidence, rule: string): DeliveryEvidence[] =>
  e.deliveries.filter((d) => !d.verdict.accepted && d.verdict.errorKind === 'lineage' && d.verdict.rule === rule);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const sourceOf = (d: DeliveryEvidence): string | undefined => str(d.event?.source);
const idOf = (d: DeliveryEvidence): string | undefined => str(d.event?.id);
const parentOf = (d: DeliveryEvidence): string | undefined => str(d.event?.parentEventId);
const sameIdentity = (a: DeliveryEvidence, source: string | undefined, id: string | undefined): boolean => sourceOf(a) === source && idOf(a) === id;
const objectAt = (value: unknown, key: string): JsonObject | undefined => (isJsonObject(value) && isJsonObject(value[key]) ? value[key] : undefined);

/** The accepted event that is `d`'s parent among `candidates`, if any. */
function knownParent(d: DeliveryEvidence, candidates: readonly DeliveryEvidence[]): DeliveryEvidence | undefined {
  const parent = parentOf(d);
  return parent === undefined ? undefined : candidates.find((c) => c.verdict.accepted && sameIdentity(c, sourceOf(d), parent));
}

function typeWitness(type: string): CoverageItem {
  return {
    tag: `type:${type}`,
    text: `an accepted ${type} notification`,
    witness: (e) => unless(accepted(e).some((d) => d.event?.type === type), `no accepted ${type} notification`),
  };
}

function registrationOutcomes(e: RowEvidence): RegistrationEvaluation[] {
  return e.registrations.map((r) => r.evaluation);
}
const refusedBy = (e: RowEvidence, check: string): boolean => registrationOutcomes(e).some((r) => !r.accepted && r.check === check);
const acceptedRegistration = (e: RowEvidence): boolean => registrationOutcomes(e).some((r) => r.accepted);
/** Every JSON object inside the registrations of the row (backends, subscriptions, authentication, ...). */
function registrationObjects(e: RowEvidence): JsonObject[] {
  const found: JsonObject[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isJsonObject(value)) {
      found.push(value);
      Object.values(value).forEach(walk);
    }
  };
  e.registrations.forEach((r) => walk(r.step.registration));
  return found;
}
const requirementsOf = (e: RowEvidence): JsonObject[] => e.registrations.flatMap((r) => r.step.requirements as unknown as JsonObject[]);

// ----- the items -----------------------------------------------------------------------------------------

export const CATALOGUE_COVERAGE: readonly CoverageItem[] = [
  ...CATALOGUE_EVENT_TYPES.map(typeWitness),

  {
    tag: 'content:inline-messages',
    text: 'ordered user/assistant messages with inline multi-line Unicode and empty text, a reasoning part and a metadata-only attachment, no body on text parts',
    witness: (e) => {
      const items = accepted(e).flatMap((d) => (Array.isArray(d.event?.items) ? d.event.items : [])).filter(isJsonObject);
      const parts = items.flatMap((m) => (Array.isArray(m.parts) ? m.parts : [])).filter(isJsonObject);
      const texts = parts.filter((p) => p.kind === 'text');
      const lacking = [
        jsonEqual(items.map((m) => m.role), ['user', 'assistant']) ? undefined : 'messages with roles [user, assistant]',
        texts.some((p) => p.text === '') ? undefined : 'an empty inline text',
        texts.some((p) => typeof p.text === 'string' && p.text.includes('\n') && /[^\x00-\x7f]/.test(p.text)) ? undefined : 'a multi-line non-ASCII inline text',
        parts.some((p) => p.category === 'reasoning') ? undefined : 'a reasoning part',
        parts.some((p) => p.kind === 'attachment' && p.selection === 'metadata') ? undefined : 'a metadata-only attachment',
        texts.every((p) => p.body === undefined) ? undefined : 'text parts without body',
      ].filter((l) => l !== undefined);
      return lacking.length === 0 ? undefined : `lacks ${lacking.join(', ')}`;
    },
  },
  {
    tag: 'schema:rejected',
    text: 'a raw notification the observe schema refuses, rejected with errorKind "schema"',
    witness: (e) => unless(e.deliveries.some((d) => d.op === 'rawNotify' && !d.verdict.accepted && d.verdict.errorKind === 'schema'), 'no raw schema rejection'),
  },
  {
    tag: 'receiver:continues-after-rejections',
    text: 'an accepted notification after every rejection of the file',
    witness: (e, all) => {
      const last = Math.max(...all.map((x, i) => (x.deliveries.some((d) => !d.verdict.accepted) ? i : -1)));
      return unless(accepted(e).length > 0 && all.indexOf(e) > last, 'not an accepted notification after the last rejecting row');
    },
  },

  // lineage rule 1
  {
    tag: 'lineage:rule-1-source-local-parent',
    text: 'a parent id known only in another source is an unknown parent (a source-blind tracker would refuse the pair)',
    witness: (e) => {
      const seen = [...e.earlier, ...e.deliveries];
      const ok = accepted(e).some((d) => {
        const parent = parentOf(d);
        const elsewhere = seen.find((c) => c.verdict.accepted && idOf(c) === parent && sourceOf(c) !== sourceOf(d));
        return parent !== undefined && elsewhere !== undefined && knownParent(d, seen) === undefined && elsewhere.event?.type === 'task.change.before' && d.event?.type === 'task.change.after' && !jsonEqual(objectAt(elsewhere.event, 'task')?.id, objectAt(d.event, 'task')?.id);
      });
      return unless(ok, 'no accepted task.change.after whose parent id names a mismatching proposal of another source');
    },
  },
  {
    tag: 'lineage:rule-1-source-local-cycle',
    text: 'parent links that would form a cycle across sources are accepted (no cycle within a source)',
    witness: (e) => {
      const ok = accepted(e).some((x) =>
        accepted(e).some((y) => sourceOf(x) !== sourceOf(y) && parentOf(x) === idOf(y) && parentOf(y) === idOf(x)),
      );
      return unless(ok, 'no two accepted events of different sources naming each other');
    },
  },

  // rule 2
  changeRejection('lineage:rule-2-no-op-task', 'an applied task update equal to its prior is refused', (d) => d.event?.type === 'task.change.after' && objectAt(d.event, 'task')?.prior !== undefined),
  changeRejection('lineage:rule-2-empty-task-update', 'an applied task update with an empty change is refused', (d) => {
    const change = objectAt(objectAt(d.event, 'task'), 'change');
    return d.event?.type === 'task.change.after' && change !== undefined && Object.keys(change).length === 0;
  }),
  changeRejection('lineage:rule-2-no-op-workspace', 'an applied workspace change equal to its prior is refused', (d) => d.event?.type === 'workspace.change.after'),
  changeRejection('lineage:rule-2-equal-file-snapshots', 'a file update with equal before and after snapshots is refused', (d) => d.event?.type === 'file.changed'),
  {
    tag: 'lineage:rule-2-real-task-update',
    text: 'an applied task update that keeps one prior value and changes another is accepted',
    witness: (e) => {
      const ok = accepted(e).some((d) => {
        const t = objectAt(d.event, 'task');
        const change = objectAt(t, 'change');
        const prior = objectAt(t, 'prior');
        if (d.event?.type !== 'task.change.after' || change === undefined || prior === undefined) return false;
        const keys = Object.keys(change);
        return keys.some((k) => jsonEqual(change[k], prior[k])) && keys.some((k) => !jsonEqual(change[k], prior[k]));
      });
      return unless(ok, 'no accepted partly-unchanged task update');
    },
  },

  // rule 3
  {
    tag: 'lineage:rule-3-retry',
    text: 'the same event delivered twice is accepted both times',
    witness: (e) => unless(accepted(e).some((d, i, all) => all.slice(i + 1).some((later) => jsonEqual(later.message, d.message))), 'no event accepted twice'),
  },
  identityRejection('lineage:rule-3-type-changed', 'an identity seen again with another type is refused', (d, first) => first.event?.type !== d.event?.type),
  identityRejection('lineage:rule-3-parent-changed', 'an identity seen again with another parent is refused', (d, first) => parentOf(first) !== parentOf(d)),
  identityRejection('lineage:rule-3-task-changed', 'an identity seen again for another task is refused', (d, first) => !jsonEqual(objectAt(first.event, 'task')?.id, objectAt(d.event, 'task')?.id)),

  // rule 4
  {
    tag: 'lineage:rule-4-self-parent',
    text: 'an event naming itself as parent is a cycle',
    witness: (e) => unless(rejectedBy(e, 'cycle').some((d) => parentOf(d) === idOf(d)), 'no self-parent rejected as a cycle'),
  },
  {
    tag: 'lineage:rule-4-late-cycle',
    text: 'a late parent that names its recorded child closes a cycle',
    witness: (e) => unless(rejectedBy(e, 'cycle').some((d) => accepted(e).some((c) => parentOf(c) === idOf(d) && parentOf(d) === idOf(c))), 'no two-event cycle closed by a late parent'),
  },
  {
    tag: 'lineage:rule-4-long-cycle',
    text: 'a cycle through three events is found',
    witness: (e) =>
      unless(
        rejectedBy(e, 'cycle').some((d) => {
          const parent = accepted(e).find((c) => idOf(c) === parentOf(d));
          return parent !== undefined && parentOf(parent) !== idOf(d) && parentOf(d) !== idOf(d);
        }),
        'no cycle longer than two events',
      ),
  },
  {
    tag: 'lineage:rule-4-unknown-parent',
    text: 'a parent the receiver never got is legal',
    witness: (e) => unless(accepted(e).some((d) => parentOf(d) !== undefined && ![...e.earlier, ...e.deliveries].some((c) => sameIdentity(c, sourceOf(d), parentOf(d)))), 'no accepted event with a never-delivered parent'),
  },

  // rule 5
  {
    tag: 'lineage:rule-5-task-pair',
    text: 'an applied task change parented to its proposal, sharing task and operation, with applied values other than proposed',
    witness: (e) => {
      const ok = accepted(e).some((d) => {
        const parent = knownParent(d, e.deliveries);
        return d.event?.type === 'task.change.after' && parent?.event?.type === 'task.change.before' && !jsonEqual(objectAt(d.event, 'task')?.change, objectAt(parent.event, 'task')?.change);
      });
      return unless(ok, 'no accepted task pair with differing applied and proposed values');
    },
  },
  pairRejection('lineage:rule-5-task-mismatch', 'an applied task change naming a proposal of another task is refused', (d, p) => !jsonEqual(objectAt(d.event, 'task')?.id, objectAt(p.event, 'task')?.id)),
  pairRejection(
    'lineage:rule-5-operation-mismatch',
    'an applied task change naming a proposal of the same task with another operation is refused',
    (d, p) => jsonEqual(objectAt(d.event, 'task')?.id, objectAt(p.event, 'task')?.id) && !jsonEqual(objectAt(d.event, 'task')?.operation, objectAt(p.event, 'task')?.operation),
  ),
  {
    tag: 'lineage:rule-5-workspace-pair',
    text: 'an applied workspace change parented to its proposal of the same kind, applied elsewhere than proposed',
    witness: (e) => {
      const ok = accepted(e).some((d) => {
        const parent = knownParent(d, e.deliveries);
        return d.event?.type === 'workspace.change.after' && parent?.event?.type === 'workspace.change.before' && !jsonEqual(objectAt(objectAt(d.event, 'workspace'), 'change'), objectAt(objectAt(parent.event, 'workspace'), 'change'));
      });
      return unless(ok, 'no accepted workspace pair with differing applied and proposed values');
    },
  },
  pairRejection('lineage:rule-5-workspace-kind-mismatch', 'an applied workspace change naming a proposal of another kind is refused', (d, p) => d.event?.type === 'workspace.change.after' && !jsonEqual(objectAt(d.event, 'workspace')?.kind, objectAt(p.event, 'workspace')?.kind)),
  {
    tag: 'lineage:cross-row',
    text: 'a parent delivered by an earlier row is known (one tracker for the whole run)',
    witness: (e) => unless(e.deliveries.some((d) => knownParent(d, e.earlier) !== undefined), 'no event naming a parent of an earlier row'),
  },
  {
    tag: 'lineage:file-parented-to-workspace',
    text: 'a file change parented to the applied workspace change that caused it',
    witness: (e) => unless(accepted(e).some((d) => d.event?.type === 'file.changed' && knownParent(d, e.deliveries)?.event?.type === 'workspace.change.after'), 'no file.changed parented to a workspace.change.after'),
  },

  // rule 6
  {
    tag: 'lineage:rule-6-late-parent',
    text: 'a proposal arriving after its applied change is checked against it and accepted',
    witness: (e) => unless(accepted(e).some((p, i, all) => all.slice(0, i).some((c) => parentOf(c) === idOf(p) && sourceOf(c) === sourceOf(p))), 'no accepted parent arriving after its child'),
  },
  {
    tag: 'lineage:rule-6-late-parent-mismatch',
    text: 'a late proposal that does not match its recorded child is refused',
    witness: (e) => unless(rejectedBy(e, 'late-parent').length > 0, 'no late parent rejected'),
  },

  // rule 7
  {
    tag: 'lineage:rule-7-no-trace',
    text: 'a child naming a rejected event sees an unknown parent',
    witness: (e) =>
      unless(
        accepted(e).some((d) => e.earlier.some((r) => !r.verdict.accepted && sameIdentity(r, sourceOf(d), parentOf(d))) && knownParent(d, e.earlier) === undefined),
        'no accepted child of a rejected event',
      ),
  },
  {
    tag: 'lineage:rule-7-identity-free',
    text: 'the id of a rejected event can be used again with another type',
    witness: (e) =>
      unless(
        accepted(e).some((d) => e.earlier.some((r) => !r.verdict.accepted && sameIdentity(r, sourceOf(d), idOf(d)) && r.event?.type !== d.event?.type) && !e.earlier.some((r) => r.verdict.accepted && sameIdentity(r, sourceOf(d), idOf(d)))),
        'no accepted event reusing only a rejected identity with another type',
      ),
  },

  // registration (§5.1)
  { tag: 'registration:accepted', text: 'a registration every catalogue manifest supports is accepted', witness: (e) => unless(acceptedRegistration(e), 'not accepted') },
  { tag: 'registration:schema', text: 'check 1: a schema-invalid registration is refused', witness: (e) => unless(refusedBy(e, 'schema'), 'not refused by the schema') },
  { tag: 'registration:backend-ids', text: 'check 2: duplicate backend ids are refused', witness: (e) => unless(refusedBy(e, 'backend-ids'), 'not refused for backend ids') },
  { tag: 'registration:manifest-event', text: 'check 3: an event the manifest does not advertise is refused', witness: (e) => unless(refusedBy(e, 'manifest'), 'not refused by the manifest') },
  {
    tag: 'registration:scope',
    text: 'check 3: subscription scopes are judged against the advertised scopes',
    witness: (e) => unless(registrationObjects(e).some((o) => typeof o.scope === 'string') && (acceptedRegistration(e) || refusedBy(e, 'manifest')), 'no scoped subscription judged by the manifest'),
  },
  {
    tag: 'registration:unenforceable-policy',
    text: 'check 3: a managed or non-disableable subscription at a host whose policy can be disabled is refused',
    witness: (e) => unless(refusedBy(e, 'manifest') && registrationObjects(e).some((o) => o.scope === 'managed' || o.disableable === false), 'no unenforceable subscription refused'),
  },
  { tag: 'registration:wildcard', text: 'check 3: family wildcards expand to advertised events', witness: (e) => unless(acceptedRegistration(e) && registrationObjects(e).some((o) => Array.isArray(o.events) && o.events.some((x) => typeof x === 'string' && x.endsWith('*'))), 'no accepted wildcard') },
  { tag: 'registration:unknown-fields', text: 'unknown registration members are ignored', witness: (e) => unless(acceptedRegistration(e), 'not accepted') },
  {
    tag: 'registration:credential-env',
    text: 'check 4: a bearer tokenEnv resolves only from the trusted context',
    witness: (e) => unless(registrationObjects(e).some((o) => typeof o.tokenEnv === 'string') && (acceptedRegistration(e) || refusedBy(e, 'credentials')), 'no tokenEnv judged by the credential check'),
  },
  {
    tag: 'registration:no-process-environment',
    text: 'check 4: a variable of the process environment that the context lacks does not resolve',
    witness: (e) =>
      unless(
        refusedBy(e, 'credentials') && e.registrations.some((r) => registrationObjects(e).some((o) => typeof o.tokenEnv === 'string' && !Object.hasOwn(r.step.context.environment, o.tokenEnv))),
        'no refused tokenEnv missing from the context',
      ),
  },
  { tag: 'registration:credential-ref', text: 'check 4: a secret reference has no trusted resolver', witness: (e) => unless(refusedBy(e, 'credentials') && registrationObjects(e).some((o) => 'tokenRef' in o || 'clientSecretRef' in o), 'no secret reference refused') },
  {
    tag: 'registration:credential-oauth',
    text: 'check 4: interactive OAuth needs an interactive context',
    witness: (e) => unless(refusedBy(e, 'credentials') && registrationObjects(e).some((o) => o.flow === 'authorization_code_pkce') && e.registrations.every((r) => !r.step.context.interactive), 'no interactive OAuth refused'),
  },
  {
    tag: 'registration:requirement-coverage',
    text: 'check 5: each required (event, mode) must be delivered by a subscription',
    witness: (e) => unless(requirementsOf(e).length > 0 && (acceptedRegistration(e) || refusedBy(e, 'requirements')), 'no requirement judged'),
  },
  {
    tag: 'registration:requirement-ask',
    text: 'check 5: a required ask needs an interactive context',
    witness: (e) => unless(refusedBy(e, 'requirements') && requirementsOf(e).some((r) => Array.isArray(r.effects) && r.effects.includes('ask')), 'no required ask refused'),
  },
  { tag: 'registration:requirement-effect', text: 'check 5: a required effect must be advertised for the event and mode', witness: (e) => unless(refusedBy(e, 'requirements') && requirementsOf(e).some((r) => Array.isArray(r.effects) && r.effects.length > 0), 'no required effect refused') },
  {
    tag: 'registration:requirement-modify',
    text: 'check 5: a required modify operation must be advertised for its target',
    witness: (e) => unless(requirementsOf(e).some((r) => r.modify !== undefined) && (acceptedRegistration(e) || refusedBy(e, 'requirements')), 'no modify requirement judged'),
  },
];

function changeRejection(tag: string, text: string, shows: (d: DeliveryEvidence) => boolean): CoverageItem {
  return { tag, text, witness: (e) => unless(rejectedBy(e, 'change').some(shows), `no such rejection by rule 2`) };
}

function identityRejection(tag: string, text: string, differs: (d: DeliveryEvidence, first: DeliveryEvidence) => boolean): CoverageItem {
  return {
    tag,
    text,
    witness: (e) => {
      const ok = rejectedBy(e, 'identity').some((d) => {
        const first = [...e.earlier, ...e.deliveries].find((c) => c.verdict.accepted && sameIdentity(c, sourceOf(d), idOf(d)));
        return first !== undefined && differs(d, first);
      });
      return unless(ok, 'no such rejection by rule 3');
    },
  };
}

function pairRejection(tag: string, text: string, shows: (d: DeliveryEvidence, parent: DeliveryEvidence) => boolean): CoverageItem {
  return {
    tag,
    text,
    witness: (e) => {
      const ok = rejectedBy(e, 'parent').some((d) => {
        const parent = knownParent(d, [...e.earlier, ...e.deliveries]);
        return parent !== undefined && shows(d, parent);
      });
      return unless(ok, 'no such rejection by rule 5');
    },
  };
}

/**
 * Coverage that is not a row's: behaviours only a message no client can send shows, each with the
 * catalogue receiver probe that sends it. A notification without an event used to be the row
 * `execution:observation-without-event`; a client waits on the event id after every send
 * (CATALOGUE-RULES §5), so that row stopped real clients and lost the whole run.
 */
export const CATALOGUE_PROBE_COVERAGE: ReadonlyArray<{ tag: string; text: string; probe: CatalogueReceiverProbeName }> = [
  { tag: 'delivery:null-event-id', text: 'a notification without an event is rejected as schema-invalid and recorded with eventId null', probe: 'event-less-observation' },
];

/** Problems of the coverage: untagged items, unknown tags, tagged rows whose witness fails. */
export function coverageProblems(evidence: readonly RowEvidence[]): string[] {
  const problems: string[] = [];
  const items = new Map(CATALOGUE_COVERAGE.map((item) => [item.tag, item]));
  const probed = new Map(CATALOGUE_PROBE_COVERAGE.map((item) => [item.tag, item]));
  for (const e of evidence) {
    for (const tag of e.row.tags ?? []) {
      const item = items.get(tag);
      const probe = probed.get(tag);
      if (probe !== undefined) {
        problems.push(`${e.row.id}: tag ${JSON.stringify(tag)} is covered by the receiver probe receiver/${probe.probe}, not by a row (no client can run such a row)`);
        continue;
      }
      if (item === undefined) {
        problems.push(`${e.row.id}: tag ${JSON.stringify(tag)} is not a coverage item`);
        continue;
      }
      const lacking = item.witness(e, evidence);
      if (lacking !== undefined) problems.push(`${e.row.id}: tagged ${tag} but ${lacking}`);
    }
  }
  for (const item of CATALOGUE_COVERAGE) {
    if (!evidence.some((e) => e.row.tags?.includes(item.tag))) problems.push(`coverage: no row is tagged ${item.tag} (${item.text})`);
  }
  return problems;
}

/** The event of a message, when it carries one as an object. */
export function eventObject(message: JsonObject): JsonObject | undefined {
  const event = eventOf(message);
  return isJsonObject(event) ? event : undefined;
}
