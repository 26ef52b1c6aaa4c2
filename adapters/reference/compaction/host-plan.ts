// The host's stdin plan: the cases (hook lists with their suppliers and policies only — never an
// expected outcome), the transport, where the HTTP receiver listens with each scope's credentials,
// and the stdio receiver's command. A bad plan is refused naming the field and what was expected.

import { isJsonObject, type JsonObject } from '../../../harness/protocol/json.ts';
import type { FailurePolicy, HookSpec } from './runtime.ts';

export interface HostCase {
  name: string;
  before: HookSpec[];
  after: HookSpec[];
}

export interface HostPlan {
  cases: HostCase[];
  schema: string | undefined;
  transport: 'http' | 'stdio';
  endpoint: string | undefined;
  /** scope → event token (HTTP). */
  tokens: Map<string, string>;
  receiverCommand: string[] | undefined;
}

export class PlanError extends Error {
  override readonly name = 'PlanError';
}

const POLICIES: readonly FailurePolicy[] = ['fail-open', 'fail-closed'];

export type PlanFail = (field: string, expectation: string) => never;

/** The plan object with a valid `transport`, and how to refuse one of its fields (the host's and the probe's). */
export function planWithTransport(value: unknown, where: string): { plan: JsonObject & { transport: 'http' | 'stdio' }; fail: PlanFail } {
  const fail: PlanFail = (field, expectation) => {
    throw new PlanError(`${where}: ${field}: expected ${expectation}`);
  };
  if (!isJsonObject(value)) return fail('(plan)', 'a JSON object');
  if (value.transport !== 'http' && value.transport !== 'stdio') fail('transport', '"http" or "stdio"');
  return { plan: value as JsonObject & { transport: 'http' | 'stdio' }, fail };
}

export function parseHostPlan(input: unknown, where = 'host plan (stdin)'): HostPlan {
  const { plan: value, fail } = planWithTransport(input, where);
  if (!Array.isArray(value.cases)) fail('cases', 'a list of cases');
  const cases = (value.cases as unknown[]).map((row, index): HostCase => {
    const at = `cases[${index}]`;
    if (!isJsonObject(row)) return fail(at, 'an object {name, before, after}');
    if (typeof row.name !== 'string' || row.name === '') fail(`${at}.name`, 'a non-empty string');
    const hooks = (boundary: 'before' | 'after'): HookSpec[] => {
      const list = row[boundary];
      if (!Array.isArray(list)) return fail(`${at}.${boundary}`, 'a list of hooks');
      return list.map((hook, position) => {
        const hookAt = `${at}.${boundary}[${position}]`;
        if (!isJsonObject(hook)) return fail(hookAt, 'an object {supplier, failurePolicy}');
        if (typeof hook.supplier !== 'string' || hook.supplier === '') fail(`${hookAt}.supplier`, 'a non-empty scope name');
        if (!POLICIES.includes(hook.failurePolicy as FailurePolicy)) fail(`${hookAt}.failurePolicy`, '"fail-open" or "fail-closed"');
        return { supplier: hook.supplier as string, failurePolicy: hook.failurePolicy as FailurePolicy };
      });
    };
    return { name: row.name as string, before: hooks('before'), after: hooks('after') };
  });
  if (value.schema !== undefined && typeof value.schema !== 'string') fail('schema', 'a schema directory path');
  const tokens = new Map<string, string>();
  let endpoint: string | undefined;
  let receiverCommand: string[] | undefined;
  if (value.transport === 'http') {
    if (typeof value.endpoint !== 'string' || !/^https?:\/\//.test(value.endpoint)) fail('endpoint', 'the HTTP receiver origin (http://…)');
    endpoint = value.endpoint as string;
    if (!isJsonObject(value.credentials)) fail('credentials', 'an object mapping each scope to {token}');
    for (const [scope, credential] of Object.entries(value.credentials as Record<string, unknown>)) {
      if (!isJsonObject(credential) || typeof credential.token !== 'string') fail(`credentials[${JSON.stringify(scope)}].token`, 'a string');
      tokens.set(scope, (credential as { token: string }).token);
    }
  } else {
    const command = value.receiverCommand;
    if (!Array.isArray(command) || command.length === 0 || !command.every((part) => typeof part === 'string')) fail('receiverCommand', 'a non-empty list of strings (the receiver argv)');
    receiverCommand = command as string[];
  }
  return { cases, schema: value.schema as string | undefined, transport: value.transport, endpoint, tokens, receiverCommand };
}
