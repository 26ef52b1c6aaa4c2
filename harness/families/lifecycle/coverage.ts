// What our lifecycle fixtures must cover — every item of LIFECYCLE-MATRIX.md's coverage list, every
// intent of LIFECYCLE-RULES §12, and the upload and chain cases the lifecycle issue asks for — each
// with a witness: a check over a tagged row's simulated trace that the row really shows the behaviour.
// A tag without a passing witness, or an item no row is tagged with, fails the generator.

import { decodeStrictBase64 } from '../../lifecycle-adapters/content-sources.ts';
import type { ChainSimulation, ChainTraceEvent } from './simulate-chain.ts';
import type { StepSimulation, StepTraceEvent } from '../../lifecycle-adapters/simulate-step-script.ts';
import type { ChainScenario, StepScenario } from '../../lifecycle-adapters/scenario-types.ts';
import { UNAUTHORIZED_UPLOAD_TOKEN_ENV } from '../../auth/constants.ts';
import { isJsonObject, jsonEqual, type JsonObject } from '../../protocol/json.ts';
import type { InterceptRequest } from '../../protocol/messages.ts';

/** A generated row with what the simulator made of it. */
export type RowEvidence =
  | { kind: 'steps'; row: StepScenario; simulation: StepSimulation }
  | { kind: 'chain'; row: ChainScenario; simulation: ChainSimulation };

export interface CoverageItem {
  tag: string;
  /** Where the requirement comes from. */
  source: 'LIFECYCLE-MATRIX coverage' | 'LIFECYCLE-RULES §12' | 'lifecycle issue';
  text: string;
  /** `undefined` when the row shows the behaviour; otherwise what it lacks. */
  witness(evidence: RowEvidence): string | undefined;
  /** A condition on all tagged rows together, where one row cannot show everything. */
  together?(evidence: readonly RowEvidence[]): string | undefined;
}

/** Tags that group rows by area; they claim nothing and need no witness. */
export const AREA_TAGS = ['cancellation', 'duplicates', 'acceptance', 'observation', 'upload', 'content', 'stdio-frames', 'chain'] as const;

// ----- trace helpers -------------------------------------------------------------------------------

type Kind = StepTraceEvent['kind'];
type EventOf<K extends Kind> = Extract<StepTraceEvent, { kind: K }>;

function events<K extends Kind>(evidence: RowEvidence, kind: K): EventOf<K>[] {
  if (evidence.kind !== 'steps') return [];
  return evidence.simulation.trace.filter((e): e is EventOf<K> => e.kind === kind);
}

/** `undefined` when `ok`, else the reason. */
const unless = (ok: boolean, lacking: string): string | undefined => (ok ? undefined : lacking);

/** Effect types of a reply, `flow` split by operation (`flow:continue`). */
export function effectKinds(response: unknown): string[] {
  const result = isJsonObject(response) ? response.result : undefined;
  const effects = isJsonObject(result) && Array.isArray(result.effects) ? result.effects : [];
  return effects.map((e) => (isJsonObject(e) ? (e.type === 'flow' ? `flow:${String(e.operation)}` : String(e.type)) : '?'));
}

/** Replies the row staged and then lost to a cancel. */
function discardedReplies(evidence: RowEvidence): JsonObject[] {
  return events(evidence, 'cancelled').flatMap((e) => (e.discarded === undefined ? [] : [e.discarded]));
}

function stateOf(evidence: RowEvidence, id: string): StepScenario['expected']['states'][string] | undefined {
  return evidence.kind === 'steps' ? evidence.row.expected.states[id] : undefined;
}

function requestById(evidence: RowEvidence, id: string): InterceptRequest | undefined {
  return Object.values(evidence.row.requests).find((r) => String(r.id) === id);
}

function originalInput(evidence: RowEvidence, id: string): JsonObject | undefined {
  return requestById(evidence, id)?.params.event.tool?.input;
}

function itemsOf(items: unknown): JsonObject[] {
  return Array.isArray(items) ? items.filter(isJsonObject) : [];
}

/** Every body alias a row's wire messages carry (intercepts and observations). */
function referencedAliases(evidence: RowEvidence): Set<string> {
  return new Set([...events(evidence, 'sent').flatMap((e) => e.bodyAliases), ...events(evidence, 'observed').flatMap((e) => e.bodyAliases)]);
}

/** Confirmed uploads whose alias a later message references, with their bytes. */
function referencedConfirmedUploads(evidence: RowEvidence): Array<{ alias: string; bytes: Buffer; sha256: string }> {
  if (evidence.kind !== 'steps') return [];
  const referenced = referencedAliases(evidence);
  return events(evidence, 'upload').flatMap((e) => {
    const step = evidence.row.steps[e.step];
    if (e.outcome.status !== 201 || step?.op !== 'upload' || !referenced.has(e.alias) || e.binding === undefined) return [];
    const bytes = step.bodyBase64 !== undefined ? decodeStrictBase64(step.bodyBase64) : Buffer.from(step.body, 'utf8');
    return bytes === undefined ? [] : [{ alias: e.alias, bytes, sha256: e.binding.sha256 }];
  });
}

function observedWith(evidence: RowEvidence, predicate: (state: NonNullable<ReturnType<typeof stateOf>>) => boolean): boolean {
  return events(evidence, 'observed').some((o) => {
    const state = stateOf(evidence, o.id);
    return o.settledBy === 'published' && state !== undefined && predicate(state);
  });
}

/** A witness for chain rows: `holds` over the simulated chain, `lacking` when it does not. */
function chainWitness(lacking: string, holds: (chain: ChainSimulation, evidence: RowEvidence) => boolean): CoverageItem['witness'] {
  return (evidence) => (evidence.kind !== 'chain' ? 'not a chain row' : unless(holds(evidence.simulation, evidence), lacking));
}

type ChainCall = Extract<ChainTraceEvent, { kind: 'called' }>;

/** Whether some call and the call right after it satisfy `test`. */
function someConsecutiveCalls(chain: ChainSimulation, test: (call: ChainCall, next: ChainCall) => boolean): boolean {
  const calls = chain.trace.filter((t): t is ChainCall => t.kind === 'called');
  return calls.some((call, k) => {
    const next = calls[k + 1];
    return next !== undefined && test(call, next);
  });
}

function downgraded(chain: ChainSimulation): number {
  return chain.trace.filter((e) => e.kind === 'observed' && e.why === 'downgraded').length;
}

function explicitObservers(chain: ChainSimulation): number {
  return chain.trace.filter((e) => e.kind === 'observed' && e.why === 'explicit').length;
}

const DISCARDED_KINDS = ['modify', 'message', 'allow', 'return', 'flow:continue', 'inject'];

// ----- the items -----------------------------------------------------------------------------------

const M = 'LIFECYCLE-MATRIX coverage' as const;
const R = 'LIFECYCLE-RULES §12' as const;
const I = 'lifecycle issue' as const;

export const LIFECYCLE_COVERAGE: readonly CoverageItem[] = [
  {
    tag: 'cancel-before-reply',
    source: M,
    text: 'cancellation before a reply; failOpen/accept are no-ops and the late reply is ignored',
    witness: (e) => {
      const cancelled = events(e, 'cancelled').filter((c) => c.phase === 'awaiting-reply').map((c) => c.id);
      return unless(events(e, 'ignored').some((i) => i.because === 'cancelled' && cancelled.includes(i.id)), 'no request cancelled while awaiting its reply whose reply is then ignored');
    },
  },
  {
    tag: 'cancel-after-acquisition',
    source: M,
    text: 'cancellation after acquisition but before acceptance',
    witness: (e) => unless(events(e, 'cancelled').some((c) => c.phase === 'staged'), 'no cancel of a staged (acquired, unaccepted) reply'),
  },
  {
    tag: 'discard-retained-effects',
    source: M,
    text: 'discard of privately retained modify/message/allow/return/continue/inject responses',
    witness: (e) => unless(discardedReplies(e).length > 0, 'no staged reply discarded by a cancel'),
    together: (all) => {
      const kinds = new Set(all.flatMap((e) => discardedReplies(e).flatMap(effectKinds)));
      const missing = DISCARDED_KINDS.filter((k) => !kinds.has(k));
      return unless(missing.length === 0, `no discarded staged reply carries ${missing.join(', ')}`);
    },
  },
  {
    tag: 'fail-open-after-cancel',
    source: M,
    text: 'attempted fail-open fallback after cancellation publishes nothing',
    witness: (e) => unless(events(e, 'no-op').some((n) => n.op === 'failOpen' && n.because === 'cancelled'), 'no fail-open attempt after a cancel'),
  },
  {
    tag: 'late-old-reply',
    source: M,
    text: 'late old response while a different request is pending',
    witness: (e) => unless(events(e, 'ignored').some((i) => i.because === 'cancelled' && i.openOthers.length > 0), 'no late reply of a cancelled request while another is open'),
  },
  {
    tag: 'duplicate-no-republish',
    source: M,
    text: 'duplicate transport attempts/responses without second publication',
    witness: (e) => {
      const replays = events(e, 'sent').filter((s) => s.bypassSDK);
      const ignoredSlots = new Set(events(e, 'ignored').map((i) => i.slot));
      const published = events(e, 'published').map((p) => p.id);
      const once = replays.every((s) => published.filter((id) => id === s.id).length === 1);
      return unless(replays.length > 0 && replays.every((s) => ignoredSlots.has(s.slot)) && once, 'no raw replay whose reply is ignored with exactly one publication');
    },
  },
  {
    tag: 'first-response-retained',
    source: M,
    text: 'first valid response retained before acceptance against a duplicate with different effects (responseSequences)',
    witness: (e) => {
      const kept = events(e, 'ignored').filter((i) => i.because === 'staged' && i.staged !== undefined && !jsonEqual(i.staged, i.response));
      const ok = kept.some((i) => events(e, 'published').some((p) => p.id === i.id && jsonEqual(p.response, i.staged)));
      return unless(ok && e.row.responseSequences !== undefined, 'no differing duplicate ignored while the first reply was staged and then published');
    },
  },
  {
    tag: 'reverse-order-acceptance',
    source: M,
    text: 'reverse-order replies, two distinct staged payloads and reverse acceptance',
    witness: (e) => {
      const sentOrder = events(e, 'sent').filter((s) => !s.bypassSDK).map((s) => s.id);
      const stagedOrder = events(e, 'staged').map((s) => s.id);
      const published = events(e, 'published');
      const publishedOrder = published.map((p) => p.id);
      const reversed = stagedOrder.length === 2 && sentOrder.length === 2 && stagedOrder[0] === sentOrder[1] && stagedOrder[1] === sentOrder[0];
      const acceptedReverse = publishedOrder.length === 2 && publishedOrder[0] === stagedOrder[1] && publishedOrder[1] === stagedOrder[0];
      const distinct = published.length === 2 && !jsonEqual(published[0]?.state, published[1]?.state);
      return unless(reversed && acceptedReverse && distinct, 'no two requests whose replies arrive in reverse order and are accepted in reverse of arrival with distinct states');
    },
  },
  {
    tag: 'unsolicited-stale-frame',
    source: M,
    text: 'unsolicited stale stdio frame (for a settled request) discarded without consuming a live request',
    witness: (e) => unless(events(e, 'unsolicited').some((u) => u.relation === 'settled request' && u.live.length > 0), 'no stray frame for a settled request while another is live'),
  },
  {
    tag: 'unsolicited-unknown-frame',
    source: M,
    text: 'unsolicited unknown-id stdio frame discarded without consuming a live request',
    witness: (e) => unless(events(e, 'unsolicited').some((u) => u.relation === 'unknown id' && u.live.length > 0), 'no unknown-id frame while a request is live'),
  },
  {
    tag: 'request-specific-acceptance',
    source: M,
    text: 'acceptance correlated to the requested ID, not whichever reply arrived last',
    witness: (e) => {
      const early = events(e, 'no-op').filter((n) => n.op === 'accept' && n.because === 'nothing staged' && n.stagedOthers.length > 0);
      const published = new Set(events(e, 'published').map((p) => p.id));
      return unless(early.some((n) => published.has(n.id) && n.stagedOthers.every((id) => published.has(id))), 'no accept of a request without a reply while another reply is staged');
    },
  },
  {
    tag: 'settled-observation-views',
    source: M,
    text: 'interception settles before both observation subscription views, with the same logical event ID and effective input',
    witness: (e) =>
      unless(
        events(e, 'observed').some((o) => {
          const state = stateOf(e, o.id);
          const views = events(e, 'observed').filter((x) => x.id === o.id);
          const subscriptions = new Set(views.map((x) => x.subscription));
          return (
            state !== undefined &&
            subscriptions.size >= 2 &&
            views.every((x) => x.settledBy === 'published' && x.eventId === o.eventId && jsonEqual(x.input, state.input)) &&
            !jsonEqual(state.input, originalInput(e, o.id))
          );
        }),
        'no published event observed by two subscriptions with its settled (changed) input',
      ),
  },
  {
    tag: 'per-subscription-views',
    source: M,
    text: 'separate test-control views per event and subscription (observation records; no decision field on the wire, LIFECYCLE-RULES §13 retired /view)',
    witness: (e) =>
      unless(
        events(e, 'observed').some((o) =>
          events(e, 'observed').some((x) => x.id === o.id && x.subscription !== o.subscription && x.items !== undefined && o.items !== undefined && !jsonEqual(x.items, o.items)),
        ),
        'no event observed by two subscriptions with different content views',
      ),
  },
  {
    tag: 'denied-boundary-observed',
    source: R,
    text: 'a denied boundary publishes deny (not executed) and remains observable',
    witness: (e) => unless(observedWith(e, (s) => s.decision === 'deny' && !s.executed), 'no observed deny'),
  },
  {
    tag: 'cancelled-boundary-observed',
    source: R,
    text: 'a cancelled boundary is observed while its intercept reply is still held',
    witness: (e) => unless(events(e, 'observed').some((o) => o.settledBy === 'cancelled' && o.replyHeld), 'no observation of a cancelled request whose reply is still held'),
  },
  {
    tag: 'stopped-boundary-observed',
    source: R,
    text: 'a flow-stopped boundary is published (not executed) and observed',
    witness: (e) => unless(observedWith(e, (s) => s.flow === 'stop' && !s.executed), 'no observed flow stop'),
  },
  {
    tag: 'ask-boundary-observed',
    source: R,
    text: 'an ask boundary is published (not executed) and observed',
    witness: (e) => unless(observedWith(e, (s) => s.decision === 'ask' && !s.executed), 'no observed ask'),
  },
  {
    tag: 'interrupt-after-publication',
    source: M,
    text: 'post-publication interruption preserves completed effects and effective input',
    witness: (e) => {
      const after = events(e, 'cancelled').filter((c) => c.phase === 'published');
      return unless(
        after.some((c) => events(e, 'observed').some((o) => o.id === c.id && o.step > c.step && jsonEqual(o.input, stateOf(e, c.id)?.input))),
        'no cancel after publication followed by an observation of the kept state',
      );
    },
  },
  {
    tag: 'observer-effects-ignored',
    source: M,
    text: 'effects returned to best-effort observers are ignored: a later accept cannot reopen the decision',
    witness: (e) =>
      unless(
        events(e, 'observed').some((o) => events(e, 'no-op').some((n) => n.op === 'accept' && n.id === o.id && n.because === 'published' && n.step > o.step)),
        'no accept attempt after an observation of a published request',
      ),
  },
  {
    tag: 'upload-before-intercept-body',
    source: M,
    text: 'upload confirmed (201) before an intercept event.items body reference',
    witness: (e) => unless(events(e, 'sent').some((s) => s.bodyAliases.length > 0), 'no intercept with a body reference'),
  },
  {
    tag: 'upload-before-observe-body',
    source: M,
    text: 'upload confirmed (201) before an observation body reference',
    witness: (e) => unless(events(e, 'observed').some((o) => o.bodyAliases.length > 0), 'no observation with a body reference'),
  },
  {
    tag: 'immutable-upload-bindings',
    source: M,
    text: 'immutable size/SHA-256/reference bindings with repeated uploads of identical bytes',
    witness: (e) => {
      const confirmed = events(e, 'upload').filter((u) => u.outcome.status === 201);
      return unless(confirmed.some((u) => confirmed.some((v) => v.alias !== u.alias && v.binding?.sha256 === u.binding?.sha256)), 'no identical bytes confirmed under two aliases');
    },
  },
  {
    tag: 'changed-bytes-new-ref',
    source: M,
    text: 'changed bytes get a new receiver reference, and a body view carries both',
    witness: (e) => unless(new Set(referencedConfirmedUploads(e).map((u) => u.sha256)).size >= 2, 'no two different confirmed contents referenced by later messages'),
  },
  {
    tag: 'unauthorized-never-rebinds',
    source: I,
    text: 'a refused (401) upload never rebinds an alias that a later body references',
    witness: (e) =>
      unless(
        events(e, 'upload').some((u) => u.outcome.status === 401 && u.previous !== undefined && jsonEqual(u.binding, u.previous) && referencedAliases(e).has(u.alias)),
        'no 401 upload of an already bound, later referenced alias',
      ),
  },
  {
    tag: 'content-authorization-views',
    source: M,
    text: 'content authorization distinct from endpoint authentication: an authorized body view and an explicit content-gap view of the same item',
    witness: (e) => {
      const views = events(e, 'observed').flatMap((o) => o.items ?? []);
      const withBody = new Set(views.filter((i) => i.body !== undefined).map((i) => i.id));
      return unless(views.some((i) => i.gap !== undefined && withBody.has(i.id)), 'no item observed both with a body and as a gap');
    },
  },
  {
    tag: 'upload-rejects-size',
    source: I,
    text: 'the receiver answers 400 to a declared size that does not match the bytes',
    witness: (e) => unless(events(e, 'upload').some((u) => u.outcome.status === 400 && u.outcome.reason === 'size mismatch'), 'no 400 size mismatch'),
  },
  {
    tag: 'upload-rejects-hash',
    source: I,
    text: 'the receiver answers 400 to a declared SHA-256 that does not match the bytes',
    witness: (e) => unless(events(e, 'upload').some((u) => u.outcome.status === 400 && u.outcome.reason === 'digest mismatch'), 'no 400 digest mismatch'),
  },
  {
    tag: 'upload-rejects-credential',
    source: I,
    text: `the receiver answers 401 to the unauthorized upload token (${UNAUTHORIZED_UPLOAD_TOKEN_ENV})`,
    witness: (e) => {
      if (e.kind !== 'steps') return 'not a step script';
      const refused = events(e, 'upload').filter((u) => u.outcome.status === 401);
      const viaEnv = refused.every((u) => {
        const step = e.row.steps[u.step];
        return step?.op === 'upload' && step.upload?.auth.tokenEnv === UNAUTHORIZED_UPLOAD_TOKEN_ENV;
      });
      return unless(refused.length > 0 && viaEnv, `no 401 upload made with ${UNAUTHORIZED_UPLOAD_TOKEN_ENV}`);
    },
  },
  {
    tag: 'content-categories',
    source: M,
    text: 'reasoning-, skill- and native-labelled attachments take the normal content path',
    witness: (e) => {
      const sentBodies = events(e, 'sent').flatMap((s) => itemsOf(requestById(e, s.id)?.params.event.items)).filter((i) => i.body !== undefined);
      const categories = new Set(sentBodies.map((i) => i.category));
      const observed = events(e, 'observed').some((o) => o.bodyAliases.length >= 3);
      return unless(['reasoning', 'skill', 'native'].every((c) => categories.has(c)) && observed, 'no intercept carrying reasoning, skill and native bodies that is also observed');
    },
  },
  {
    tag: 'binary-octets',
    source: I,
    text: '259 raw octets covering every byte value, confirmed and referenced',
    witness: (e) => unless(referencedConfirmedUploads(e).some((u) => u.bytes.length === 259 && new Set(u.bytes).size === 256), 'no referenced 259-octet upload with every byte value'),
  },
  {
    tag: 'empty-upload',
    source: I,
    text: 'a 0-byte upload, confirmed and referenced',
    witness: (e) => unless(referencedConfirmedUploads(e).some((u) => u.bytes.length === 0), 'no referenced empty upload'),
  },
  {
    tag: 'chain-deny',
    source: R,
    text: 'chain: modify+deny short-circuits; remaining interceptors downgraded; the explicit observer sees the settled input',
    witness: chainWitness('no deny-settled chain with downgrades and an explicit observer', (c) => c.settlement === 'deny' && downgraded(c) > 0 && explicitObservers(c) > 0),
  },
  {
    tag: 'chain-stop',
    source: R,
    text: 'chain: flow stop short-circuits the same way',
    witness: chainWitness('no stop-settled chain with downgrades', (c) => c.settlement === 'stop' && downgraded(c) > 0),
  },
  {
    tag: 'chain-deny-stop',
    source: R,
    text: 'chain: deny and stop together, with no invented precedence',
    witness: chainWitness('no chain settled by deny and stop together', (c) => c.settlement === 'deny-and-stop'),
  },
  {
    tag: 'chain-no-explicit-observer',
    source: R,
    text: 'chain: downgrades only; the called interceptor gets no second copy',
    witness: chainWitness(
      'no chain with downgrades only and no observation for a called interceptor',
      (c) => explicitObservers(c) === 0 && downgraded(c) > 0 && c.expected.called.every((id) => !c.expected.observations.includes(id)),
    ),
  },
  {
    tag: 'chain-fail-open',
    source: R,
    text: 'chain: an invalid reply is skipped under fail-open; the next call gets the unchanged input and permission',
    witness: chainWitness('no fail-open failure followed by a call with the same input and permission', (c) =>
      someConsecutiveCalls(
        c,
        (call, next) =>
          call.outcome === 'failed' &&
          call.subscription.failurePolicy === 'fail-open' &&
          jsonEqual(next.request.params.event.tool?.input, call.request.params.event.tool?.input) &&
          next.request.params.state?.permission === call.request.params.state?.permission,
      ),
    ),
  },
  {
    tag: 'chain-fail-closed',
    source: R,
    text: 'chain: an invalid reply under fail-closed ends the chain with the input accepted so far',
    witness: chainWitness('no fail-closed chain with downgrades', (c) => c.settlement === 'fail-closed' && downgraded(c) > 0),
  },
  {
    tag: 'chain-interrupt',
    source: R,
    text: 'chain: interruption settles before the pending reply; no observers',
    witness: chainWitness('no interrupted chain without observations', (c) => c.settlement === 'interrupted' && c.expected.observations.length === 0),
  },
  {
    tag: 'chain-continue',
    source: R,
    text: 'chain: three or more serial calls carry the accepted input, an omit view and the allow permission',
    witness: chainWitness('no chain of three or more accepted calls carrying changed input, an omit view and allow', (c, e) => {
      const requests = c.proof.requests;
      const original = originalInput(e, String(e.row.requests.a?.id));
      return (
        requests.length >= 3 &&
        c.expected.failures.length === 0 &&
        requests.slice(1).some((r) => !jsonEqual(r.params.event.tool?.input, original)) &&
        requests.some((r) => Array.isArray(r.params.event.items) && r.params.event.items.length === 0) &&
        requests.slice(1).some((r) => r.params.state?.permission === 'allow')
      );
    }),
  },
  {
    tag: 'chain-ask-permission',
    source: I,
    text: 'chain: an ask is carried to later calls and a later allow does not lift it (§7.8 recomputation)',
    witness: chainWitness('no call carrying ask that replies allow and is followed by a call still carrying ask', (c) =>
      someConsecutiveCalls(
        c,
        (call, next) => call.request.params.state?.permission === 'ask' && effectKinds(call.response).includes('allow') && next.request.params.state?.permission === 'ask',
      ),
    ),
  },
  {
    tag: 'chain-native',
    source: R,
    text: 'chain: observe-only — no intercept, one observation',
    witness: chainWitness('no observe-only chain', (c) => c.expected.called.length === 0 && c.expected.observations.length === 1),
  },
];

/**
 * Every coverage problem of a set of rows: unknown tags, items no row is tagged with, tagged rows
 * whose witness fails, and failing `together` conditions. Empty when the coverage is complete.
 */
export function coverageProblems(evidence: readonly RowEvidence[], items: readonly CoverageItem[] = LIFECYCLE_COVERAGE): string[] {
  const problems: string[] = [];
  const known = new Set<string>([...AREA_TAGS, ...items.map((i) => i.tag)]);
  for (const e of evidence) {
    for (const tag of e.row.tags ?? []) if (!known.has(tag)) problems.push(`${e.row.id}: unknown tag ${JSON.stringify(tag)}`);
    if ((e.row.tags ?? []).every((tag) => (AREA_TAGS as readonly string[]).includes(tag))) problems.push(`${e.row.id}: tagged with no coverage item`);
  }
  for (const item of items) {
    const tagged = evidence.filter((e) => e.row.tags?.includes(item.tag) === true);
    if (tagged.length === 0) {
      problems.push(`coverage: no row is tagged ${item.tag} (${item.source}: ${item.text})`);
      continue;
    }
    for (const e of tagged) {
      const lacking = item.witness(e);
      if (lacking !== undefined) problems.push(`${e.row.id}: tagged ${item.tag}, but ${lacking}`);
    }
    const together = item.together?.(tagged);
    if (together !== undefined) problems.push(`coverage ${item.tag}: ${together}`);
  }
  return problems;
}
