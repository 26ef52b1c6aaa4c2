// What makes an MCP 2025-11-25 elicitation body valid for the receiver (rules §3 duties 2-3,
// interaction-payloads.md "MCP elicitation binding"): the request params (form or URL, with the closed
// primitive/enum subset for `requestedSchema`), the result (action, primitive content), and a form
// answer against the request's `requestedSchema` as a standard JSON Schema validator reads it — no
// defaults applied, nothing coerced, undeclared fields allowed, `format` an annotation. Pure: the
// receiver model and the atomic model decide expected outcomes with it.

import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../protocol/json.ts';

type Check = (value: JsonValue) => boolean;

const isString: Check = (v) => typeof v === 'string';
const isNumber: Check = (v) => typeof v === 'number';
const isBoolean: Check = (v) => typeof v === 'boolean';
const isStringArray: Check = (v) => Array.isArray(v) && v.every(isString);
const isOption: Check = (v) => isJsonObject(v) && closedObject(v, { const: isString, title: isString }, ['const', 'title']);
const isOptionArray: Check = (v) => Array.isArray(v) && v.every(isOption);

/** Every key of `value` is known and passes its check, and every required key is there. */
function closedObject(value: JsonObject, keys: Record<string, Check>, required: readonly string[]): boolean {
  if (!required.every((key) => key in value)) return false;
  return Object.entries(value).every(([key, item]) => keys[key] !== undefined && (keys[key] as Check)(item));
}

const ANNOTATIONS: Record<string, Check> = { title: isString, description: isString };

/** A multi-select string enum (untitled or titled): they differ only in how `items` lists the options. */
function multiSelect(items: Check): { keys: Record<string, Check>; required: string[] } {
  return { keys: { ...ANNOTATIONS, type: (v) => v === 'array', default: isStringArray, minItems: isNumber, maxItems: isNumber, items }, required: ['type', 'items'] };
}

/** The eight published primitive/enum property schemas, each closed. */
const PROPERTY_VARIANTS: { keys: Record<string, Check>; required: string[] }[] = [
  {
    keys: { ...ANNOTATIONS, type: (v) => v === 'string', default: isString, minLength: isNumber, maxLength: isNumber, format: (v) => ['date', 'date-time', 'email', 'uri'].includes(v as string) },
    required: ['type'],
  },
  { keys: { ...ANNOTATIONS, type: (v) => v === 'number' || v === 'integer', default: isNumber, minimum: isNumber, maximum: isNumber }, required: ['type'] },
  { keys: { ...ANNOTATIONS, type: (v) => v === 'boolean', default: isBoolean }, required: ['type'] },
  { keys: { ...ANNOTATIONS, type: (v) => v === 'string', default: isString, enum: isStringArray }, required: ['type', 'enum'] },
  { keys: { ...ANNOTATIONS, type: (v) => v === 'string', default: isString, oneOf: isOptionArray }, required: ['type', 'oneOf'] },
  { keys: { ...ANNOTATIONS, type: (v) => v === 'string', default: isString, enum: isStringArray, enumNames: isStringArray }, required: ['type', 'enum'] },
  multiSelect((v) => isJsonObject(v) && closedObject(v, { type: (t) => t === 'string', enum: isStringArray }, ['type', 'enum'])),
  multiSelect((v) => isJsonObject(v) && closedObject(v, { anyOf: isOptionArray }, ['anyOf'])),
];

function isPropertySchema(value: JsonValue): boolean {
  return isJsonObject(value) && PROPERTY_VARIANTS.some((variant) => closedObject(value, variant.keys, variant.required));
}

function isRequestedSchema(value: JsonValue): boolean {
  if (!isJsonObject(value)) return false;
  return closedObject(
    value,
    {
      $schema: isString,
      type: (v) => v === 'object',
      properties: (v) => isJsonObject(v) && Object.values(v).every(isPropertySchema),
      required: isStringArray,
    },
    ['type', 'properties'],
  );
}

const isMetaObject = (value: JsonObject): boolean => value._meta === undefined || isJsonObject(value._meta);
const isTaskObject = (value: JsonObject): boolean => value.task === undefined || isJsonObject(value.task);

/** Why `params` is not a valid `elicitation/create` params object; empty when it is. */
export function mcpRequestProblems(params: JsonValue): string[] {
  if (!isJsonObject(params)) return ['the request is not an object'];
  if (!isMetaObject(params) || !isTaskObject(params)) return ['`_meta` and `task` must be objects'];
  if (params.mode === 'url') {
    const missing = ['message', 'url', 'elicitationId'].filter((key) => typeof params[key] !== 'string');
    return missing.length === 0 ? [] : [`a URL request needs string ${missing.join(', ')}`];
  }
  if (params.mode !== undefined && params.mode !== 'form') return [`mode ${JSON.stringify(params.mode)} is neither "form" nor "url"`];
  const problems: string[] = [];
  if (typeof params.message !== 'string') problems.push('a form request needs a string message');
  if (params.requestedSchema === undefined) problems.push('a form request needs requestedSchema');
  else if (!isRequestedSchema(params.requestedSchema)) problems.push('requestedSchema is outside the closed primitive/enum subset');
  return problems;
}

/** The mode a valid request is in: an absent `mode` means form. */
export function parsedMode(params: JsonObject): 'form' | 'url' {
  return params.mode === 'url' ? 'url' : 'form';
}

const isContentValue: Check = (v) => isString(v) || isNumber(v) || isBoolean(v) || isStringArray(v);

/** Why `result` is not a valid ElicitResult; empty when it is. */
export function mcpResultProblems(result: JsonValue): string[] {
  if (!isJsonObject(result)) return ['the result is not an object'];
  if (!isMetaObject(result)) return ['`_meta` must be an object'];
  if (!['accept', 'decline', 'cancel'].includes(result.action as string)) return [`action ${JSON.stringify(result.action)} is not accept, decline or cancel`];
  if (result.content !== undefined && !(isJsonObject(result.content) && Object.values(result.content).every(isContentValue))) {
    return ['content must be an object of strings, numbers, booleans and string arrays'];
  }
  return [];
}

/** Why a result may not carry `content` here: only an accepted form result has any. */
export function contentPlacementProblems(result: JsonObject, mode: 'form' | 'url'): string[] {
  if (result.content === undefined) return [];
  return result.action === 'accept' && mode === 'form' ? [] : [`content is only allowed on an accepted form result (action ${String(result.action)}, mode ${mode})`];
}

function matchesType(type: JsonValue | undefined, value: JsonValue): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    default:
      return true;
  }
}

function optionValues(options: JsonValue | undefined): JsonValue[] | undefined {
  return Array.isArray(options) ? options.map((option) => (isJsonObject(option) ? option.const ?? null : null)) : undefined;
}

function propertyProblems(name: string, schema: JsonObject, value: JsonValue): string[] {
  const problems: string[] = [];
  if (!matchesType(schema.type, value)) return [`${name} is not of type ${String(schema.type)}`];
  const allowed = Array.isArray(schema.enum) ? schema.enum : optionValues(schema.oneOf);
  if (allowed !== undefined && !allowed.some((option) => jsonEqual(option, value))) problems.push(`${name} is not one of the listed options`);
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) problems.push(`${name} is below its minimum ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) problems.push(`${name} is above its maximum ${schema.maximum}`);
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof schema.minLength === 'number' && length < schema.minLength) problems.push(`${name} is shorter than ${schema.minLength}`);
    if (typeof schema.maxLength === 'number' && length > schema.maxLength) problems.push(`${name} is longer than ${schema.maxLength}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) problems.push(`${name} has fewer than ${schema.minItems} items`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) problems.push(`${name} has more than ${schema.maxItems} items`);
    const items = isJsonObject(schema.items) ? schema.items : undefined;
    const itemOptions = items === undefined ? undefined : Array.isArray(items.enum) ? items.enum : optionValues(items.anyOf);
    value.forEach((item, i) => {
      if (items !== undefined && !matchesType(items.type, item)) problems.push(`${name}[${i}] is not of type ${String(items.type)}`);
      else if (itemOptions !== undefined && !itemOptions.some((option) => jsonEqual(option, item))) problems.push(`${name}[${i}] is not one of the listed options`);
    });
  }
  return problems;
}

/**
 * Why a form answer (`content`, absent counting as `{}`) does not satisfy `requestedSchema`: only the
 * keywords a validator asserts (required, type, enum/const options, bounds). `default` is never read.
 */
export function formAnswerProblems(content: JsonValue | undefined, requestedSchema: JsonValue): string[] {
  const answer = content ?? {};
  if (!isJsonObject(answer)) return ['the answer is not an object'];
  if (!isJsonObject(requestedSchema)) return ['the request has no requestedSchema to check the answer against'];
  const properties = isJsonObject(requestedSchema.properties) ? requestedSchema.properties : {};
  const required = Array.isArray(requestedSchema.required) ? requestedSchema.required : [];
  const problems = required.filter((key) => typeof key === 'string' && !(key in answer)).map((key) => `required ${String(key)} is missing`);
  for (const [name, value] of Object.entries(answer)) {
    const schema = properties[name];
    if (isJsonObject(schema)) problems.push(...propertyProblems(name, schema, value));
  }
  return problems;
}
