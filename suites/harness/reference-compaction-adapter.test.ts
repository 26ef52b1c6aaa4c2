// The reference compaction adapter on its own (COMPACTION-RULES.md §4–§6, §9): its runtime's
// semantics on the eight cases' shapes in process; the lying fakes' flaws, each breaking exactly the
// cases their README lists; the receiver's duties over HTTP (401, −32602 inside HTTP 200 with no
// receipt, configured effects verbatim) and stdio (exactly one line per request); and one host run
// over each transport through the adapter.json commands, as the harness starts them.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { loadAdapter } from '../../harness/adapters/adapter-manifest.ts';
import { readEndpointLine } from '../../harness/adapters/endpoint-line.ts';
import { familyCommand, type FamilyCommandKey } from '../../harness/adapters/family-command.ts';
import { launch, type LaunchedProcess } from '../../harness/adapters/launch.ts';
import { runClientProcess } from '../../harness/runs/client-process.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../harness/protocol/json.ts';
import { compactionRequest } from '../../adapters/reference/compaction/compaction-request.ts';
import { runCompaction, type HookSnapshot } from '../../adapters/reference/compaction/runtime.ts';
import { stageResponse } from '../../adapters/reference/compaction/stage-response.ts';
import { inlineText, textParts, textPartsProblem } from '../../adapters/reference/compaction/text-parts.ts';
import { parseHostPlan } from '../../adapters/reference/compaction/host-plan.ts';
import { parseProbePlan } from '../../adapters/reference/compaction/probe-client.ts';
import { loadSubscriptions } from '../../adapters/reference/compaction/subscriptions.ts';
import { tokenScopes } from '../../adapters/reference/compaction/token-scopes.ts';
import { parseWireArgv, WIRE_USAGE } from '../../adapters/reference/compaction/wire-argv.ts';
import type { WireParts } from '../../adapters/reference/compaction/wire-main.ts';
import type { CompactionReceipt } from '../../adapters/reference/compaction/receipt-file.ts';
import { PROJECT_ROOT, REFERENCE_DIR } from './support/reference-processes.ts';
import { caseNamed, hostRows, subscriptionConfig } from './support/compaction-wire-cases.ts';
import { CASE_NAMES, inProcessReceiver, outcomeProblems, runInProcess } from './support/compaction-in-process.ts';

const SCHEMA_DIR = path.join(PROJECT_ROOT, 'schemas');
const FAKES_DIR = path.join(PROJECT_ROOT, 'suites', 'harness', 'fixtures', 'compaction-fakes');
const START_MS = 30_000;
const RUN_MS = 45_000;

const fakeParts = async (name: string): Promise<WireParts> =>
  ((await import(path.join(FAKES_DIR, name, 'flaw.ts'))) as { FAKE_PARTS: WireParts }).FAKE_PARTS;

const failingCases = (outputs: Awaited<ReturnType<typeof runInProcess>>['outputs']): string[] =>
  outputs.filter((output) => outcomeProblems(output, caseNamed(output.name).outcome).length > 0).map((output) => output.name);

/** The first probe request of the rules (§9): chain's before request with one invalid change. */
function invalidVariants(): JsonObject[] {
  const base = compactionRequest('chain', { boundary: 'before', instructions: textParts('base'), summary: null, generated: false });
  const variant = (change: (event: JsonObject, params: JsonObject) => void): JsonObject => {
    const request = structuredClone(base);
    const params = request.params as JsonObject;
    change(params.event as JsonObject, params);
    return request;
  };
  return [
    variant((event) => delete event.trigger),
    variant((_event, params) => ((params.capabilities as JsonObject).modify = { summary: { replace: true, merge: false } })),
    variant((event) => (event.instructions = 'legacy scalar')),
    variant((event) => (((event.instructions as JsonObject[])[0] as JsonObject).body = { ref: 'urn:legacy-text' })),
  ];
}

describe('the reference compaction runtime, in process', () => {
  test.each(CASE_NAMES)('%s settles as the rules say, and every exchange left one matching receipt', async (name) => {
    const run = await runInProcess({ names: [name] });
    const output = run.outputs[0]!;
    expect(outcomeProblems(output, caseNamed(name).outcome)).toEqual([]);
    expect(run.receipts).toEqual(output.trace);
  });

  test('the 8 cases make 27 exchanges; the three unreachable scopes are never called', async () => {
    const run = await runInProcess();
    expect(run.receipts).toHaveLength(27);
    const called = new Set(run.receipts.map((receipt) => receipt.subscription));
    expect(Object.keys(subscriptionConfig()).filter((scope) => !called.has(scope)).sort()).toEqual(['after-closed-after-1', 'before-closed-after-0', 'before-closed-before-1']);
  });

  test('a supplied summary skips generation: the after event says supplied_result, and the after hooks still edit it', async () => {
    const { outputs } = await runInProcess({ names: ['supplied', 'chain'] });
    const supplied = outputs.find((output) => output.name === 'supplied')!;
    const chain = outputs.find((output) => output.name === 'chain')!;
    const afterEvent = (output: typeof supplied): JsonObject =>
      ((output.trace.find((entry) => entry.subscription === `${output.name}-after-0`)!.request as JsonObject).params as JsonObject).event as JsonObject;
    expect(afterEvent(supplied).execution).toEqual({ status: 'skipped', reason: 'supplied_result' });
    expect(afterEvent(chain).execution).toEqual({ status: 'executed' });
    expect(afterEvent(supplied).parentEventId).toBe('supplied:before');
    expect(inlineText(supplied.result.summary)).toBe('cached:safe');
  });

  test('hooks are called one at a time, in declared order, each seeing what the previous one settled', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const calls: string[] = [];
    const result = await runCompaction({
      name: 'serial',
      instructions: textParts('base'),
      before: ['a', 'b', 'c'].map((supplier) => ({ supplier, failurePolicy: 'fail-closed' as const })),
      after: [],
      call: async (hook, snapshot: HookSnapshot) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        calls.push(`${hook.supplier}:${inlineText(snapshot.instructions)}`);
        await new Promise<void>((resolve) => setImmediate(resolve));
        inFlight--;
        return [{ type: 'modify', target: 'instructions', operation: 'replace', value: textParts(`${inlineText(snapshot.instructions)}+${hook.supplier}`) }];
      },
    });
    expect(maxInFlight).toBe(1);
    expect(calls).toEqual(['a:base', 'b:base+a', 'c:base+a+b']);
    expect(inlineText(result.instructions)).toBe('base+a+b+c');
  });

  test('an invalid compound response is rejected whole at either boundary, and a valid one is staged', () => {
    const wrong = (target: string) => ({ type: 'modify', target, operation: 'replace', value: textParts('x') });
    const before = stageResponse([wrong('instructions'), { type: 'message', text: 'leaked' }, wrong('summary')], 'before');
    expect(before).toEqual({ ok: false, problem: expect.stringMatching(/^effects\[2\] modifies "summary"/) as unknown as string });
    expect(stageResponse([wrong('summary'), { type: 'message', text: 'leaked' }, wrong('instructions')], 'after').ok).toBe(false);
    expect(stageResponse([{ type: 'return', value: 'cached' }], 'before').ok).toBe(false);
    expect(stageResponse([{ type: 'modify', target: 'instructions', operation: 'merge', value: textParts('x') }], 'before').ok).toBe(false);
    expect(stageResponse([{ type: 'deny' }], 'before').ok).toBe(false);
    expect(stageResponse([{ type: 'return', value: textParts('s') }], 'after').ok).toBe(false);
    expect(stageResponse([wrong('instructions'), { type: 'message', text: 'hi' }, { type: 'return', value: textParts('s') }], 'before')).toEqual({
      ok: true,
      changes: { instructions: textParts('x'), returned: textParts('s'), messages: ['hi'] },
    });
  });

  test('a later instruction change invalidates an earlier supplied summary, so the summary is generated again', async () => {
    const answers: unknown[] = [[{ type: 'return', value: textParts('cached') }], [{ type: 'modify', target: 'instructions', operation: 'replace', value: textParts('edited') }]];
    const result = await runCompaction({
      name: 'rebind',
      instructions: textParts('base'),
      before: ['a', 'b'].map((supplier) => ({ supplier, failurePolicy: 'fail-closed' as const })),
      after: [],
      call: async () => answers.shift(),
    });
    expect({ generated: result.generated, summary: inlineText(result.summary), applied: result.applied }).toEqual({ generated: true, summary: 'summary:edited', applied: true });
  });

  test('an accepted deny before compaction stops it without a failure; a callback error is a failure under its policy', async () => {
    const denied = await runCompaction({
      name: 'deny',
      instructions: textParts('base'),
      before: [{ supplier: 'a', failurePolicy: 'fail-closed' }, { supplier: 'b', failurePolicy: 'fail-closed' }],
      after: [{ supplier: 'c', failurePolicy: 'fail-closed' }],
      call: async () => [{ type: 'deny', reason: 'no' }],
    });
    expect({ generated: denied.generated, applied: denied.applied, summary: denied.summary, failures: denied.failures, seen: denied.seen }).toEqual({ generated: false, applied: false, summary: null, failures: [], seen: ['base'] });
    const failedOpen = await runCompaction({
      name: 'error',
      instructions: textParts('base'),
      before: [{ supplier: 'a', failurePolicy: 'fail-open' }],
      after: [],
      call: async () => {
        throw new Error('transport: boom');
      },
    });
    expect({ applied: failedOpen.applied, failures: failedOpen.failures }).toEqual({ applied: true, failures: [{ supplier: 'a', boundary: 'before', failurePolicy: 'fail-open', reason: 'transport: boom' }] });
  });

  test('inline text refuses a legacy body reference, a gap, a scalar and a metadata selection', () => {
    const part = textParts('x', 'case:instructions')[0]!;
    expect(textPartsProblem([part])).toBeUndefined();
    expect(textPartsProblem([{ ...part, body: { ref: 'legacy' } }])).toMatch(/"body"/);
    expect(textPartsProblem([{ ...part, gap: { reason: 'x' } }])).toMatch(/"gap"/);
    expect(textPartsProblem([{ ...part, selection: 'metadata' }])).toMatch(/selection/);
    expect(() => inlineText('legacy scalar')).toThrow(/not a list/);
  });

  test('the wire argv: mode after the three paths, mode first too, one trailing stdio ignored, anything else refused', () => {
    expect(parseWireArgv(['s', 'b', 'c', 'server'])).toEqual({ mode: 'server', schemaDir: 's', storeDir: 'b', configPath: 'c' });
    expect(parseWireArgv(['server', 's', 'b', 'c'])).toEqual({ mode: 'server', schemaDir: 's', storeDir: 'b', configPath: 'c' });
    expect(parseWireArgv(['s', 'b', 'c', 'stdio', 'chain-before-0', 'stdio'])).toEqual({ mode: 'stdio', schemaDir: 's', storeDir: 'b', configPath: 'c', scope: 'chain-before-0' });
    expect(parseWireArgv(['host'])).toEqual({ mode: 'host' });
    for (const bad of [[], ['s', 'b', 'c', 'stdio'], ['s', 'b', 'c', 'stdio', 'x', 'stdio', 'stdio'], ['s', 'b', 'c', 'serve'], ['host', 'x']]) expect(parseWireArgv(bad)).toEqual({ error: WIRE_USAGE });
  });
});

describe('bad input to the reference compaction adapter is refused naming the place and the expectation', () => {
  test('host and probe plans', () => {
    expect(() => parseHostPlan({ transport: 'http', cases: [{ name: 'x', before: [{ supplier: 's', failurePolicy: 'sometimes' }], after: [] }] })).toThrow(
      'host plan (stdin): cases[0].before[0].failurePolicy: expected "fail-open" or "fail-closed"',
    );
    expect(() => parseHostPlan({ transport: 'stdio', cases: [], receiverCommand: [] })).toThrow('host plan (stdin): receiverCommand: expected a non-empty list of strings');
    expect(() => parseHostPlan({ transport: 'pigeon', cases: [] })).toThrow('host plan (stdin): transport: expected "http" or "stdio"');
    expect(() => parseProbePlan({ transport: 'http', requests: [], endpoint: 'http://127.0.0.1:1/hooks/intercept' })).toThrow('probe plan (stdin): token: expected the bearer token');
  });

  test('the subscription config and the token maps', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ahp-compaction-config-'));
    try {
      const file = path.join(dir, 'subscriptions.json');
      writeFileSync(file, JSON.stringify({ 'chain-before-0': { kind: 'append', target: 'input', suffix: ':x' } }));
      expect(() => loadSubscriptions(file)).toThrow(`subscription config ${file}: "chain-before-0".target: expected "instructions" or "summary"`);
      writeFileSync(file, '{');
      expect(() => loadSubscriptions(file)).toThrow(`subscription config ${file} is not valid JSON`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(() => tokenScopes('AHP_COMPACTION_TOKENS', { AHP_COMPACTION_TOKENS: '{"secret-token": 3}' })).toThrow(/every value must be a scope name/);
    expect(() => tokenScopes('AHP_COMPACTION_TOKENS', { AHP_COMPACTION_TOKENS: '{"secret-token": 3}' })).not.toThrow(/secret-token/);
  });
});

describe('each lying fake breaks exactly the cases its README lists (in process)', () => {
  const listed: Record<string, string[]> = {
    'host-commits-partial-compound': ['before-atomic', 'after-atomic', 'after-closed'],
    'host-undoes-generation': ['after-closed'],
    'host-continues-after-fail-closed': ['after-closed'],
    'host-out-of-order': ['chain', 'supplied', 'before-atomic', 'after-atomic', 'after-closed', 'before-closed'],
    'host-seen-omits-rejected': ['before-atomic', 'after-atomic', 'after-closed', 'before-closed', 'before-open', 'after-open'],
    'receiver-repairs-invalid-effects': ['before-atomic', 'after-atomic', 'after-closed', 'before-closed', 'before-open', 'after-open'],
  };

  test('the reference itself breaks none', async () => {
    expect(failingCases((await runInProcess()).outputs)).toEqual([]);
  });

  test.each(Object.keys(listed))('%s', async (name) => {
    const parts = await fakeParts(name);
    const run = await runInProcess({ host: parts.host, receiver: parts.receiver });
    expect(failingCases(run.outputs)).toEqual(listed[name]);
  });

  test('receiver-receipt-for-rejected records the rejected request the reference leaves out', async () => {
    const request = invalidVariants()[0]!;
    const reference: CompactionReceipt[] = [];
    const reply = JSON.parse(inProcessReceiver(reference).answer(request, 'chain-before-0')) as JsonObject;
    expect((reply.error as JsonObject).code).toBe(-32602);
    expect(reference).toEqual([]);
    const lying: CompactionReceipt[] = [];
    inProcessReceiver(lying, (await fakeParts('receiver-receipt-for-rejected')).receiver).answer(request, 'chain-before-0');
    expect(lying.map((receipt) => receipt.subscription)).toEqual(['chain-before-0']);
  });
});

// ------------------------------------------------------------------------------------------------
// Processes: the adapter.json commands, started as the harness starts them.

interface PairDir {
  dir: string;
  storeDir: string;
  configPath: string;
  tokens: Record<string, string>;
  credentials: Record<string, { token: string; uploadToken: string }>;
}

function pairDir(root: string, label: string): PairDir {
  const dir = path.join(root, label);
  const storeDir = path.join(dir, 'bodies');
  mkdirSync(storeDir, { recursive: true });
  const configPath = path.join(dir, 'subscriptions.json');
  writeFileSync(configPath, JSON.stringify(subscriptionConfig()));
  const tokens: Record<string, string> = {};
  const credentials: Record<string, { token: string; uploadToken: string }> = {};
  for (const scope of Object.keys(subscriptionConfig())) {
    const token = randomBytes(18).toString('base64url');
    tokens[token] = scope;
    credentials[scope] = { token, uploadToken: randomBytes(18).toString('base64url') };
  }
  return { dir, storeDir, configPath, tokens, credentials };
}

const receipts = (pair: PairDir): JsonObject[] => {
  const file = path.join(pair.storeDir, 'receipts.jsonl');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as JsonObject) : [];
};

function commandOf(adapterDir: string, key: FamilyCommandKey): string[] {
  const adapter = loadAdapter({ name: path.basename(adapterDir), cwd: adapterDir, adapterFile: path.join(adapterDir, 'interop', 'adapter.json') });
  const found = familyCommand(adapter, key);
  if (!found.ok) throw new Error(found.reason);
  return found.command.argv;
}

/** Runs a host or probe client with `plan` on stdin; resolves with its parsed stdout. */
async function runWithPlan(pair: PairDir, command: string[], cwd: string, label: string, plan: unknown): Promise<{ code: number | null; stdout: unknown; log: string }> {
  const planFile = path.join(pair.dir, `${label}-plan.json`);
  writeFileSync(planFile, JSON.stringify(plan), { mode: 0o600 });
  const stdoutFile = path.join(pair.dir, `${label}.out`);
  const logFile = path.join(pair.dir, `${label}.log`);
  const run = await runClientProcess({ command, cwd, env: { AHP_COMPACTION_TOKENS: JSON.stringify(pair.tokens) }, logFile, stdoutFile, stdinFile: planFile, runMs: RUN_MS, graceMs: 1_000 });
  if (!run.started) throw run.spawnError;
  const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
  const text = existsSync(stdoutFile) ? readFileSync(stdoutFile, 'utf8') : '';
  return { code: run.timedOut ? null : run.exit.code, stdout: text.trim() === '' ? undefined : JSON.parse(text), log };
}

const WIRE = commandOf(REFERENCE_DIR, 'compactionWire');
const TRANSPORT = commandOf(REFERENCE_DIR, 'compaction');
let root: string;
const started: LaunchedProcess[] = [];

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'ahp-compaction-reference-'));
});
afterAll(async () => {
  await Promise.all(started.map((process) => process.stop(1_000)));
  rmSync(root, { recursive: true, force: true });
});

describe('the reference receiver over HTTP', () => {
  let pair: PairDir;
  let endpoint: string;

  beforeAll(async () => {
    pair = pairDir(root, 'http');
    const receiver = await launch({
      command: [...WIRE, SCHEMA_DIR, pair.storeDir, pair.configPath, 'server'],
      cwd: REFERENCE_DIR,
      env: { AHP_COMPACTION_TOKENS: JSON.stringify({ ...pair.tokens, 'token-of-an-unconfigured-scope': 'nowhere' }) },
      passStdout: true,
      stderrFile: path.join(pair.dir, 'receiver.log'),
      graceMs: 1_000,
    });
    started.push(receiver);
    const line = await readEndpointLine(receiver.stdout!, { timeoutMs: START_MS, stderrFile: path.join(pair.dir, 'receiver.log') });
    if (!line.ok) throw new Error(`the reference HTTP receiver did not start (${line.kind}): ${line.detail}`);
    endpoint = line.endpoint;
  }, START_MS + 5_000);

  const post = async (body: unknown, token: string | undefined, route = '/hooks/intercept'): Promise<{ status: number; json: JsonValue }> => {
    const response = await fetch(`${endpoint}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, json: (await response.json()) as JsonValue };
  };
  const valid = (): JsonObject => compactionRequest('before-closed', { boundary: 'before', instructions: textParts('base'), summary: null, generated: false });

  test('refuses a missing or unknown token (401), an unconfigured scope (403) and other routes (404), keeping no receipt', async () => {
    expect((await post(valid(), undefined)).status).toBe(401);
    expect((await post(valid(), 'not-a-token')).status).toBe(401);
    expect((await post(valid(), 'token-of-an-unconfigured-scope')).status).toBe(403);
    expect((await post(valid(), pair.credentials['before-closed-before-0']!.token, '/intercept')).status).toBe(404);
    expect(receipts(pair)).toEqual([]);
  });

  test('answers each invalid probe request with −32602 inside HTTP 200 and keeps no receipt of it', async () => {
    for (const request of invalidVariants()) {
      const reply = await post(request, pair.credentials['chain-before-0']!.token);
      expect(reply.status).toBe(200);
      expect(reply.json).toMatchObject({ jsonrpc: '2.0', id: 'chain:before', error: { code: -32602 } });
    }
    expect(receipts(pair)).toEqual([]);
  });

  test('returns a configured invalid effect list verbatim and records exactly that request and reply', async () => {
    const request = valid();
    const reply = await post(request, pair.credentials['before-closed-before-0']!.token);
    expect(reply.status).toBe(200);
    const configured = (subscriptionConfig()['before-closed-before-0'] as JsonObject).effects;
    expect(reply.json).toEqual({ jsonrpc: '2.0', id: 'before-closed:before', result: { protocolVersion: 'draft', effects: configured } });
    expect(receipts(pair)).toEqual([{ subscription: 'before-closed-before-0', request, response: reply.json }]);
  });

  test('a host run of one case (before-open) and the probe client, through the adapter.json commands', async () => {
    const before = receipts(pair).length;
    const row = (hostRows() as JsonObject[]).find((candidate) => candidate.name === 'before-open');
    const host = await runWithPlan(pair, [...WIRE, 'host'], REFERENCE_DIR, 'host', {
      cases: [row],
      schema: SCHEMA_DIR,
      transport: 'http',
      endpoint,
      credentials: pair.credentials,
      receiverCommand: [...WIRE, SCHEMA_DIR, pair.storeDir, pair.configPath],
    });
    expect(host.code, host.log).toBe(0);
    const [output] = host.stdout as Array<Parameters<typeof outcomeProblems>[0]>;
    expect(outcomeProblems(output!, caseNamed('before-open').outcome)).toEqual([]);
    expect(receipts(pair).slice(before)).toEqual(output!.trace);
    expect(host.log).not.toContain(pair.credentials['before-open-before-0']!.token);

    const probe = await runWithPlan(pair, [...TRANSPORT, 'client'], REFERENCE_DIR, 'probe', {
      transport: 'http',
      requests: invalidVariants(),
      endpoint: `${endpoint}/hooks/intercept`,
      token: pair.credentials['chain-before-0']!.token,
      command: [...WIRE, SCHEMA_DIR, pair.storeDir, pair.configPath, 'stdio', 'chain-before-0'],
    });
    expect(probe.code, probe.log).toBe(0);
    expect((probe.stdout as JsonObject[]).map((reply) => (isJsonObject(reply.error) ? reply.error.code : reply))).toEqual([-32602, -32602, -32602, -32602]);
    expect(receipts(pair).length).toBe(before + output!.trace.length);
  });
});

describe('the reference receiver over stdio', () => {
  const stdioProbe = async (label: string, wire: string[], cwd: string) => {
    const pair = pairDir(root, label);
    const accepted = compactionRequest('chain', { boundary: 'before', instructions: textParts('base'), summary: null, generated: false });
    const probe = await runWithPlan(pair, [...TRANSPORT, 'client'], REFERENCE_DIR, 'probe', {
      transport: 'stdio',
      requests: [accepted, invalidVariants()[0]],
      command: [...wire, SCHEMA_DIR, pair.storeDir, pair.configPath, 'stdio', 'chain-before-0'],
    });
    return { pair, probe, cwd };
  };

  test('writes exactly one line per request (the probe client appends a trailing stdio) and records only the valid one', async () => {
    const { pair, probe } = await stdioProbe('stdio-one-line', WIRE, REFERENCE_DIR);
    expect(probe.code, probe.log).toBe(0);
    const replies = probe.stdout as JsonObject[];
    expect(replies.map((reply) => (reply.error === undefined ? 'result' : (reply.error as JsonObject).code))).toEqual(['result', -32602]);
    expect(receipts(pair).map((receipt) => receipt.subscription)).toEqual(['chain-before-0']);
  });

  test('the stdio-receiver-second-line fake is caught: two lines per request', async () => {
    const fake = path.join(FAKES_DIR, 'stdio-receiver-second-line');
    const { probe } = await stdioProbe('stdio-second-line', commandOf(fake, 'compactionWire'), fake);
    expect(probe.code, probe.log).toBe(0);
    expect(probe.stdout).toHaveLength(4);
  });

  test('a host run of one case (before-open) spawns one receiver per hook call and settles as over HTTP', async () => {
    const pair = pairDir(root, 'stdio-host');
    const row = (hostRows() as JsonObject[]).find((candidate) => candidate.name === 'before-open');
    const host = await runWithPlan(pair, [...WIRE, 'host'], REFERENCE_DIR, 'host', {
      cases: [row],
      schema: SCHEMA_DIR,
      transport: 'stdio',
      endpoint: 'http://127.0.0.1:9',
      credentials: pair.credentials,
      receiverCommand: [...WIRE, SCHEMA_DIR, pair.storeDir, pair.configPath],
    });
    expect(host.code, host.log).toBe(0);
    const [output] = host.stdout as Array<Parameters<typeof outcomeProblems>[0]>;
    expect(outcomeProblems(output!, caseNamed('before-open').outcome)).toEqual([]);
    expect(receipts(pair)).toEqual(output!.trace);
  });
});
