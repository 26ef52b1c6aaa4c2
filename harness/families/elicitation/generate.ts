// Our elicitation case files (fixtures/elicitation.json for the upload binding, the default, and
// fixtures/elicitation-inline.json for the inline binding of rules §14): every wire case, the atomic
// rows, the concurrent scenario and the probes. Statuses and receipts come from the receiver model,
// the atomic expectations from the atomic model; checkElicitationCaseBuild then holds the model's
// outcomes against the rules' own classification of each case, so a model bug cannot silently rewrite
// what a case expects.

import { jsonEqual, type JsonObject } from '../../protocol/json.ts';
import type { ElicitationBinding, ElicitationCaseFile, Probe, UploadDescriptor, WireCase } from './case-types.ts';
import { atomicRows } from './atomic-rows.ts';
import { bodyAlias, buildEnvelopes, eventId, withSession, type Mutation } from './envelopes.ts';
import { modelSteps, type DraftStep } from './model-steps.ts';
import { bodyOctets, toBase64 } from './payloads.ts';
import { ReceiverModel } from './receiver-model.ts';
import { concurrentBodies, wireCaseSpecs, type WireCaseSpec } from './wire-case-specs.ts';

export const CONCURRENT_CASE_ID = 'concurrent-reverse-settlement';
export const UNAUTHENTICATED_PROBE_ID = 'probe/unauthenticated-receipts';
export const UPLOAD_IMMUTABLE_PROBE_ID = 'probe/upload-immutable-ref';
export const UPLOAD_CREDENTIAL_PROBE_ID = 'probe/upload-wrong-credential';

function uploadDraft(alias: string, body: Parameters<typeof bodyOctets>[0]): DraftStep {
  return { kind: 'upload', alias, bytes: toBase64(bodyOctets(body)) };
}

function caseDrafts(spec: WireCaseSpec, binding: ElicitationBinding): DraftStep[] {
  const has = (mutation: Mutation) => spec.mutations.includes(mutation);
  const envelopes = buildEnvelopes({ name: spec.id, binding, selection: spec.selection, request: spec.request, result: spec.result, mutations: spec.mutations });
  const drafts: DraftStep[] = [];
  if (binding === 'upload' && spec.selection === 'body') {
    if (!has('missing-upload') && !has('request-gap')) drafts.push(uploadDraft(bodyAlias(spec.id, 'request'), spec.request));
    if (!has('result-gap')) drafts.push(uploadDraft(bodyAlias(spec.id, 'result'), spec.result));
  }
  const requestId = eventId(spec.id, 'request');
  drafts.push({ kind: 'intercept', eventId: requestId, stage: 'request', message: envelopes.request });
  drafts.push({ kind: 'intercept', eventId: eventId(spec.id, 'result'), stage: 'result', message: envelopes.result, requires: requestId });
  return drafts;
}

function tagsOf(spec: WireCaseSpec): string[] {
  const mode = spec.request.mode === 'url' ? 'url' : 'form';
  return [mode, spec.selection, spec.rejectedBy === null ? 'positive' : 'negative', ...(spec.ours ? ['ours'] : [])];
}

function buildCase(spec: WireCaseSpec, binding: ElicitationBinding, model: ReceiverModel, aliases: Map<string, UploadDescriptor>): WireCase {
  const { steps, receipts } = modelSteps(caseDrafts(spec, binding), model, aliases);
  return { id: spec.id, proves: spec.proves, selection: spec.selection, rejectedBy: spec.rejectedBy, tags: tagsOf(spec), steps, receipts };
}

function concurrentDrafts(binding: ElicitationBinding): DraftStep[] {
  const bodies = concurrentBodies();
  const build = (name: string, pair: { request: JsonObject; result: JsonObject }) =>
    buildEnvelopes({ name, binding, selection: 'body', request: pair.request, result: pair.result, mutations: [] });
  const a = build('concurrent-a', bodies.a);
  const b = build('concurrent-b', bodies.b);
  const shared = (envelope: JsonObject) => withSession(envelope, 'shared-concurrent-session');
  const intercept = (name: string, stage: 'request' | 'result', message: JsonObject): DraftStep => ({ kind: 'intercept', eventId: eventId(name, stage), stage, message });
  const uploads: DraftStep[] =
    binding === 'upload'
      ? [
          uploadDraft(bodyAlias('concurrent-a', 'request'), bodies.a.request),
          uploadDraft(bodyAlias('concurrent-a', 'result'), bodies.a.result),
          uploadDraft(bodyAlias('concurrent-b', 'request'), bodies.b.request),
          uploadDraft(bodyAlias('concurrent-b', 'result'), bodies.b.result),
        ]
      : [];
  return [
    ...uploads,
    intercept('concurrent-a', 'request', shared(a.request)),
    intercept('concurrent-b', 'request', shared(b.request)),
    // A duplicate of a live identity: refused, and the live request must survive it.
    intercept('concurrent-a', 'request', shared(a.request)),
    // The wrong session: refused, and it must not consume the pending request.
    intercept('concurrent-a', 'result', withSession(a.result, 'wrong-concurrent-session')),
    intercept('concurrent-b', 'result', shared(b.result)),
    intercept('concurrent-a', 'result', shared(a.result)),
  ];
}

function buildConcurrent(binding: ElicitationBinding, model: ReceiverModel, aliases: Map<string, UploadDescriptor>): WireCase {
  const { steps, receipts } = modelSteps(concurrentDrafts(binding), model, aliases);
  return {
    id: CONCURRENT_CASE_ID,
    proves: 'two live requests in one session settle in reverse order, each against its own schema; a duplicate live request and a wrong-session result are refused without replacing or consuming anything',
    selection: 'body',
    rejectedBy: 'duplicate-live-request',
    tags: ['form', 'body', 'concurrent'],
    steps,
    receipts,
  };
}

function buildProbes(model: ReceiverModel, aliases: Map<string, UploadDescriptor>): Probe[] {
  const immutable = modelSteps(
    [
      { kind: 'upload', alias: 'immutable', bytes: toBase64('one') },
      { kind: 'upload', alias: 'immutable', bytes: toBase64('two') },
    ],
    model,
    aliases,
  );
  const credential = modelSteps([{ kind: 'upload', alias: 'unauthorized', bytes: toBase64('x'), headers: { Authorization: 'Bearer unauthorized-upload' } }], model, aliases);
  const uploadsOnly = (steps: typeof immutable.steps) => steps.flatMap((step) => (step.kind === 'upload' ? [step] : []));
  return [
    { id: UNAUTHENTICATED_PROBE_ID, kind: 'unauthenticated-receipts', proves: '`/receipts` without the event bearer is refused with 401', expectStatus: 401 },
    { id: UPLOAD_IMMUTABLE_PROBE_ID, kind: 'upload', proves: 'changed bytes uploaded under one local name get a new receiver ref (stored bytes are immutable)', steps: uploadsOnly(immutable.steps) },
    { id: UPLOAD_CREDENTIAL_PROBE_ID, kind: 'upload', proves: 'an upload with a wrong credential is refused with 401 (the client keeps the header it was given)', steps: uploadsOnly(credential.steps) },
  ];
}

export function buildElicitationCaseFile(binding: ElicitationBinding): ElicitationCaseFile {
  const model = new ReceiverModel();
  const aliases = new Map<string, UploadDescriptor>();
  const cases = wireCaseSpecs(binding).map((spec) => buildCase(spec, binding, model, aliases));
  const probes = buildProbes(model, aliases);
  const concurrent = buildConcurrent(binding, model, aliases);
  return { version: 1, binding, cases, atomic: atomicRows(binding), concurrent, probes };
}

export function serializeElicitationCaseFile(file: ElicitationCaseFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}

/**
 * The generator's own checks, one line per problem: every case ends as the rules classify it (all
 * steps accepted, or exactly its last intercept refused), a case gets the same outcome on a fresh
 * receiver as in the full run (so `-t` may run it alone), and the atomic rows publish the rules' six.
 */
export function checkElicitationCaseBuild(file: ElicitationCaseFile): string[] {
  const problems: string[] = [];
  const specs = new Map(wireCaseSpecs(file.binding).map((spec) => [spec.id, spec]));
  for (const wire of file.cases) {
    const refused = wire.steps.flatMap((step, i) => ((step.kind === 'intercept' ? step.expectStatus !== 200 : step.expectStatus !== 201) ? [i] : []));
    if (wire.rejectedBy === null && refused.length > 0) problems.push(`${wire.id}: the rules accept every step, but the model refuses step(s) ${refused.join(', ')}`);
    if (wire.rejectedBy !== null && (refused.length !== 1 || refused[0] !== wire.steps.length - 1)) {
      problems.push(`${wire.id}: the rules refuse it (${wire.rejectedBy}) at its last intercept, but the model refuses step(s) [${refused.join(', ')}] of ${wire.steps.length}`);
    }
    const spec = specs.get(wire.id);
    if (spec !== undefined) {
      const alone = buildCase(spec, file.binding, new ReceiverModel(), new Map());
      const statuses = (c: WireCase) => c.steps.map((step) => step.expectStatus);
      if (!jsonEqual(statuses(alone), statuses(wire)) || !jsonEqual(alone.receipts, wire.receipts)) problems.push(`${wire.id}: its outcome on a fresh receiver differs from the full run's`);
    }
  }
  const published = file.atomic.filter((row) => row.expected.accepted).map((row) => row.name);
  const wanted = ['before-return', 'before-deny', 'result-replace', 'result-merge', 'url-return', 'url-deny'];
  if (!jsonEqual(published, wanted)) problems.push(`atomic: the model publishes [${published.join(', ')}], the rules publish [${wanted.join(', ')}]`);
  const ids = [...file.cases.map((c) => c.id), file.concurrent.id, ...file.atomic.map((row) => row.id), ...file.probes.map((probe) => probe.id)];
  const duplicates = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (duplicates.length > 0) problems.push(`duplicate ids: ${[...new Set(duplicates)].join(', ')}`);
  return problems;
}
