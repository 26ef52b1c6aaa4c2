// The host envelope: what a server adapter's discovery says its synthetic host offers, narrowed to
// what the fuzz generator can produce. Real SDK adapters act as a host that only offers what their
// manifest declares, and may refuse a request that advertises anything else before any AHP rule
// applies; so fuzzing them generates requests inside this envelope (see envelope-arbitraries.ts),
// while the response side stays unconstrained.
//
// "Inside" follows the spec's narrowing rule (per-request advertisements narrow the manifest to the
// actual boundary, path, permissions and remaining allowance): an event the manifest lists with the
// `intercept` mode; effects, modify operations, flow operations and deliverAt values that are subsets
// of what the manifest offers for that event; continuations within its limit; and incoming state a
// host offering only that could have produced (a candidate only with `return`, a permission only from
// an offered decision, injections only with `inject`, instructions only with `continue`).

import {
  BOUNDARY_EFFECTS,
  BOUNDARY_FLOW_OPERATIONS,
  BOUNDARY_MODIFY_TARGET,
  DELIVER_AT,
  type Boundary,
  type FlowOperation,
} from '../generate/arbitraries.ts';
import { FIXTURE_HOST_TOOL_PATH } from '../oracle/fixture-host.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../protocol/json.ts';
import type { DeliverAt, EffectType, InterceptRequest, ModifyAdvertisement } from '../protocol/messages.ts';

/**
 * The tool path assumed when a manifest declares none: the fixture host's (../oracle/fixture-host.ts).
 * A manifest's `toolPaths` are event `path` values (events.md: "`path` identifies the covered tool
 * path"), never tool names: the tool called on them is always the fixture host's `task`.
 */
const DEFAULT_TOOL_PATH = FIXTURE_HOST_TOOL_PATH;

const BOUNDARIES: readonly Boundary[] = ['tool.before', 'turn.finish.before'];

/** What the host offers at one boundary; every option block is usable (non-empty). */
export interface BoundaryOffer {
  effects: EffectType[];
  /** The boundary's modify target's operations (present iff `modify` is offered). */
  modify?: ModifyAdvertisement;
  /** Flow operations (present iff `flow` is offered); `remainingContinuations` caps a request's. */
  flow?: { operations: FlowOperation[]; remainingContinuations?: number };
  /** Context injection delivery (present iff `inject` is offered). */
  inject?: { deliverAt: DeliverAt[] };
}

export interface HostEnvelope {
  /** The boundaries offered in intercept mode; at least one. */
  boundaries: Partial<Record<Boundary, BoundaryOffer>>;
  /** Tool paths the host offers; undefined when undeclared (then the fixture host's `native`). */
  toolPaths?: string[];
  /** Upper bound of continuationCount + remainingContinuations, when the manifest gives one. */
  maxContinuations?: number;
  /** Where the envelope came from, e.g. `manifest of "sdk" over http (POST /capabilities)`. */
  sources: string[];
  /** What was left out and why (observe-only events, boundaries the generator cannot produce, ...). */
  notes: string[];
}

/** The generation profile: unconstrained (`wide`), or inside a host envelope (`host`). */
export type FuzzProfile = { name: 'wide' } | { name: 'host'; envelope: HostEnvelope };

export const WIDE_PROFILE: FuzzProfile = { name: 'wide' };

/** A discovery answer that cannot be read as an envelope; the message names the source and field. */
export class EnvelopeError extends Error {
  override readonly name = 'EnvelopeError';
}

/** The envelope a `hooks/capabilities` manifest declares. */
export function envelopeFromManifest(manifest: unknown, source: string): HostEnvelope {
  if (!isJsonObject(manifest)) throw new EnvelopeError(`${source}: manifest: expected a JSON object`);
  if (!Array.isArray(manifest.events)) throw new EnvelopeError(`${source}: manifest.events: expected an array of {event, modes, capabilities}`);
  const notes: string[] = [];
  const boundaries: HostEnvelope['boundaries'] = {};
  manifest.events.forEach((entry, index) => {
    const at = `manifest.events[${index}]`;
    if (!isJsonObject(entry) || typeof entry.event !== 'string') {
      notes.push(`${at}: not an {event, modes, capabilities} object; ignored`);
      return;
    }
    const modes = Array.isArray(entry.modes) ? entry.modes : [];
    if (!modes.includes('intercept')) {
      notes.push(`${entry.event}: not offered in intercept mode`);
      return;
    }
    if (!(BOUNDARIES as readonly string[]).includes(entry.event)) {
      notes.push(`${entry.event}: the fuzz generator produces only ${BOUNDARIES.join(' and ')}`);
      return;
    }
    const boundary = entry.event as Boundary;
    if (boundaries[boundary]) {
      notes.push(`${at}: ${boundary} is listed again; the first entry is used`);
      return;
    }
    if (!isJsonObject(entry.capabilities)) throw new EnvelopeError(`${source}: ${at}.capabilities: expected an object for an intercept event`);
    boundaries[boundary] = boundaryOffer(boundary, entry.capabilities, notes);
  });
  const limits = isJsonObject(manifest.limits) ? manifest.limits : {};
  const paths = Array.isArray(manifest.toolPaths) ? manifest.toolPaths.filter((p): p is string => typeof p === 'string' && p !== '') : [];
  return finish({
    boundaries,
    ...(paths.length > 0 ? { toolPaths: paths } : {}),
    ...optionalCount('maxContinuations', minimum([limits.maxContinuations, ...flowMaxima(manifest.events)])),
    sources: [source],
    notes,
  });
}

/**
 * The envelope of a bare capability set (HTTP `GET /capabilities` without a manifest): it does not say
 * which events are intercepted, so both boundaries the generator knows are assumed, each narrowed to
 * what the protocol allows there.
 */
export function envelopeFromBareCapabilities(capabilities: unknown, source: string): HostEnvelope {
  if (!isJsonObject(capabilities) || !Array.isArray(capabilities.effects)) {
    throw new EnvelopeError(`${source}: expected a capability set object with an effects array`);
  }
  const notes = [`bare capability set: events not declared, ${BOUNDARIES.join(' and ')} assumed`];
  const boundaries: HostEnvelope['boundaries'] = {};
  for (const boundary of BOUNDARIES) boundaries[boundary] = boundaryOffer(boundary, capabilities, notes);
  const flow = isJsonObject(capabilities.flow) ? capabilities.flow : {};
  return finish({ boundaries, ...optionalCount('maxContinuations', minimum([flow.maxContinuations])), sources: [source], notes });
}

/** What both envelopes offer (a pairing must stay inside its server's and its client's hosts). */
export function intersectEnvelopes(a: HostEnvelope, b: HostEnvelope): HostEnvelope {
  const notes = [...a.notes, ...b.notes];
  const boundaries: HostEnvelope['boundaries'] = {};
  for (const boundary of BOUNDARIES) {
    const x = a.boundaries[boundary];
    const y = b.boundaries[boundary];
    if (x && y) boundaries[boundary] = intersectOffers(x, y);
  }
  let toolPaths = a.toolPaths ?? b.toolPaths;
  if (a.toolPaths && b.toolPaths) {
    toolPaths = a.toolPaths.filter((p) => b.toolPaths!.includes(p));
    if (toolPaths.length === 0 && boundaries['tool.before']) {
      delete boundaries['tool.before'];
      notes.push('tool.before: the two manifests declare no tool path in common');
    }
  }
  return finish({
    boundaries,
    ...(toolPaths && toolPaths.length > 0 ? { toolPaths } : {}),
    ...optionalCount('maxContinuations', minimum([a.maxContinuations, b.maxContinuations])),
    sources: [...a.sources, ...b.sources],
    notes,
  });
}

/** One line: boundaries with their offers, tools and limits (for messages and counterexample files). */
export function describeEnvelope(envelope: HostEnvelope): string {
  const parts = BOUNDARIES.flatMap((boundary) => {
    const offer = envelope.boundaries[boundary];
    if (!offer) return [];
    const effects = offer.effects.map((type) => {
      if (type === 'modify' && offer.modify) return `modify(${BOUNDARY_MODIFY_TARGET[boundary]}: ${modifyOperations(offer.modify).join('/')})`;
      if (type === 'flow' && offer.flow) {
        const remaining = offer.flow.remainingContinuations === undefined ? '' : `; remaining ≤ ${offer.flow.remainingContinuations}`;
        return `flow(${offer.flow.operations.join('/')}${remaining})`;
      }
      if (type === 'inject' && offer.inject) return `inject(${offer.inject.deliverAt.join('/')})`;
      return type;
    });
    return [`${boundary} [${effects.join(', ') || 'no effects'}]`];
  });
  const tools = `tool paths ${(envelope.toolPaths ?? [DEFAULT_TOOL_PATH]).join(', ')}${envelope.toolPaths ? '' : ' (none declared: the fixture host\'s)'}`;
  const limit = envelope.maxContinuations === undefined ? '' : `; maxContinuations ${envelope.maxContinuations}`;
  return `${parts.join('; ')}; ${tools}${limit} — from ${envelope.sources.join(' and ')}`;
}

/** The profile as one line: `wide (unconstrained requests)` or `host envelope: …`. */
export function describeProfile(profile: FuzzProfile): string {
  return profile.name === 'wide' ? 'wide (unconstrained requests)' : `host envelope: ${describeEnvelope(profile.envelope)}`;
}

/** Why `request` lies outside `envelope` (the first reason found), or undefined when it is inside. */
export function outsideEnvelope(envelope: HostEnvelope, request: InterceptRequest): string | undefined {
  const { event, capabilities, state } = request.params;
  const boundary = event.type as Boundary;
  const offer = envelope.boundaries[boundary];
  if (!offer) return `the host does not offer ${JSON.stringify(event.type)} in intercept mode`;
  const extra = capabilities.effects.filter((type) => !(offer.effects as string[]).includes(type));
  if (extra.length > 0) return `${boundary} advertises effect type(s) ${extra.join(', ')} the host does not offer`;
  const target = BOUNDARY_MODIFY_TARGET[boundary];
  for (const [name, advertised] of Object.entries(capabilities.modify ?? {})) {
    if (name !== target) return `${boundary} advertises modify target ${JSON.stringify(name)}`;
    const wanted = modifyOperations(advertised);
    const missing = wanted.filter((op) => !offer.modify || !offer.modify[op]);
    if (missing.length > 0) return `${boundary} advertises modify ${target} operation(s) ${missing.join(', ')} the host does not offer`;
  }
  const flow = capabilities.flow;
  if (flow) {
    const missing = flow.operations.filter((op) => !offer.flow?.operations.includes(op));
    if (missing.length > 0) return `${boundary} advertises flow operation(s) ${missing.join(', ')} the host does not offer`;
    const cap = offer.flow?.remainingContinuations;
    if (cap !== undefined && (flow.remainingContinuations ?? 0) > cap) return `remainingContinuations ${flow.remainingContinuations} exceeds the host's ${cap}`;
    const used = (flow.continuationCount ?? 0) + (flow.remainingContinuations ?? 0);
    if (envelope.maxContinuations !== undefined && used > envelope.maxContinuations) {
      return `continuationCount + remainingContinuations = ${used} exceeds the host's maxContinuations ${envelope.maxContinuations}`;
    }
  }
  const deliverAt = capabilities.inject?.context.deliverAt ?? [];
  const missingAt = deliverAt.filter((at) => !offer.inject?.deliverAt.includes(at));
  if (missingAt.length > 0) return `${boundary} advertises inject deliverAt ${missingAt.join(', ')} the host does not offer`;
  if (boundary === 'tool.before') {
    const paths = envelope.toolPaths ?? [DEFAULT_TOOL_PATH];
    if (!paths.includes(String(event.path))) return `tool path ${JSON.stringify(event.path)} is not one the host offers`;
  }
  if (state) {
    const offered = new Set<string>(offer.effects);
    if (state.permission !== 'none' && !offered.has(state.permission)) return `incoming permission ${JSON.stringify(state.permission)} needs an offered ${state.permission} effect`;
    if (state.candidate !== null && !offered.has('return')) return 'an incoming candidate needs an offered return effect';
    if (state.flow === 'stop' && !offer.flow?.operations.includes('stop')) return 'incoming flow "stop" needs an offered stop';
    if (state.flow === 'continue' && !offer.flow?.operations.includes('continue')) return 'incoming flow "continue" needs an offered continue';
    if ((state.instructions?.length ?? 0) > 0 && !offer.flow?.operations.includes('continue')) return 'incoming instructions need an offered continue';
    for (const injection of state.injections ?? []) {
      const at = isJsonObject(injection) ? injection.deliverAt : undefined;
      if (!offer.inject?.deliverAt.includes(at as DeliverAt)) return `an incoming injection delivered ${JSON.stringify(at)} needs that deliverAt offered`;
    }
  }
  return undefined;
}

// ----- helpers ----------------------------------------------------------------------------------------

function boundaryOffer(boundary: Boundary, capabilities: JsonObject, notes: string[]): BoundaryOffer {
  const listed = Array.isArray(capabilities.effects) ? capabilities.effects : [];
  const effects = BOUNDARY_EFFECTS[boundary].filter((type) => listed.includes(type));
  const offer: BoundaryOffer = { effects: [] };
  const drop = (type: EffectType, why: string): void => {
    notes.push(`${boundary}: ${type} listed without ${why}; not offered`);
  };
  for (const type of effects) {
    if (type === 'modify') {
      const target = BOUNDARY_MODIFY_TARGET[boundary];
      const block = isJsonObject(capabilities.modify) ? capabilities.modify[target] : undefined;
      const modify = isJsonObject(block) ? { replace: block.replace === true, merge: block.merge === true } : undefined;
      if (!modify || (!modify.replace && !modify.merge)) {
        drop(type, `a modify.${target} operation`);
        continue;
      }
      offer.modify = modify;
    } else if (type === 'flow') {
      const block = isJsonObject(capabilities.flow) ? capabilities.flow : {};
      const listedOps = Array.isArray(block.operations) ? block.operations : [];
      const operations = BOUNDARY_FLOW_OPERATIONS[boundary].filter((op) => listedOps.includes(op));
      if (operations.length === 0) {
        drop(type, `a flow operation allowed at ${boundary}`);
        continue;
      }
      offer.flow = { operations, ...optionalCount('remainingContinuations', minimum([block.remainingContinuations])) };
    } else if (type === 'inject') {
      const context = isJsonObject(capabilities.inject) && isJsonObject(capabilities.inject.context) ? capabilities.inject.context : {};
      const listedAt = Array.isArray(context.deliverAt) ? context.deliverAt : [];
      const deliverAt = DELIVER_AT.filter((at) => listedAt.includes(at));
      if (deliverAt.length === 0) {
        drop(type, 'an inject.context.deliverAt value');
        continue;
      }
      offer.inject = { deliverAt };
    }
    offer.effects.push(type);
  }
  return offer;
}

function intersectOffers(x: BoundaryOffer, y: BoundaryOffer): BoundaryOffer {
  const offer: BoundaryOffer = { effects: [] };
  for (const type of x.effects.filter((t) => y.effects.includes(t))) {
    if (type === 'modify') {
      const modify = { replace: !!x.modify?.replace && !!y.modify?.replace, merge: !!x.modify?.merge && !!y.modify?.merge };
      if (!modify.replace && !modify.merge) continue;
      offer.modify = modify;
    } else if (type === 'flow') {
      const operations = (x.flow?.operations ?? []).filter((op) => y.flow?.operations.includes(op));
      if (operations.length === 0) continue;
      offer.flow = { operations, ...optionalCount('remainingContinuations', minimum([x.flow?.remainingContinuations, y.flow?.remainingContinuations])) };
    } else if (type === 'inject') {
      const deliverAt = (x.inject?.deliverAt ?? []).filter((at) => y.inject?.deliverAt.includes(at));
      if (deliverAt.length === 0) continue;
      offer.inject = { deliverAt };
    }
    offer.effects.push(type);
  }
  return offer;
}

function finish(envelope: HostEnvelope): HostEnvelope {
  if (Object.keys(envelope.boundaries).length === 0) {
    throw new EnvelopeError(
      `${envelope.sources.join(' ∩ ')}: offers neither ${BOUNDARIES.join(' nor ')} in intercept mode, so there is nothing to fuzz inside it` +
        (envelope.notes.length > 0 ? ` (${envelope.notes.join('; ')})` : ''),
    );
  }
  return envelope;
}

function modifyOperations(advertisement: ModifyAdvertisement): Array<'replace' | 'merge'> {
  return (['replace', 'merge'] as const).filter((op) => advertisement[op] === true);
}

function flowMaxima(events: JsonValue[]): JsonValue[] {
  return events.map((entry) =>
    isJsonObject(entry) && isJsonObject(entry.capabilities) && isJsonObject(entry.capabilities.flow) ? entry.capabilities.flow.maxContinuations : undefined,
  ) as JsonValue[];
}

/** The smallest non-negative integer among `values` (others ignored), or undefined. */
function minimum(values: Array<JsonValue | undefined>): number | undefined {
  const counts = values.filter((v): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0);
  return counts.length > 0 ? Math.min(...counts) : undefined;
}

function optionalCount<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}
