// The arbitrary of one differential-fuzzing case: a whole scenario minus its identity. A case is a
// schema-valid hooks/intercept request (tool.before or turn.finish.before, random capability subsets,
// omitted or present incoming state of every shape — or, in the `host` profile, only requests inside
// a host envelope) plus the ingredients of its response: 0–8
// effects drawn from every effect type — valid ones within what the request advertises, with invalid
// ones (unknown types, missing/extra fields, bad values, unadvertised types/operations, exhausted
// continuations, the host's task rule) inserted now and then — and occasional envelope mutations
// (wrong response ids, JSON-RPC and protocol versions, extra envelope/result members, wrong shapes).
//
// Ids are not part of a case: `materializeCase(case, id)` stamps the scenario id on request.id,
// params.event.id and (unless a mutation says otherwise) the response id, so a batch can give every
// case a unique id and a shrunk case keeps reproducing under any id.

import fc from 'fast-check';

import {
  anyJson,
  effectsFor,
  finishRequest,
  insertAt,
  invalidEffect,
  toolBeforeRequest,
} from '../generate/arbitraries.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../protocol/json.ts';
import { PROTOCOL_VERSION, type InterceptRequest } from '../protocol/messages.ts';
import { envelopeRequest } from './envelope-arbitraries.ts';
import { WIDE_PROFILE, type FuzzProfile } from './host-envelope.ts';

/** At most this many effects in one response (valid and invalid together). */
export const MAX_CASE_EFFECTS = 8;

/** One deliberate change to the response envelope (applied in order after the effects are placed). */
export type EnvelopeMutation =
  | { kind: 'response-id'; id: 'other-string' | 'number' | 'null' | 'missing' }
  | { kind: 'jsonrpc'; value: JsonValue | undefined }
  | { kind: 'protocol-version'; value: JsonValue | undefined }
  | { kind: 'envelope-extra'; key: string; value: JsonValue }
  | { kind: 'result-extra'; key: string; value: JsonValue }
  | { kind: 'effects-shape'; value: JsonValue };

export interface FuzzCase {
  /** A schema-valid request; its ids are placeholders replaced by `materializeCase`. */
  request: InterceptRequest;
  /** The response's effects array: valid and invalid effects in order (0–8). */
  effects: JsonValue[];
  /** Envelope mutations; usually none. */
  envelope: EnvelopeMutation[];
}

/** A case with its identity: the exact request and response envelope a scenario row carries. */
export interface MaterializedCase {
  id: string;
  request: InterceptRequest;
  response: JsonObject;
}

const envelopeMutation: fc.Arbitrary<EnvelopeMutation> = fc.oneof(
  fc.constantFrom('other-string', 'number', 'null', 'missing').map((id): EnvelopeMutation => ({ kind: 'response-id', id })),
  fc.constantFrom<JsonValue | undefined>('1.0', '2', 2, null, undefined).map((value): EnvelopeMutation => ({ kind: 'jsonrpc', value })),
  fc
    .constantFrom<JsonValue | undefined>('2024-11-05', 'v1', '', 'Draft', 'draft ', 1, null, undefined)
    .map((value): EnvelopeMutation => ({ kind: 'protocol-version', value })),
  fc
    .tuple(fc.constantFrom('meta', 'extensions', 'trace', 'method', 'error', 'params', 'x-vendor'), anyJson)
    .map(([key, value]): EnvelopeMutation => ({ kind: 'envelope-extra', key, value })),
  fc
    .tuple(fc.constantFrom('note', 'meta', 'extensions', 'status', 'decision', 'x-vendor'), anyJson)
    .map(([key, value]): EnvelopeMutation => ({ kind: 'result-extra', key, value })),
  fc
    .constantFrom<JsonValue>(null, 'deny', 0)
    .chain((value) => fc.oneof(fc.constant(value), fc.constant(0).map((): JsonValue => ({}))))
    .map((value): EnvelopeMutation => ({ kind: 'effects-shape', value })),
);

/** The response envelope changes of a case: none most of the time, else one or two. */
export const envelopeMutations: fc.Arbitrary<EnvelopeMutation[]> = fc.oneof(
  { weight: 7, arbitrary: fc.constant(0).map((): EnvelopeMutation[] => []) },
  { weight: 1, arbitrary: fc.array(envelopeMutation, { minLength: 1, maxLength: 2 }) },
);

/** The effects of a case for `request`: 0–8 valid effects with, sometimes, 1–2 invalid ones inserted. */
export function caseEffects(request: InterceptRequest): fc.Arbitrary<JsonValue[]> {
  const invalid = fc.oneof(
    { weight: 3, arbitrary: fc.constant(0).map((): Array<[JsonValue, number]> => []) },
    {
      weight: 1,
      arbitrary: fc.array(fc.tuple(invalidEffect(request).map((drawn) => drawn.effect), fc.nat()), { minLength: 1, maxLength: 2 }),
    },
  );
  return fc
    .tuple(effectsFor(request, { maxLength: MAX_CASE_EFFECTS }), invalid)
    .map(([valid, inserted]) =>
      inserted
        .reduce<JsonValue[]>((list, [effect, at]) => insertAt(list, effect, at), valid as unknown as JsonValue[])
        .slice(0, MAX_CASE_EFFECTS),
    );
}

/**
 * One fuzz case. Profile `wide` (the default): requests at either boundary with any capability
 * subset and state. Profile `host`: requests inside the host envelope (envelope-arbitraries.ts). The
 * response side is the same in both: unconstrained, invalid responses included.
 */
export function fuzzCase(profile: FuzzProfile = WIDE_PROFILE): fc.Arbitrary<FuzzCase> {
  const requests = profile.name === 'host' ? envelopeRequest(profile.envelope) : fc.oneof(toolBeforeRequest(), finishRequest());
  return requests
    .chain((request) =>
      fc.tuple(caseEffects(request), envelopeMutations).map(([effects, envelope]): FuzzCase => ({ request, effects, envelope })),
    );
}

/** Number of effects a case's response carries (before envelope mutations). */
export function caseEffectCount(fuzz: FuzzCase): number {
  return fuzz.effects.length;
}

/**
 * The exact request/response of `fuzz` under scenario id `id`, as plain JSON (a JSON round trip,
 * so what the oracle sees is byte-for-byte what a process reads from the scenario file: no -0, no
 * undefined members).
 */
export function materializeCase(fuzz: FuzzCase, id: string): MaterializedCase {
  const request = structuredClone(fuzz.request);
  request.id = id;
  request.params.event.id = id;
  const response: JsonObject = {
    jsonrpc: '2.0',
    id,
    result: { protocolVersion: PROTOCOL_VERSION, effects: structuredClone(fuzz.effects) },
  };
  for (const mutation of fuzz.envelope) applyMutation(response, mutation, id);
  return JSON.parse(JSON.stringify({ id, request, response })) as MaterializedCase;
}

function applyMutation(response: JsonObject, mutation: EnvelopeMutation, id: string): void {
  const result = isJsonObject(response.result) ? response.result : undefined;
  switch (mutation.kind) {
    case 'response-id':
      if (mutation.id === 'missing') delete response.id;
      else response.id = mutation.id === 'other-string' ? `${id}-other` : mutation.id === 'number' ? 1 : null;
      return;
    case 'jsonrpc':
      setOrDelete(response, 'jsonrpc', mutation.value);
      return;
    case 'protocol-version':
      if (result) setOrDelete(result, 'protocolVersion', mutation.value);
      return;
    case 'envelope-extra':
      response[mutation.key] = structuredClone(mutation.value);
      return;
    case 'result-extra':
      if (result) result[mutation.key] = structuredClone(mutation.value);
      return;
    case 'effects-shape':
      if (result) result.effects = structuredClone(mutation.value);
      return;
  }
}

function setOrDelete(target: JsonObject, key: string, value: JsonValue | undefined): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}
