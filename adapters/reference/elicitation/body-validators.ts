// Validators the receiver and the atomic helper need: the event envelope per binding and stage
// (envelope-schemas.ts), the MCP request and result bodies from `<schemaDir>/mcp-elicitation.schema.json`
// (ours in schemas/, or the protocol's canonical directory), and submitted form content against the
// request's own `requestedSchema`: a standard JSON Schema validator that applies no defaults and
// coerces nothing. ajv is loaded here only, so the sender (`client` mode) never pays for it.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { ErrorObject } from 'ajv/dist/2020.js';

import { jsonKey } from '../../../harness/protocol/json.ts';
import { parseJsonText } from '../../../harness/protocol/json-text.ts';
import { ajv } from '../../../harness/protocol/standalone-cache.ts';
import type { Log } from '../lib/log.ts';
import { exitWith } from '../lib/process-main.ts';
import type { ElicitationBinding, Stage } from './binding.ts';
import { envelopeSchema } from './envelope-schemas.ts';

export const MCP_SCHEMA_FILE = 'mcp-elicitation.schema.json';

/** `undefined` when the value is valid, else the first problem as one line. */
export type Check = (value: unknown) => string | undefined;

export interface ElicitationValidators {
  envelope(stage: Stage): Check;
  request: Check;
  result: Check;
  /** Checks submitted form `content` against the request's `requestedSchema` as written. */
  submitted(requestedSchema: unknown, content: unknown): string | undefined;
}

/** The schema directory cannot serve the elicitation bodies; the message names the file and the fact. */
export class ElicitationSchemaError extends Error {
  override readonly name = 'ElicitationSchemaError';
}

type Compiled = ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };

function firstError(fn: Compiled): string {
  const error = fn.errors?.[0];
  if (!error) return 'rejected by the schema';
  return `${error.instancePath === '' ? '(root)' : error.instancePath}: ${error.message ?? 'is invalid'} [${error.keyword}]`;
}

function check(fn: Compiled): Check {
  return (value) => (fn(value) ? undefined : firstError(fn));
}

function newCompiler(): InstanceType<ReturnType<typeof ajv>['Ajv2020']> {
  const { Ajv2020, addFormats } = ajv();
  // strict: false, because requested schemas carry annotations (`enumNames`, `title`) and defaults
  // of any type, which a submitted value is never checked against.
  const compiler = new Ajv2020({ strict: false, allErrors: false, useDefaults: false, coerceTypes: false });
  addFormats(compiler);
  return compiler;
}

function readMcpSchema(schemaDir: string): Record<string, unknown> {
  const file = path.join(path.resolve(schemaDir), MCP_SCHEMA_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new ElicitationSchemaError(`${file} does not exist: the schema directory needs the MCP elicitation bodies ($defs/request and $defs/result)`);
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new ElicitationSchemaError(`${file} is not valid JSON: ${parsed.reason} ${parsed.where}`);
  const schema = parsed.value;
  if (typeof schema !== 'object' || schema === null || typeof (schema as Record<string, unknown>)['$id'] !== 'string') {
    throw new ElicitationSchemaError(`${file}: expected a JSON Schema object with an $id`);
  }
  const defs = (schema as Record<string, unknown>)['$defs'] as Record<string, unknown> | undefined;
  for (const name of ['request', 'result']) {
    if (typeof defs?.[name] !== 'object') throw new ElicitationSchemaError(`${file}: $defs.${name} is missing (expected the MCP ${name} body schema)`);
  }
  return schema as Record<string, unknown>;
}

export function loadElicitationValidators(schemaDir: string, binding: ElicitationBinding): ElicitationValidators {
  const mcp = readMcpSchema(schemaDir);
  const compiler = newCompiler();
  compiler.addSchema(mcp);
  const id = mcp['$id'] as string;
  const body = (name: string): Check => {
    const fn = compiler.getSchema(`${id}#/$defs/${name}`) as Compiled | undefined;
    if (!fn) throw new ElicitationSchemaError(`${path.join(schemaDir, MCP_SCHEMA_FILE)}: $defs.${name} could not be compiled`);
    return check(fn);
  };
  const envelopes = {
    request: check(compiler.compile(envelopeSchema(binding, 'request')) as Compiled),
    result: check(compiler.compile(envelopeSchema(binding, 'result')) as Compiled),
  };
  // Requested schemas come from the wire: each is compiled once, in its own compiler, so that a
  // schema with an `$id` can never collide with another request's.
  const forms = new Map<string, Check | string>();
  const formCheck = (requestedSchema: unknown): Check | string => {
    const key = jsonKey(requestedSchema);
    const known = forms.get(key);
    if (known !== undefined) return known;
    let compiled: Check | string;
    try {
      // `$schema` names a dialect ajv may not know; the subset means the same in every dialect.
      const { $schema: _dialect, ...schema } = requestedSchema as Record<string, unknown>;
      compiled = check(newCompiler().compile(schema) as Compiled);
    } catch (error) {
      compiled = `the requested schema does not compile (${error instanceof Error ? error.message : String(error)})`;
    }
    forms.set(key, compiled);
    return compiled;
  };
  return {
    envelope: (stage) => envelopes[stage],
    request: body('request'),
    result: body('result'),
    submitted(requestedSchema, content) {
      const form = formCheck(requestedSchema);
      return typeof form === 'string' ? form : form(content);
    },
  };
}

/** The validators, or exit 2 with the one line that says what the schema directory lacks. */
export function validatorsOrExit(log: Log, schemaDir: string, binding: ElicitationBinding): ElicitationValidators {
  try {
    return loadElicitationValidators(schemaDir, binding);
  } catch (error) {
    if (error instanceof ElicitationSchemaError) exitWith(log, 2, error.message);
    throw error;
  }
}
