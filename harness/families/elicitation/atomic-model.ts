// What an SDK's offline atomic-effect helper must stage for one row (rules §5, §7.2,
// interaction-payloads.md "Elicitation modification target"), as a pure model: the whole effect list
// is accepted or the whole row is rejected, nothing partial. At the request boundary `return` (a
// complete valid MCP result) and `deny` (published as a decline) are terminal, and at most one may
// appear; at the result boundary `modify(content)` replaces or shallowly merges the accepted form
// answer. Every effect must be granted (and a modify operation enabled); the final result must be a
// valid MCP result that satisfies the request's form schema. Metadata/omit views cannot execute.

import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from '../../protocol/json.ts';
import type { AtomicBoundary, Selection } from './case-types.ts';
import { contentPlacementProblems, formAnswerProblems, mcpResultProblems, parsedMode } from './mcp-model.ts';

export interface AtomicModelInput {
  boundary: AtomicBoundary;
  selection: Selection;
  request: JsonObject;
  /** The MCP result the result boundary starts from; unused at the request boundary. */
  result: JsonObject | null;
  /** The granted boundary's capabilities. */
  capabilities: JsonObject;
  effects: JsonObject[];
}

export type AtomicModelOutcome = { accepted: false; reason: string } | { accepted: true; result: JsonObject; effects: string[] };

const BOUNDARY_EFFECTS: Record<AtomicBoundary, readonly string[]> = { request: ['return', 'deny'], result: ['modify'] };

function finalResultProblems(result: JsonValue, request: JsonObject): string[] {
  const problems = mcpResultProblems(result);
  if (problems.length > 0 || !isJsonObject(result)) return problems;
  const mode = parsedMode(request);
  const placement = contentPlacementProblems(result, mode);
  if (placement.length > 0) return placement;
  return mode === 'form' && result.action === 'accept' ? formAnswerProblems(result.content, request.requestedSchema ?? null) : [];
}

export function stageAtomicEffects(input: AtomicModelInput): AtomicModelOutcome {
  const reject = (reason: string): AtomicModelOutcome => ({ accepted: false, reason });
  if (input.selection !== 'body') return reject(`a ${input.selection} view cannot execute effects`);
  const grants = Array.isArray(input.capabilities.effects) ? input.capabilities.effects : [];
  const types = input.effects.map((effect) => String(effect.type));
  for (const type of types) {
    if (!grants.includes(type)) return reject(`${type} is not granted`);
    if (!BOUNDARY_EFFECTS[input.boundary].includes(type)) return reject(`${type} is not an effect of the ${input.boundary} boundary`);
  }
  if (types.filter((type) => type === 'return' || type === 'deny').length > 1) return reject('conflicting terminal effects');

  let staged: JsonObject | null = input.boundary === 'result' ? cloneJson(input.result) : null;
  for (const effect of input.effects) {
    if (effect.type === 'deny') {
      if (typeof effect.reason !== 'string' || effect.reason === '') return reject('deny without a reason');
      staged = { action: 'decline' };
    } else if (effect.type === 'return') {
      if (!isJsonObject(effect.value)) return reject('return without an MCP result');
      staged = cloneJson(effect.value);
    } else {
      const operation = effect.operation;
      const modify = isJsonObject(input.capabilities.modify) ? input.capabilities.modify : {};
      const content = isJsonObject(modify.content) ? modify.content : {};
      if (effect.target !== 'content' || (operation !== 'replace' && operation !== 'merge')) return reject('modify targets only content, by replace or merge');
      if (content[operation] !== true) return reject(`modify content ${operation} is not granted`);
      if (!isJsonObject(effect.value)) return reject('modify content needs an answer object');
      if (staged === null || staged.action !== 'accept' || parsedMode(input.request) !== 'form') return reject('only an accepted form result has content to modify');
      const current = isJsonObject(staged.content) ? staged.content : {};
      staged = { ...staged, content: operation === 'replace' ? cloneJson(effect.value) : { ...current, ...cloneJson(effect.value) } };
    }
  }
  if (staged === null) return reject('nothing staged');
  const problems = finalResultProblems(staged, input.request);
  if (problems.length > 0) return reject(`the staged result is invalid: ${problems.join('; ')}`);
  return { accepted: true, result: staged, effects: types };
}
