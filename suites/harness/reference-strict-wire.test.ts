// The reference adapter is strict (adapters/reference/lib/strict-wire.ts): each role enforces the
// semantic lint's per-message MUSTs. Its servers refuse a hooks/intercept whose JSON-RPC id differs
// from params.event.id with Invalid params (-32602) and keep no receipt of it; its clients refuse to
// send such a request and fail the row naming the rule. In process where the code path is one
// function, and end to end (real client processes) for the clients' refusals.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { Barriers } from '../../adapters/reference/lib/barriers.ts';
import { SdkObserver } from '../../adapters/reference/catalogue/sdk-observer.ts';
import { dispatch, type ServerState } from '../../adapters/reference/lib/dispatch.ts';
import type { Received } from '../../adapters/reference/lib/channel.ts';
import { StrictEvents, type Delivery, type EventTransport } from '../../adapters/reference/lifecycle/event-transport.ts';
import type { ContentStore } from '../../adapters/reference/lifecycle/content-store.ts';
import type { ReceiptLog } from '../../adapters/reference/lifecycle/receipt-log.ts';
import { LifecycleReceiver } from '../../adapters/reference/lifecycle/receiver.ts';
import { RowFailure } from '../../adapters/reference/lifecycle/row-failure.ts';
import type { ScriptedResponses } from '../../adapters/reference/lifecycle/scripted-responses.ts';
import { createLog } from '../../adapters/reference/lib/log.ts';
import { writePrivateJson } from '../../harness/adapters/private-json.ts';
import { projectRoot } from '../../harness/config/load-config.ts';
import { cloneJson, type JsonObject } from '../../harness/protocol/json.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';
import type { Scenario } from '../../harness/scenarios/types.ts';
import { heldPublishRow } from './support/lifecycle-rows.ts';
import { okResponse, toolBeforeRequest } from './support/intercept-messages.ts';
import { killLaunched, launchReference, REFERENCE_ADAPTER, REFERENCE_DIR } from './support/reference-processes.ts';

const CORE_ADAPTER = JSON.parse(readFileSync(path.join(REFERENCE_DIR, 'interop', 'adapter.json'), 'utf8')) as { server: string[]; client: string[] };
import { runReferenceOverStdio } from './support/reference-runs.ts';

const RULE = 'events.md#jsonrpc-id-equals-event-id';
const validators = loadValidators(path.join(projectRoot(), 'schemas'));
const log = createLog('strict-wire-test');
const workDir = mkdtempSync(path.join(tmpdir(), 'ahp-strict-wire-'));
let counter = 0;
const file = (name: string): string => path.join(workDir, `${++counter}-${name}`);
const write = (name: string, value: unknown): string => {
  const target = file(name);
  writePrivateJson(target, value);
  return target;
};

afterAll(async () => {
  await killLaunched();
  rmSync(workDir, { recursive: true, force: true });
});

const CAPABILITIES = { effects: ['deny', 'message'] };

/** A request whose JSON-RPC id is the scenario id but whose event id differs. */
function mismatched(id: string): JsonObject {
  const request = cloneJson(toolBeforeRequest(id, CAPABILITIES)) as unknown as JsonObject;
  ((request.params as JsonObject).event as JsonObject).id = `${id}:event`;
  return request;
}

function errorOf(body: string): { code: unknown; message: string } {
  const parsed = JSON.parse(body) as { error?: { code: unknown; message: string } };
  expect(parsed.error, body).toBeDefined();
  return parsed.error!;
}

describe('strict reference servers', () => {
  test('the core server refuses a request whose ids differ (-32602 naming the rule), keeps answering valid ones', async () => {
    const scenario: Scenario = { id: 'strict.core', request: toolBeforeRequest('strict.core', CAPABILITIES), response: okResponse('strict.core', []), expected: {} };
    const state: ServerState = { scenarios: new Map([[scenario.id, scenario]]), validators, receipts: [], barriers: new Barriers(), authMode: 'none', barrierWatchdogMs: 1000, log };

    const refused = await dispatch(mismatched('strict.core'), 'http-intercept', state);
    expect(refused.status).toBe(400);
    const error = errorOf(refused.body);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain(`[${RULE}] params.event.id`);

    const answered = await dispatch(scenario.request, 'http-intercept', state);
    expect(answered).toEqual({ status: 200, body: JSON.stringify(scenario.response) });
  });

  test('the lifecycle receiver refuses an intercept whose ids differ before recording or holding it, and an observation with an id', async () => {
    const appended: unknown[] = [];
    const receiver = new LifecycleReceiver({
      // Every refusal under test happens before the script or the content store is consulted.
      script: { knows: () => true, nextResponse: () => undefined, rowOfEvent: () => undefined } as unknown as ScriptedResponses,
      receipts: { append: (entry: unknown) => appended.push(entry) } as unknown as ReceiptLog,
      releases: new Barriers(),
      content: { has: () => false } as unknown as ContentStore,
      contentScope: 'test',
      validators,
      holdWatchdogMs: 1000,
      log,
    });
    const refused = await receiver.intercept(mismatched('strict.lifecycle:a'));
    expect(refused.status).toBe(400);
    expect(errorOf(refused.body)).toMatchObject({ code: -32602, message: expect.stringContaining(`[${RULE}]`) });

    const request = toolBeforeRequest('strict.lifecycle:b', CAPABILITIES) as unknown as JsonObject;
    const observation: JsonObject = { jsonrpc: '2.0', id: 'obs-1', method: 'hooks/observe', params: { protocolVersion: 'draft', event: (request.params as JsonObject).event! } };
    const observed = receiver.observe(observation);
    expect(observed).toMatchObject({ ok: false, status: 400 });
    expect(observed.ok ? '' : observed.reason).toMatch(/AHP-RPC-002|observe-notification schema/);
    expect(appended).toEqual([]);
  });
});

describe('strict reference clients', () => {
  test('the lifecycle client transport never transmits a request whose ids differ; valid ones pass through', async () => {
    const sent: JsonObject[] = [];
    const inner: EventTransport = {
      send: async (message): Promise<Received> => {
        sent.push(message);
        return { ok: false, error: 'not connected' };
      },
      observe: async (message): Promise<Delivery> => {
        sent.push(message);
        return { ok: true };
      },
      close: async () => {},
    };
    const strict = new StrictEvents(inner);
    expect(() => strict.send(mismatched('strict.client:a'))).toThrow(RowFailure);
    expect(() => strict.send(mismatched('strict.client:a'))).toThrow(`[${RULE}] params.event.id`);
    expect(sent).toEqual([]);
    const valid = toolBeforeRequest('strict.client:b', CAPABILITIES) as unknown as JsonObject;
    await strict.send(valid);
    expect(sent).toEqual([valid]);
  });

  test('the catalogue SDK path refuses a notification carrying a JSON-RPC id', () => {
    const event = ((toolBeforeRequest('strict.catalogue', CAPABILITIES) as unknown as JsonObject).params as JsonObject).event!;
    const refusal = new SdkObserver(validators).refusal({ jsonrpc: '2.0', id: 7, method: 'hooks/observe', params: { protocolVersion: 'draft', event } });
    expect(refusal).toContain('[AHP-RPC-002] id');
  });

  test('end to end: the lifecycle client fails the mismatched row at its send, names the rule, and the receiver never sees it', async () => {
    const bad = heldPublishRow('strict-mismatch');
    bad.requests.a!.params.event.id = 'strict-mismatch:event-a';
    bad.expected.observations = bad.expected.observations.map((o) => ({ ...o, eventId: 'strict-mismatch:event-a' }));
    const good = heldPublishRow('strict-valid');
    const scenarioFile = write('rows.json', { version: 1, scenarios: [bad, good] });
    const run = await runReferenceOverStdio({ suite: 'lifecycle', write, file, scenarioFile, contentSources: [], runMs: 60_000 });
    const results = (run.report as { results: Array<{ id: string; status: string; error?: string }> }).results;
    expect(results.find((r) => r.id === 'strict-mismatch')).toMatchObject({
      status: 'failed',
      error: expect.stringContaining(`steps[0] send: refusing to send a request that breaks the spec (not sent): [${RULE}]`),
    });
    expect(results.find((r) => r.id === 'strict-valid')?.status ?? 'passed').toBe('passed');
    const entries = (run.receipts as { entries: JsonObject[] }).entries;
    expect(entries.filter((e) => e.kind === 'received').map((e) => e.id)).toEqual(['strict-valid:a']);
  });

  test('end to end: the core client refuses a request whose source carries credentials, and never sends it', async () => {
    const leaky = toolBeforeRequest('strict.leaky-source', CAPABILITIES);
    leaky.params.event.source = 'https://agent:TEST-ONLY-password@host.example/runtime';
    const rows: Scenario[] = [
      { id: 'strict.leaky-source', request: leaky, response: okResponse('strict.leaky-source', []), expected: { decision: 'allow' } },
      { id: 'strict.fine', request: toolBeforeRequest('strict.fine', CAPABILITIES), response: okResponse('strict.fine', []), expected: { decision: 'allow' } },
    ];
    const scenarioFile = write('core-rows.json', { version: 1, scenarios: rows });
    const serverConfig = write('server.json', { transport: 'stdio', readinessFile: file('ready.json'), scenarioFile, auth: { mode: 'none' } });
    const reportFile = file('report.json');
    const clientConfig = write('client.json', {
      transport: 'stdio',
      serverCommand: CORE_ADAPTER.server,
      serverCwd: REFERENCE_DIR,
      serverConfig,
      scenarioFile,
      reportFile,
      auth: { mode: 'none' },
    });
    const client = await launchReference(CORE_ADAPTER.client, clientConfig, { timeoutMs: 60_000 });
    expect(client.exitCode, client.stderr).toBe(1);
    const results = (JSON.parse(readFileSync(reportFile, 'utf8')) as { results: Array<{ id: string; status: string; error?: string }> }).results;
    expect(results[0]).toMatchObject({ id: 'strict.leaky-source', status: 'failed', error: expect.stringContaining('(not sent): [events.md#source-not-secret] params.event.source') });
    expect(results[0]!.error).not.toContain('TEST-ONLY-password');
    expect(results[1]).toMatchObject({ id: 'strict.fine', status: 'passed' });
  });
});
