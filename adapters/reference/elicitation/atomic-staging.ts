// The offline atomic-effect helper's staging (ELICITATION-RULES §5, §7.2; ELICITATION.md): the
// effects a hook answered at one boundary are applied, one by one, to a snapshot of the event's
// bodies. Before the request: `return` (its value becomes the result) or `deny` (a decline). At the
// result: `modify(content)` replace or merge (shallow) on an accepted form result. Every effect must
// be granted by the boundary's capabilities, at most one terminal effect may appear, and after each
// effect the staged result must still be a valid MCP result whose content satisfies the requested
// form. The list is accepted whole or rejected whole; a rejection publishes nothing, only metadata
// or omit selection never executes anything, and the row itself is never written to.

import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from '../../../harness/protocol/json.ts';
import type { ElicitationBinding, Stage } from './binding.ts';
import type { ElicitationValidators } from './body-validators.ts';
import { hasDuplicateKey } from './duplicate-keys.ts';
import { bodyReader, type UploadLookup } from './selected-body.ts';

export interface StagedResult {
  request: JsonObject;
  result: JsonObject;
  /** Types of the applied effects, in order. */
  effects: string[];
}

export type Staging = { ok: true; staged: StagedResult } | { ok: false; reason: string; partial: StagedResult | undefined };

export interface StagingOptions {
  binding: ElicitationBinding;
  validators: ElicitationValidators;
  /** Copies an effect before it is applied, so staging can never write into the row (the honest helper: a deep copy). */
  snapshot: <T>(value: T) => T;
}

class Rejection extends Error {}

function reject(reason: string): never {
  throw new Rejection(reason);
}

function uploadsOf(row: JsonObject): UploadLookup {
  const uploads = Array.isArray(row['uploads']) ? row['uploads'] : [];
  return (ref) => {
    const entry = uploads.find((upload) => isJsonObject(upload) && upload['ref'] === ref);
    return isJsonObject(entry) && typeof entry['bytes'] === 'string' ? Buffer.from(entry['bytes'], 'base64') : undefined;
  };
}

function itemOf(envelope: JsonValue | undefined, stage: Stage): JsonObject | undefined {
  const params = isJsonObject(envelope) ? envelope['params'] : undefined;
  const event = isJsonObject(params) ? params['event'] : undefined;
  const elicitation = isJsonObject(event) ? event['elicitation'] : undefined;
  const item = isJsonObject(elicitation) ? elicitation[stage] : undefined;
  return isJsonObject(item) ? item : undefined;
}

function capabilitiesOf(envelope: JsonValue | undefined): JsonObject {
  const params = isJsonObject(envelope) ? envelope['params'] : undefined;
  const capabilities = isJsonObject(params) ? params['capabilities'] : undefined;
  return isJsonObject(capabilities) ? capabilities : {};
}

export function stageRow(row: JsonObject, options: StagingOptions): Staging {
  let partial: StagedResult | undefined;
  try {
    const boundary: Stage = row['result'] === null || row['result'] === undefined ? 'request' : 'result';
    const read = bodyReader(options.binding, uploadsOf(row));
    const body = (stage: Stage): JsonObject => {
      const view = read(itemOf(row[stage], stage));
      if (!view.ok) reject(`${stage}: ${view.reason}`);
      if (view.view.selection !== 'body') reject(`${stage}: ${view.view.selection} selection cannot authorize execution`);
      const text = view.view.bytes.toString('utf8');
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        reject(`${stage}: the body is not JSON`);
      }
      if (hasDuplicateKey(text)) reject(`${stage}: the body repeats a key within one object`);
      const invalid = stage === 'request' ? options.validators.request(value) : options.validators.result(value);
      if (invalid !== undefined) reject(`${stage}: ${invalid}`);
      return value as JsonObject;
    };
    const request = body('request');
    const mode = request['mode'] ?? 'form';
    let current: JsonObject | undefined = boundary === 'result' ? body('result') : undefined;
    const capabilities = capabilitiesOf(row[boundary]);
    // Absent modes are unsupported (interaction-payloads.md): no effect stages on a mode the boundary does not grant.
    const modes = capabilities['elicitation'];
    if (!isJsonObject(modes) || !isJsonObject(modes[mode as string])) reject(`${String(mode)} mode is not granted at the ${boundary} boundary`);
    const grants = Array.isArray(capabilities['effects']) ? capabilities['effects'] : [];
    const modify = isJsonObject(capabilities['modify']) ? capabilities['modify'] : {};
    const contentOps = isJsonObject(modify['content']) ? modify['content'] : {};
    const applied: string[] = [];
    let terminal = false;

    const effects = Array.isArray(row['effects']) ? row['effects'] : reject('effects is not a list');
    for (const original of effects) {
      const effect = options.snapshot(original);
      if (!isJsonObject(effect) || typeof effect['type'] !== 'string') reject('an effect is not an object with a type');
      const type = effect['type'];
      if (!grants.includes(type)) reject(`${type} is not granted at the ${boundary} boundary`);
      if (boundary === 'request') {
        if (type !== 'return' && type !== 'deny') reject(`${type} does not apply before the request`);
        if (terminal) reject('conflicting terminal effects');
        terminal = true;
        if (type === 'return') {
          if (!isJsonObject(effect['value'])) reject('return needs a result object');
          current = effect['value'];
        } else {
          if (typeof effect['reason'] !== 'string' || effect['reason'] === '') reject('deny needs a reason');
          current = { action: 'decline' };
        }
      } else {
        if (type !== 'modify') reject(`${type} does not apply at the result`);
        const operation = effect['operation'];
        if (effect['target'] !== 'content') reject('modify applies only to the content target here');
        if (operation !== 'replace' && operation !== 'merge') reject('modify needs operation replace or merge');
        if (contentOps[operation] !== true) reject(`modify(content) ${operation} is not granted`);
        if (current?.['action'] !== 'accept' || mode !== 'form') reject('content can be modified only on an accepted form result');
        const value = effect['value'];
        if (!isJsonObject(value)) reject('modify(content) needs an object');
        if (operation === 'replace') current['content'] = value;
        else current['content'] = Object.assign(isJsonObject(current['content']) ? current['content'] : {}, value);
      }
      checkStaged(current!, request, mode, options.validators);
      applied.push(type);
      partial = { request, result: cloneJson(current!), effects: [...applied] };
    }
    if (current === undefined) reject('no effect staged a result');
    return { ok: true, staged: { request, result: current, effects: applied } };
  } catch (error) {
    if (error instanceof Rejection) return { ok: false, reason: error.message, partial };
    throw error;
  }
}

function checkStaged(result: JsonObject, request: JsonObject, mode: JsonValue, validators: ElicitationValidators): void {
  const invalid = validators.result(result);
  if (invalid !== undefined) reject(`staged result: ${invalid}`);
  const formAccept = result['action'] === 'accept' && mode === 'form';
  if (!formAccept && result['content'] !== undefined) reject('content is allowed only on an accepted form result');
  if (formAccept) {
    const problem = validators.submitted(request['requestedSchema'], result['content'] ?? {});
    if (problem !== undefined) reject(`staged content against the requested schema: ${problem}`);
  }
}
