// Blind mode: catch clients that read answers instead of deriving them. The contract forbids a client
// to branch on ids, tags or expected answers, but a client that really sends every request and then
// copies `expected` into `actual` looks honest. In blind mode each client run gets a rewritten
// scenario file: every `expected` (and `hostExpected`) replaced by a decoy of the same shape that is
// wrong, tags removed, and every scenario id — request `id`, `params.event.id`, a response `id` that
// names a scenario — renamed to a fresh opaque id for that run. The server gets the same renamed
// file. The harness judges `actual` against the true expectations under the renamed ids and maps the
// verdicts back; a copying client fails every positive row, an id-branching one finds no id it knows.

import { randomBytes } from 'node:crypto';

import { isJsonObject, type JsonValue } from '../protocol/json.ts';
import type { Scenario } from '../scenarios/types.ts';

export interface BlindRun {
  /** What the client's scenario file holds: renamed ids, decoy expectations, no tags. */
  clientScenarios: Scenario[];
  /** The same renamed rows with their true expectations: what the server answers from and the harness judges. */
  judgedScenarios: Scenario[];
  /** Opaque id → the original scenario id. */
  originalId: Map<string, string>;
}

export function blindScenarios(scenarios: readonly Scenario[], random: () => string = () => randomBytes(8).toString('hex')): BlindRun {
  const renamed = new Map<string, string>();
  for (const scenario of scenarios) renamed.set(scenario.id, `blind-${random()}`);
  const rename = (value: unknown): unknown => (typeof value === 'string' && renamed.has(value) ? renamed.get(value) : value);
  const judgedScenarios = scenarios.map((scenario): Scenario => {
    const { tags: _tags, ...rest } = scenario;
    const request = structuredClone(scenario.request);
    request.id = rename(request.id) as typeof request.id;
    const event = request.params?.event as { id?: unknown } | undefined;
    if (event && typeof event === 'object') event.id = rename(event.id);
    const response = structuredClone(scenario.response) as unknown;
    if (isJsonObject(response) && 'id' in response) response.id = rename(response.id) as JsonValue;
    return { ...rest, id: renamed.get(scenario.id)!, request, response: response as Scenario['response'] };
  });
  const clientScenarios = judgedScenarios.map((scenario): Scenario => ({
    ...scenario,
    ...(scenario.expected !== undefined ? { expected: decoy(scenario.expected) as Record<string, JsonValue> } : {}),
    ...(scenario.hostExpected !== undefined ? { hostExpected: decoy(scenario.hostExpected) as Record<string, JsonValue> } : {}),
  }));
  return { clientScenarios, judgedScenarios, originalId: new Map([...renamed].map(([original, opaque]) => [opaque, original])) };
}

const DECISIONS = ['allow', 'deny', 'ask'];

/** A value of the same JSON shape that is never equal to `value` (so a copy of it is always wrong). */
export function decoy(value: unknown, key = ''): unknown {
  if (value === null) return 'decoy';
  if (typeof value === 'boolean') return !value;
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'string') {
    if (key === 'decision' && DECISIONS.includes(value)) return DECISIONS[(DECISIONS.indexOf(value) + 1) % DECISIONS.length];
    if (key === 'flow') return value === 'stop' ? 'continue' : 'stop';
    return `${value}·decoy`;
  }
  if (Array.isArray(value)) return value.length === 0 ? ['decoy'] : [decoy(value[0]), ...value.slice(1)];
  if (isJsonObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 0) return { decoy: true };
    return Object.fromEntries(keys.map((k) => [k, decoy(value[k], k)]));
  }
  return 'decoy';
}
