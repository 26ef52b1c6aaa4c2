// The transport adapter's `client` mode (the receiver rejection probe): send each planned request
// unchanged through this SDK's plain transport — no sender-side validation, so receivers see the
// invalid requests — and print the replies in request order. HTTP posts to the plan's endpoint
// exactly, with the plan's bearer token; any non-2xx reply is a failure of the run. stdio spawns the
// command (plus one trailing `stdio`) once, writes every request, closes stdin, requires exit 0 and
// reads every stdout line.

import type { JsonValue } from '../../../harness/protocol/json.ts';
import { postJson } from './http-exchange.ts';
import { planWithTransport } from './host-plan.ts';
import { stdioSession } from './stdio-exchange.ts';

export const PROBE_HTTP_TIMEOUT_MS = 20_000;
export const PROBE_STDIO_TIMEOUT_MS = 60_000;

export interface ProbePlan {
  transport: 'http' | 'stdio';
  requests: JsonValue[];
  endpoint: string | undefined;
  token: string | undefined;
  command: string[] | undefined;
}

export function parseProbePlan(input: unknown, where = 'probe plan (stdin)'): ProbePlan {
  const { plan: value, fail } = planWithTransport(input, where);
  if (!Array.isArray(value.requests)) fail('requests', 'a list of requests');
  if (value.transport === 'http') {
    if (typeof value.endpoint !== 'string' || !/^https?:\/\//.test(value.endpoint)) fail('endpoint', 'the full intercept URL (http://…)');
    if (typeof value.token !== 'string') fail('token', 'the bearer token (a string)');
  } else if (!Array.isArray(value.command) || value.command.length === 0 || !value.command.every((part) => typeof part === 'string')) {
    fail('command', 'a non-empty list of strings (the receiver argv)');
  }
  return {
    transport: value.transport,
    requests: value.requests as JsonValue[],
    endpoint: value.endpoint as string | undefined,
    token: value.token as string | undefined,
    command: value.command as string[] | undefined,
  };
}

/** The replies in request order, or the failure that ends the run. */
export async function runProbe(plan: ProbePlan): Promise<{ ok: true; replies: JsonValue[] } | { ok: false; error: string }> {
  if (plan.transport === 'http') {
    const replies: JsonValue[] = [];
    for (const [index, request] of plan.requests.entries()) {
      const posted = await postJson(plan.endpoint!, plan.token!, request, PROBE_HTTP_TIMEOUT_MS);
      if (!posted.ok) return { ok: false, error: `requests[${index}]: ${posted.error}` };
      if (posted.status < 200 || posted.status > 299) return { ok: false, error: `requests[${index}]: the receiver answered HTTP ${posted.status}` };
      if (posted.json === undefined) return { ok: false, error: `requests[${index}]: the reply is not JSON` };
      replies.push(posted.json);
    }
    return { ok: true, replies };
  }
  const session = await stdioSession([...plan.command!, 'stdio'], plan.requests.map((request) => JSON.stringify(request)), PROBE_STDIO_TIMEOUT_MS);
  if (!session.ok) return { ok: false, error: session.error };
  if (session.code !== 0) return { ok: false, error: `the receiver exited with code ${session.code}` };
  const replies: JsonValue[] = [];
  for (const [index, line] of session.lines.entries()) {
    try {
      replies.push(JSON.parse(line) as JsonValue);
    } catch {
      return { ok: false, error: `stdout line ${index + 1} is not JSON` };
    }
  }
  return { ok: true, replies };
}
