// The sender's plan on stdin (ELICITATION-RULES §4): `{endpoint, token, uploadToken, steps:[one
// step], contentSources}`, where a step is `{path, bytes:<base64>, headers?, bypass?}`. Keys the
// plan does not need may be missing (the unauthenticated probe has no uploadToken and no
// contentSources); a key that is present with the wrong type is an error naming it.

import { isJsonObject, type JsonObject } from '../../../harness/protocol/json.ts';
import type { ContentUploadReceipt } from '../../../harness/protocol/messages.ts';

export interface SenderStep {
  path: string;
  bytes: Buffer;
  headers: Record<string, string>;
  bypass: boolean;
}

export interface ContentSource {
  descriptor: ContentUploadReceipt;
  bytes: Buffer;
}

export interface SenderPlan {
  endpoint: string;
  token: string | undefined;
  uploadToken: string | undefined;
  step: SenderStep;
  contentSources: ContentSource[];
}

export class PlanError extends Error {
  override readonly name = 'PlanError';
}

function fail(field: string, expectation: string): never {
  throw new PlanError(`plan: ${field}: expected ${expectation}`);
}

function optionalString(plan: JsonObject, key: string): string | undefined {
  const value = plan[key];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : fail(key, 'a string');
}

function descriptorOf(value: unknown, field: string): ContentUploadReceipt {
  if (!isJsonObject(value) || typeof value['ref'] !== 'string' || typeof value['size'] !== 'number' || typeof value['sha256'] !== 'string') {
    fail(field, 'an object {ref, size, sha256}');
  }
  return { ref: value['ref'], size: value['size'], sha256: value['sha256'] };
}

export function parseSenderPlan(text: string): SenderPlan {
  let plan: unknown;
  try {
    plan = JSON.parse(text);
  } catch {
    throw new PlanError('plan: stdin is not JSON');
  }
  if (!isJsonObject(plan)) fail('(root)', 'an object');
  const endpoint = plan['endpoint'];
  if (typeof endpoint !== 'string' || !/^https?:\/\//.test(endpoint)) fail('endpoint', 'an http:// origin');
  const steps = plan['steps'];
  if (!Array.isArray(steps) || steps.length !== 1) fail('steps', 'an array with exactly one step');
  const step = steps[0];
  if (!isJsonObject(step)) fail('steps[0]', 'an object');
  if (typeof step['path'] !== 'string') fail('steps[0].path', 'a string');
  if (typeof step['bytes'] !== 'string') fail('steps[0].bytes', 'a base64 string');
  const headers = step['headers'] ?? {};
  if (!isJsonObject(headers) || Object.values(headers).some((value) => typeof value !== 'string')) fail('steps[0].headers', 'an object of string values');
  const bypass = step['bypass'] ?? false;
  if (typeof bypass !== 'boolean') fail('steps[0].bypass', 'a boolean');
  const sources = plan['contentSources'] ?? [];
  if (!Array.isArray(sources)) fail('contentSources', 'an array');
  return {
    endpoint: endpoint.replace(/\/+$/, ''),
    token: optionalString(plan, 'token'),
    uploadToken: optionalString(plan, 'uploadToken'),
    step: { path: step['path'], bytes: Buffer.from(step['bytes'], 'base64'), headers: headers as Record<string, string>, bypass },
    contentSources: sources.map((source: unknown, index: number) => {
      if (!isJsonObject(source) || typeof source['bytes'] !== 'string') fail(`contentSources[${index}]`, 'an object {descriptor, bytes}');
      return { descriptor: descriptorOf(source['descriptor'], `contentSources[${index}].descriptor`), bytes: Buffer.from(source['bytes'], 'base64') };
    }),
  };
}
