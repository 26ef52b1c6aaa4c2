// Our observation-chain rows, as intent only: the boundary request, the subscriptions and the reply
// to each call. The generator simulates the chain for `expected` and `chainProof`.

import { sha256Hex } from '../../protocol/sha256-hex.ts';
import type { JsonObject } from '../../protocol/json.ts';
import type { InterceptRequest } from '../../protocol/messages.ts';
import type { Chain, ChainSubscription } from '../../lifecycle-adapters/scenario-types.ts';
import { allow, ask, deny, inject, merge, message, replace, respond, ret, stop } from '../../generate/effect-builders.ts';
import { CHAIN_TOOL_CAPABILITIES, PROPOSED_INPUT, requestId, textMetadata, toolBeforeRequest } from './wire.ts';

export interface ChainRowSpec {
  id: string;
  description: string;
  tags: string[];
  request: InterceptRequest;
  chain: Chain;
  /** Reply k answers call k (responseSequences.a); the last one is also responses.a. */
  replies: JsonObject[];
}

type Role = 'gate' | 'scanner' | 'linter' | 'recorder' | 'audit';

/**
 * The subscriptions our chains draw from: the gate and the audit observer share a backend (invocation
 * is tracked per subscription, not per backend); the scanner sees no content (omit view).
 */
function subscription(rowId: string, role: Role, failurePolicy: ChainSubscription['failurePolicy'] = 'fail-open'): ChainSubscription {
  const shape: Record<Role, Pick<ChainSubscription, 'backend' | 'mode' | 'content'>> = {
    gate: { backend: 'primary', mode: 'intercept', content: 'metadata' },
    scanner: { backend: 'scanner', mode: 'intercept', content: 'omit' },
    linter: { backend: 'linter', mode: 'intercept', content: 'metadata' },
    recorder: { backend: 'recorder', mode: 'intercept', content: 'metadata' },
    audit: { backend: 'primary', mode: 'observe', content: 'metadata' },
  };
  return { id: `${rowId}:${role}`, ...shape[role], failurePolicy };
}

const ATTACHED_BYTES = Buffer.from('chain attachment (metadata only)', 'utf8');

function chainRequest(rowId: string): InterceptRequest {
  return toolBeforeRequest(rowId, 'a', {
    capabilities: CHAIN_TOOL_CAPABILITIES,
    items: [
      textMetadata(`${rowId}:brief`),
      { id: `${rowId}:attachment`, kind: 'attachment', mediaType: 'application/pdf', selection: 'metadata', size: ATTACHED_BYTES.length, sha256: sha256Hex(ATTACHED_BYTES) },
    ],
  });
}

function chainRow(
  id: string,
  description: string,
  tags: string[],
  roles: Array<Role | [Role, ChainSubscription['failurePolicy']]>,
  replies: JsonObject[][],
  interrupt = false,
): ChainRowSpec {
  const rpc = requestId(id, 'a');
  return {
    id,
    description,
    tags: ['chain', ...tags],
    request: chainRequest(id),
    chain: {
      subscriptions: roles.map((role) => (Array.isArray(role) ? subscription(id, role[0], role[1]) : subscription(id, role))),
      interrupt,
      holdObservers: false,
    },
    replies: replies.map((effects) => respond(rpc, effects)),
  };
}

const reviewed = (text: string): JsonObject => replace({ ...PROPOSED_INPUT, text });
const FULL: Role[] = ['gate', 'scanner', 'linter', 'audit'];

export function chainRowSpecs(): ChainRowSpec[] {
  return [
    chainRow(
      'chain.deny-downgrades-remaining',
      'The first interceptor modifies and denies: the scanner and linter are downgraded to observers, the audit observer (on the gate\'s backend) still observes, all with the settled input',
      ['chain-deny'],
      FULL,
      [[reviewed('denied draft'), deny('plans need sign-off')]],
    ),
    chainRow(
      'chain.stop-downgrades-remaining',
      'The first interceptor merges and stops the flow: the rest are downgraded to observers of the merged input',
      ['chain-stop'],
      FULL,
      [[merge({ reviewer: 'gate' }), stop('hand over to a human')]],
    ),
    chainRow(
      'chain.deny-and-stop-together',
      'One reply both denies and stops: decision-making ends once, with no invented precedence between the two',
      ['chain-deny-stop'],
      FULL,
      [[reviewed('stopped draft'), deny('plans need sign-off'), stop('and stop here')]],
    ),
    chainRow(
      'chain.deny-without-explicit-observer',
      'A deny with no explicit observer: only the uncalled interceptors observe, the called gate gets no second copy',
      ['chain-no-explicit-observer'],
      ['gate', 'scanner', 'linter'],
      [[merge({ reviewer: 'gate' }), deny('plans need sign-off')]],
    ),
    chainRow(
      'chain.fail-open-skips-invalid-reply',
      'The gate replies with an unadvertised return next to a modify and an allow: the whole reply is rejected and skipped under fail-open, so the scanner sees the proposed input and no allow',
      ['chain-fail-open'],
      FULL,
      [[reviewed('must not leak'), allow(), ret({ written: true })], [merge({ reviewer: 'scanner' }), allow()], []],
    ),
    chainRow(
      'chain.fail-closed-ends-chain',
      'The gate replies with an unadvertised inject under fail-closed: the chain ends with the proposed input and the rest observe',
      ['chain-fail-closed'],
      [['gate', 'fail-closed'], ['scanner', 'fail-closed'], ['linter', 'fail-closed'], 'audit'],
      [[merge({ reviewer: 'must not leak' }), inject('now', 'Unadvertised context')]],
    ),
    chainRow(
      'chain.interrupt-while-first-pending',
      'An interruption while the first call is pending settles the chain at once: its reply is discarded and no observation is started',
      ['chain-interrupt'],
      FULL,
      [[reviewed('must not apply'), allow()]],
      true,
    ),
    chainRow(
      'chain.serial-calls-carry-input',
      'Three serial calls: each carries the input accepted so far, the scanner gets the omit view, later calls carry the allow; the audit observer sees the final input',
      ['chain-continue'],
      FULL,
      [[reviewed('reviewed draft'), allow()], [], [merge({ linted: true }), message('lint clean')]],
    ),
    chainRow(
      'chain.ask-persists-through-allow',
      'An ask in the middle of the chain is carried to every later call, and a later allow does not lift it',
      ['chain-ask-permission'],
      ['gate', 'scanner', 'linter', 'recorder', 'audit'],
      [[allow()], [ask(), message('needs a human')], [allow()], []],
    ),
    chainRow(
      'chain.observe-only-subscription',
      'A chain with only an observer: no intercept is sent and the observer sees the proposed input',
      ['chain-native'],
      ['audit'],
      [[deny('an observer-only chain never asks')]],
    ),
  ];
}
