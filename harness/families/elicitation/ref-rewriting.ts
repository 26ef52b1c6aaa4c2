// Ref rewriting (rules §6): before an intercept goes out, every object whose keys are exactly
// `{ref, size, sha256}` and whose `ref` is a confirmed local alias gets the receiver's ref, with its
// own `size` and `sha256` kept — a case that declares a bad digest keeps it, so the receiver (not the
// runner) must catch it. Unconfirmed aliases stay literal. The same walk folds an SDK's confirmed
// re-uploads into the envelope it delivered (rules §9 item 6).

import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../protocol/json.ts';
import type { UploadDescriptor } from './case-types.ts';

export function isDescriptorShaped(value: JsonValue | undefined): value is JsonObject & { ref: JsonValue; size: JsonValue; sha256: JsonValue } {
  if (!isJsonObject(value)) return false;
  const keys = Object.keys(value).sort();
  return keys.length === 3 && keys[0] === 'ref' && keys[1] === 'sha256' && keys[2] === 'size';
}

function mapDescriptors(value: JsonValue, change: (descriptor: JsonObject) => JsonObject | undefined): JsonValue {
  if (Array.isArray(value)) return value.map((item) => mapDescriptors(item, change));
  if (!isJsonObject(value)) return value;
  if (isDescriptorShaped(value)) {
    const replaced = change(value);
    if (replaced !== undefined) return replaced;
  }
  const copy: JsonObject = {};
  for (const [key, item] of Object.entries(value)) copy[key] = mapDescriptors(item, change);
  return copy;
}

/** `message` with every confirmed alias's descriptor pointing at the receiver's ref. */
export function rewriteAliases(message: JsonObject, aliases: ReadonlyMap<string, UploadDescriptor>): JsonObject {
  return mapDescriptors(message, (descriptor) => {
    const confirmed = typeof descriptor.ref === 'string' ? aliases.get(descriptor.ref) : undefined;
    // Both keys exist: isDescriptorShaped matched exactly ref, size and sha256.
    return confirmed === undefined ? undefined : { ref: confirmed.ref, size: descriptor.size as JsonValue, sha256: descriptor.sha256 as JsonValue };
  }) as JsonObject;
}

/** Whether `message` holds an object Equal to `descriptor`. */
export function containsDescriptor(message: JsonValue, descriptor: UploadDescriptor): boolean {
  let found = false;
  mapDescriptors(message, (candidate) => {
    if (jsonEqual(candidate, descriptor)) found = true;
    return undefined;
  });
  return found;
}

/** `message` with every object Equal to `from` replaced by `to` (an SDK's own re-upload). */
export function replaceDescriptor(message: JsonObject, from: UploadDescriptor, to: UploadDescriptor): JsonObject {
  return mapDescriptors(message, (candidate) => (jsonEqual(candidate, from) ? { ref: to.ref, size: to.size, sha256: to.sha256 } : undefined)) as JsonObject;
}
