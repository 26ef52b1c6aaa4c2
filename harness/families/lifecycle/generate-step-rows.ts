// Our lifecycle step-script rows, as intent only: requests, scripted replies and steps. Nothing here
// says what the outcome is; the generator runs each script through the simulator to get `expected`
// and derives the transports from what the script does. Tags name the coverage items a row proves
// (lifecycle-coverage.ts), whose witnesses check the simulated trace really shows them.

import { sha256Hex } from '../../protocol/sha256-hex.ts';
import type { JsonObject } from '../../protocol/json.ts';
import type { InterceptRequest } from '../../protocol/messages.ts';
import type { LifecycleStep } from '../../lifecycle-adapters/scenario-types.ts';
import { allow, ask, cont, deny, inject, merge, message, replace, respond, ret, stop } from '../../generate/effect-builders.ts';
import {
  PROPOSED_INPUT,
  attachmentBody,
  attachmentGap,
  attachmentMetadata,
  publish,
  requestId,
  script,
  sendAndStage,
  toolBeforeRequest,
  turnFinishRequest,
  uploadStep,
} from './wire.ts';

export interface StepRowSpec {
  id: string;
  description: string;
  tags: string[];
  requests: Record<string, InterceptRequest>;
  responses: Record<string, JsonObject>;
  responseSequences?: Record<string, JsonObject[]>;
  steps: LifecycleStep[];
}

/** Request `a` (and more keys) of a row, with each reply built for that request's JSON-RPC id. */
function toolRows(rowId: string, replies: Record<string, JsonObject[]>): Pick<StepRowSpec, 'requests' | 'responses'> {
  const requests: Record<string, InterceptRequest> = {};
  const responses: Record<string, JsonObject> = {};
  for (const [key, effects] of Object.entries(replies)) {
    requests[key] = toolBeforeRequest(rowId, key);
    responses[key] = respond(requestId(rowId, key), effects);
  }
  return { requests, responses };
}

/** A reply that would publish a full tool-boundary result if it were ever accepted: every effect a discard must swallow. */
function everyToolEffect(text: string): JsonObject[] {
  return [
    replace({ ...PROPOSED_INPUT, text }),
    message(`${text} (message)`),
    allow(),
    ret({ written: false, note: text }),
    inject('next_turn', `${text} (context)`),
  ];
}

/** An ordinary approving reply: replace the text, say so, allow. */
function approve(text: string, note: string): JsonObject[] {
  return [replace({ ...PROPOSED_INPUT, text }), message(note), allow()];
}

function cancellationRows(): StepRowSpec[] {
  const heldId = 'cancel.held-before-reply';
  const stagedId = 'cancel.staged-before-acceptance';
  const finishId = 'cancel.staged-continue-at-turn-finish';
  const lateId = 'cancel.late-reply-while-next-pending';
  return [
    {
      id: heldId,
      description: 'A cancel while the reply is still held wins: fail-open and accept after it publish nothing, and the late reply (modify, message, allow, return and inject) is ignored',
      tags: ['cancellation', 'cancel-before-reply', 'fail-open-after-cancel'],
      ...toolRows(heldId, { a: everyToolEffect('late edit') }),
      steps: script('send a', 'wait a', 'cancel a', 'failOpen a', 'accept a', 'release a', 'receive a', 'accept a', 'failOpen a'),
    },
    {
      id: stagedId,
      description: 'A reply acquired and staged but not yet accepted is discarded by a cancel: its modify, message, allow, return and inject never publish, nor does a fail-open fallback',
      tags: ['cancellation', 'cancel-after-acquisition', 'discard-retained-effects', 'fail-open-after-cancel'],
      ...toolRows(stagedId, { a: everyToolEffect('staged edit') }),
      steps: script(sendAndStage('a'), 'cancel a', 'accept a', 'failOpen a'),
    },
    {
      id: finishId,
      description: 'At turn.finish.before, a staged reply asking to continue the turn (with a message) is discarded by a cancel before acceptance',
      tags: ['cancellation', 'cancel-after-acquisition', 'discard-retained-effects', 'fail-open-after-cancel'],
      requests: { a: turnFinishRequest(finishId, 'a') },
      responses: { a: respond(requestId(finishId, 'a'), [cont('check the plan once more'), message('one more pass')]) },
      steps: script(sendAndStage('a'), 'cancel a', 'failOpen a', 'accept a'),
    },
    {
      id: lateId,
      description: 'The reply of a cancelled request arrives while the next request is pending: it is ignored, an early accept of the next one is a no-op, and the next one publishes its own reply',
      tags: ['cancellation', 'late-old-reply', 'cancel-before-reply', 'fail-open-after-cancel'],
      ...toolRows(lateId, { a: approve('superseded edit', 'old reply'), b: [merge({ reviewer: 'second pass' }), message('next reply'), allow()] }),
      steps: script(
        'send a', 'wait a', 'cancel a', 'send b', 'wait b', 'release a', 'receive a', 'accept b', 'release b', 'receive b', 'accept b',
        'failOpen a',
      ),
    },
  ];
}

function duplicateRows(): StepRowSpec[] {
  const identicalId = 'duplicate.identical-replay-after-publication';
  const changedId = 'duplicate.changed-replay-after-publication';
  const firstId = 'duplicate.first-staged-reply-kept';
  const replay: LifecycleStep[] = script('replay a replay', 'wait a 2', 'receive replay', 'accept a');
  const changed = toolRows(changedId, { a: approve('reviewed draft', 'approved once') });
  const first = toolRows(firstId, { a: approve('reviewed draft', 'first reply') });
  const changedRpc = requestId(changedId, 'a');
  const firstRpc = requestId(firstId, 'a');
  return [
    {
      id: identicalId,
      description: 'A raw replay of a published request gets the same reply again: two receipts, one publication, the replayed reply ignored',
      tags: ['duplicates', 'duplicate-no-republish'],
      ...toolRows(identicalId, { a: approve('reviewed draft', 'approved once') }),
      steps: [...publish('a'), ...replay],
    },
    {
      id: changedId,
      description: 'A raw replay of a published request gets a different reply (a deny): it is ignored and the published state stays as first accepted',
      tags: ['duplicates', 'duplicate-no-republish'],
      ...changed,
      responseSequences: { a: [changed.responses.a!, respond(changedRpc, [deny('replayed refusal'), message('must not publish')])] },
      steps: [...publish('a'), ...replay],
    },
    {
      id: firstId,
      description: 'A duplicate reply with other effects arrives while the first valid reply is staged: the first is kept and accepted, the duplicate ignored',
      tags: ['duplicates', 'first-response-retained', 'duplicate-no-republish'],
      ...first,
      responseSequences: {
        a: [first.responses.a!, respond(firstRpc, [replace({ ...PROPOSED_INPUT, text: 'duplicate must not replace' }), message('duplicate reply'), allow()])],
      },
      steps: script(sendAndStage('a'), 'replay a replay', 'wait a 2', 'receive replay', 'accept a'),
    },
  ];
}

function acceptanceRows(): StepRowSpec[] {
  const namedId = 'acceptance.names-its-request';
  const reverseId = 'acceptance.reverse-order-staging';
  return [
    {
      id: namedId,
      description: 'Accepting a request whose reply has not arrived is a no-op even though another reply just arrived; each request publishes its own reply',
      tags: ['acceptance', 'request-specific-acceptance'],
      ...toolRows(namedId, { a: approve('first edit', 'first request'), b: approve('second edit', 'second request') }),
      steps: script(
        'send a', 'wait a', 'send b', 'wait b', 'release a', 'receive a', 'accept b', 'accept a', 'release b', 'receive b', 'accept b',
      ),
    },
    {
      id: reverseId,
      description: 'Two requests in flight: replies arrive in reverse order and are accepted in reverse of arrival; each keeps its own staged payload',
      tags: ['acceptance', 'reverse-order-acceptance'],
      ...toolRows(reverseId, {
        a: approve('edited by the first reviewer', 'first payload'),
        b: [merge({ reviewer: 'second reviewer' }), message('second payload'), allow()],
      }),
      steps: script('send a', 'wait a', 'send b', 'wait b', 'release b', 'receive b', 'release a', 'receive a', 'accept a', 'accept b'),
    },
  ];
}

// The bytes of the observation rows: small binary payloads (a PNG signature and a label).
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const pngLike = (label: string): Buffer => Buffer.concat([PNG_SIGNATURE, Buffer.from(label, 'utf8')]);

function observationRows(): StepRowSpec[] {
  const viewsId = 'observe.settled-body-and-metadata-views';
  const interruptId = 'interrupt.after-publication-keeps-state';
  const deniedId = 'observe.denied-boundary';
  const deniedModifyId = 'observe.denied-after-staged-modify';
  const cancelledId = 'observe.cancelled-while-held';
  const stoppedId = 'observe.stopped-boundary';
  const askId = 'observe.ask-boundary';
  const diagram = pngLike('settled view diagram');
  const observeAfterPublish = (subscription = 'metadata'): LifecycleStep[] => [...publish('a'), { op: 'observe', key: 'a', subscription }];
  return [
    {
      id: viewsId,
      description: 'After settlement, a body view and a metadata view of the same event carry its id and the settled input; an observer reply cannot reopen the decision',
      tags: ['observation', 'settled-observation-views', 'per-subscription-views', 'observer-effects-ignored', 'upload-before-observe-body'],
      ...toolRows(viewsId, { a: approve('reviewed draft', 'approved for observers') }),
      steps: script(
        uploadStep('views-diagram', diagram),
        publish('a'),
        { op: 'observe', key: 'a', subscription: 'body', items: [attachmentBody('diagram', 'views-diagram', 'image/png')] },
        { op: 'observe', key: 'a', subscription: 'metadata', items: [attachmentMetadata('diagram', diagram, 'image/png')] },
        'accept a',
      ),
    },
    {
      id: interruptId,
      description: 'A cancel after publication takes effect but keeps the published state; later accept and fail-open are no-ops and the observation carries the settled input',
      tags: ['observation', 'interrupt-after-publication', 'fail-open-after-cancel'],
      ...toolRows(interruptId, { a: approve('reviewed draft', 'approved before the interrupt') }),
      steps: script(publish('a'), 'cancel a', 'accept a', 'failOpen a', { op: 'observe', key: 'a', subscription: 'metadata' }),
    },
    {
      id: deniedId,
      description: 'A denied boundary publishes deny without executing and stays observable with the proposed input',
      tags: ['observation', 'denied-boundary-observed'],
      ...toolRows(deniedId, { a: [deny('writing plans is not allowed here')] }),
      steps: observeAfterPublish(),
    },
    {
      id: deniedModifyId,
      description: 'A deny in the same reply as a merge: the modification is part of the accepted reply, so the denied state and its observation carry the merged input',
      tags: ['observation', 'denied-boundary-observed'],
      ...toolRows(deniedModifyId, { a: [merge({ reviewer: 'policy' }), deny('denied after review'), message('see the review notes')] }),
      steps: observeAfterPublish(),
    },
    {
      id: cancelledId,
      description: 'A request cancelled while its reply is still held is observed right away with the proposed input; the reply released later is ignored',
      tags: ['observation', 'cancelled-boundary-observed', 'cancel-before-reply', 'fail-open-after-cancel'],
      ...toolRows(cancelledId, { a: everyToolEffect('edit after cancel') }),
      steps: script(
        'send a', 'wait a', 'cancel a', { op: 'observe', key: 'a', subscription: 'metadata' }, 'release a', 'receive a', 'accept a',
        'failOpen a',
      ),
    },
    {
      id: stoppedId,
      description: 'A flow stop publishes a non-executed allow with flow stop and stays observable with the proposed input',
      tags: ['observation', 'stopped-boundary-observed'],
      ...toolRows(stoppedId, { a: [stop('pause for a human review')] }),
      steps: observeAfterPublish(),
    },
    {
      id: askId,
      description: 'An ask publishes a pending, non-executed decision and stays observable with the proposed input',
      tags: ['observation', 'ask-boundary-observed'],
      ...toolRows(askId, { a: [ask()] }),
      steps: observeAfterPublish('body'),
    },
  ];
}

function uploadRows(): StepRowSpec[] {
  const immutableId = 'upload.immutable-bindings-and-views';
  const rejectId = 'upload.receiver-rejections';
  const changedId = 'upload.one-byte-change-new-ref';
  const planV1 = pngLike('plan attachment, revision 1');
  const planV2 = pngLike('plan attachment, revision 2 with notes');
  const strayCopy = pngLike('plan attachment, unauthorized rewrite');
  const probe = Buffer.from('receiver integrity probe \u0000\u00ff', 'latin1');
  const sketch = pngLike('sketch 0001');
  const sketchEdited = pngLike('sketch 0002');
  return [
    {
      id: immutableId,
      description: 'Repeated uploads of identical bytes, changed bytes under new aliases, and a refused (401) upload that must not rebind an alias; then a body view and a gap view of the same items',
      tags: ['upload', 'immutable-upload-bindings', 'changed-bytes-new-ref', 'unauthorized-never-rebinds', 'content-authorization-views', 'upload-before-observe-body'],
      ...toolRows(immutableId, { a: approve('reviewed draft', 'approved with attachments') }),
      steps: [
        uploadStep('plan-r1', planV1),
        uploadStep('plan-r1-again', planV1),
        uploadStep('plan-r2', planV2),
        uploadStep('plan-r2-again', planV2),
        uploadStep('plan-r1', strayCopy, { subscription: 'metadata', unauthorized: true }),
        ...publish('a'),
        {
          op: 'observe',
          key: 'a',
          subscription: 'body',
          items: [attachmentBody('plan', 'plan-r1', 'image/png'), attachmentBody('plan-revision', 'plan-r2', 'image/png')],
        },
        { op: 'observe', key: 'a', subscription: 'metadata', items: [attachmentGap('plan', 'image/png'), attachmentGap('plan-revision', 'image/png')] },
      ],
    },
    {
      id: rejectId,
      description: 'The receiver refuses a wrong declared size (400), a wrong declared digest (400) and a refused credential (401); a correct upload after them is confirmed and carried by an intercept',
      tags: ['upload', 'upload-rejects-size', 'upload-rejects-hash', 'upload-rejects-credential', 'upload-before-intercept-body'],
      requests: { a: toolBeforeRequest(rejectId, 'a', { items: [attachmentBody('probe', 'probe-accepted')] }) },
      responses: { a: respond(requestId(rejectId, 'a'), approve('reviewed draft', 'probe accepted')) },
      steps: [
        uploadStep('probe-wrong-size', probe, { declaredSize: probe.length + 5 }),
        uploadStep('probe-wrong-digest', probe, { declaredSha256: sha256Hex(planV1) }),
        uploadStep('probe-refused', probe, { subscription: 'metadata', unauthorized: true }),
        uploadStep('probe-accepted', probe),
        ...publish('a'),
      ],
    },
    {
      id: changedId,
      description: 'Bytes that differ in one position get a fresh receiver reference; a body view carries both references',
      tags: ['upload', 'changed-bytes-new-ref', 'upload-before-observe-body'],
      ...toolRows(changedId, { a: approve('reviewed draft', 'approved sketches') }),
      steps: [
        uploadStep('sketch-0001', sketch),
        uploadStep('sketch-0002', sketchEdited),
        ...publish('a'),
        {
          op: 'observe',
          key: 'a',
          subscription: 'body',
          items: [attachmentBody('sketch', 'sketch-0001', 'image/png'), attachmentBody('sketch-edited', 'sketch-0002', 'image/png')],
        },
      ],
    },
  ];
}

/** 259 octets: every byte value once (255 down to 0), then CR, LF and NUL again. */
export const ALL_OCTETS = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i)), Buffer.from([0x0d, 0x0a, 0x00])]);

function contentRows(): StepRowSpec[] {
  const categoriesId = 'content.labelled-categories';
  const octetsId = 'content.all-octets-and-empty';
  const interceptId = 'content.intercept-body-after-upload';
  const reasoning = Buffer.from([0x00, 0x01, 0x52, 0x53, 0x4e, 0xfe]);
  const skill = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from('skill bundle: plan-review', 'utf8')]);
  const native = Buffer.from([0x0a, 0x05, 0x68, 0x6f, 0x73, 0x74, 0x73, 0x10, 0x2a]);
  const patch = Buffer.concat([Buffer.from([0x00, 0xff, 0x00]), Buffer.from('binary patch', 'utf8')]);
  const categorised = [
    attachmentBody('reasoning-trace', 'category-reasoning', 'application/octet-stream', 'reasoning'),
    attachmentBody('skill-bundle', 'category-skill', 'application/zip', 'skill'),
    attachmentBody('native-payload', 'category-native', 'application/x-protobuf', 'native'),
  ];
  return [
    {
      id: categoriesId,
      description: 'Attachments labelled reasoning, skill and native are uploaded, carried by the intercept and observed like any other content',
      tags: ['content', 'content-categories', 'upload-before-intercept-body', 'upload-before-observe-body'],
      requests: { a: toolBeforeRequest(categoriesId, 'a', { items: categorised }) },
      responses: { a: respond(requestId(categoriesId, 'a'), approve('reviewed draft', 'categories accepted')) },
      steps: [
        uploadStep('category-reasoning', reasoning),
        uploadStep('category-skill', skill),
        uploadStep('category-native', native),
        ...publish('a'),
        { op: 'observe', key: 'a', subscription: 'body' },
      ],
    },
    {
      id: octetsId,
      description: '259 raw octets covering every byte value and a 0-byte body are uploaded unchanged and referenced by a body view',
      tags: ['content', 'binary-octets', 'empty-upload', 'upload-before-observe-body'],
      ...toolRows(octetsId, { a: approve('reviewed draft', 'octets accepted') }),
      steps: [
        uploadStep('octets-all', ALL_OCTETS),
        uploadStep('octets-none', Buffer.alloc(0)),
        ...publish('a'),
        { op: 'observe', key: 'a', subscription: 'body', items: [attachmentBody('all-octets', 'octets-all'), attachmentBody('no-octets', 'octets-none')] },
      ],
    },
    {
      id: interceptId,
      description: 'An intercept whose event carries a body reference is sent only after the upload is confirmed (201)',
      tags: ['content', 'upload-before-intercept-body'],
      requests: { a: toolBeforeRequest(interceptId, 'a', { items: [attachmentBody('patch', 'intercept-patch')] }) },
      responses: { a: respond(requestId(interceptId, 'a'), approve('reviewed draft', 'patch accepted')) },
      steps: [uploadStep('intercept-patch', patch), ...publish('a')],
    },
  ];
}

function strayFrameRows(): StepRowSpec[] {
  const staleId = 'stdio.stale-frame-while-next-live';
  const unknownId = 'stdio.unknown-frame-while-live';
  const stale = toolRows(staleId, { a: approve('first edit', 'first request'), b: approve('second edit', 'second request') });
  return [
    {
      id: staleId,
      description: 'A stray second reply for an already published request arrives while the next request is live: discarded without consuming the live slot',
      tags: ['stdio-frames', 'unsolicited-stale-frame'],
      ...stale,
      steps: script(
        publish('a'),
        'send b',
        'wait b',
        { op: 'emit', response: respond(requestId(staleId, 'a'), [replace({ ...PROPOSED_INPUT, text: 'stale frame must not apply' }), allow()]) },
        'release b',
        'receive b',
        'accept b',
      ),
    },
    {
      id: unknownId,
      description: 'A frame with an id no request ever had arrives while a request is live: discarded, and the live request publishes its own reply',
      tags: ['stdio-frames', 'unsolicited-unknown-frame'],
      ...toolRows(unknownId, { a: approve('reviewed draft', 'live reply') }),
      steps: script(
        'send a', 'wait a', { op: 'emit', response: respond(`${unknownId}:never-sent`, [deny('a frame nobody asked for')]) },
        'release a', 'receive a', 'accept a',
      ),
    },
  ];
}

export function stepRowSpecs(): StepRowSpec[] {
  return [...cancellationRows(), ...duplicateRows(), ...acceptanceRows(), ...observationRows(), ...uploadRows(), ...contentRows(), ...strayFrameRows()];
}
