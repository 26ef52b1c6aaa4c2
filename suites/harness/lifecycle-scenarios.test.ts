// The lifecycle scenario loader: clean files load (ours and both of the protocol's), and every broken
// file is refused with a LifecycleScenarioFileError that names the file, the JSON path and what was
// expected — format problems from the closed schema and the cross-field rules alike.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import {
  LifecycleScenarioFileError,
  checkLifecycleScenarioFile,
  loadLifecycleScenarioFile,
  loadLifecycleScenarioFileSync,
  parseLifecycleScenarioFile,
} from '../../harness/families/lifecycle/load-lifecycle-scenarios.ts';
import { LIFECYCLE_SCENARIO_FILE_SCHEMA_URL, lintLifecycleScenarioFile } from '../../harness/families/lifecycle/lint-lifecycle-scenario-file.ts';
import { LIFECYCLE_STEP_OPS, isChainScenario } from '../../harness/lifecycle-adapters/scenario-types.ts';
import { canonicalInteropCandidate, canonicalInteropFile } from '../../harness/protocol/canonical-interop.ts';
import { ScenarioFileError, selectScenarios, serializeScenarioFile } from '../../harness/scenarios/load-scenarios.ts';
import { sampleLifecycleFile } from './support/lifecycle-rows.ts';

const FILE = '/fixtures/lifecycle.json';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ahp-lifecycle-scenarios-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Doc = Record<string, unknown>;
// Rows are edited freely as plain JSON here, to break them in every way a file on disk can be broken.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Row = Record<string, any>;

function sample(): Doc {
  return JSON.parse(JSON.stringify(sampleLifecycleFile())) as Doc;
}

function refusal(value: unknown): LifecycleScenarioFileError {
  try {
    checkLifecycleScenarioFile(value, FILE);
  } catch (error) {
    expect(error).toBeInstanceOf(LifecycleScenarioFileError);
    return error as LifecycleScenarioFileError;
  }
  throw new Error('expected a LifecycleScenarioFileError, but the file was accepted');
}

describe('clean files', () => {
  test('our sample file loads as written, and async, sync and text loading agree', async () => {
    const file = path.join(tmp, 'sample.json');
    writeFileSync(file, serializeScenarioFile(sampleLifecycleFile()));
    const loaded = await loadLifecycleScenarioFile(file);
    expect(loaded).toEqual(sample());
    expect(loadLifecycleScenarioFileSync(file)).toEqual(loaded);
    expect(parseLifecycleScenarioFile(readFileSync(file, 'utf8'), file)).toEqual(loaded);
    expect(lintLifecycleScenarioFile(loaded)).toEqual([]);
  });

  test('selectScenarios works on lifecycle files (file order, chain rows too)', () => {
    const selected = selectScenarios(sampleLifecycleFile(), ['chain-deny', 'held-publish']);
    expect(selected.scenarios.map((s) => s.id)).toEqual(['held-publish', 'chain-deny']);
    expect(selected.scenarios.map(isChainScenario)).toEqual([false, true]);
  });

  test('the format schema lists exactly the step ops of the type model', () => {
    const schema = JSON.parse(readFileSync(LIFECYCLE_SCENARIO_FILE_SCHEMA_URL, 'utf8')) as { $defs: Record<string, { oneOf?: Array<{ $ref: string }> }> };
    const branches = schema.$defs.step!.oneOf!.map((branch) => {
      const def = schema.$defs[branch.$ref.replace('#/$defs/', '')] as { properties: { op: { const: string } } };
      return def.properties.op.const;
    });
    expect(branches).toEqual([...LIFECYCLE_STEP_OPS]);
  });

  for (const name of ['lifecycle-scenarios.json', 'observation-chain-scenarios.json']) {
    const file = canonicalInteropFile(name);
    const title = file ? `the canonical ${name} loads cleanly` : `the canonical ${name} loads cleanly (SKIPPED: not found in ${canonicalInteropCandidate()})`;
    test.skipIf(file === undefined)(title, () => {
      const loaded = loadLifecycleScenarioFileSync(file as string);
      const chains = loaded.scenarios.filter(isChainScenario).length;
      if (name === 'lifecycle-scenarios.json') expect([loaded.scenarios.length, chains]).toEqual([30, 9]);
      else expect([loaded.scenarios.length, chains]).toEqual([9, 9]);
    });
  }
});

describe('reading and parsing', () => {
  test('an unreadable file names the file', async () => {
    const missing = path.join(tmp, 'missing.json');
    await expect(loadLifecycleScenarioFile(missing)).rejects.toThrow(`${missing}: cannot read scenario file (ENOENT`);
    expect(() => loadLifecycleScenarioFileSync(missing)).toThrow(ScenarioFileError);
  });

  test('invalid JSON names the file, line and column', () => {
    expect(() => parseLifecycleScenarioFile('{"version": 1,\n "scenarios": [}', FILE)).toThrow(
      `${FILE}: invalid JSON at line 2, column 16 (offset 30)`,
    );
  });

  test('the error is a ScenarioFileError carrying the file, the first path and every problem', () => {
    const doc = sample();
    const rows = doc.scenarios as Row[];
    rows[0]!.steps[0].key = 'zz';
    rows[1]!.expected.uploadStatuses.pop();
    const error = refusal(doc);
    expect(error).toBeInstanceOf(ScenarioFileError);
    expect(error.name).toBe('LifecycleScenarioFileError');
    expect(error.file).toBe(FILE);
    expect(error.path).toBe('scenarios[0].steps[0].key');
    expect(error.problems.map((p) => p.path)).toEqual([
      'scenarios[0].steps[0].key',
      'scenarios[0].steps[3].slot',
      'scenarios[1].expected.uploadStatuses',
    ]);
    expect(error.message).toMatch(/^\/fixtures\/lifecycle\.json: scenarios\[0\]\.steps\[0\]\.key: expected a key of requests \("a"\), got "zz"\n\(2 more problems:\n  scenarios\[0\]\.steps\[3\]\.slot: /);
  });
});

describe('broken files: each names the JSON path and the expectation', () => {
  const rowsOf = (doc: Doc): Row[] => doc.scenarios as Row[];
  // [title, edit, JSON path of the first problem, expectation]
  const cases: Array<[string, (doc: Doc, rows: Row[]) => void, string, RegExp]> = [
    // the file
    ['scenarios not an array', (doc) => (doc.scenarios = 'x'), 'scenarios', /^expected an array of scenario rows, got "x"$/],
    ['version 2', (doc) => (doc.version = 2), 'version', /^expected the format version 1, got number 2$/],
    ['unknown top-level key', (doc) => (doc.generator = 'x'), 'generator', /^unknown key; expected only "version", "scenarios"/],
    ['a row that is not an object', (_d, rows) => ((rows as unknown[])[1] = 'row'), 'scenarios[1]', /^expected a scenario row object, got "row"$/],
    // rows
    ['id missing', (_d, rows) => delete rows[0]!.id, 'scenarios[0].id', /^expected a lowercase kebab\/dot scenario id, got nothing \(missing\)$/],
    ['id not kebab', (_d, rows) => (rows[0]!.id = 'Held_Publish'), 'scenarios[0].id', /^expected a lowercase kebab\/dot scenario id, got "Held_Publish" \(must match pattern/],
    ['duplicate ids', (_d, rows) => (rows[2]!.id = 'held-publish'), 'scenarios[2].id', /^expected a unique scenario id, but "held-publish" is also the id of scenarios\[0\]$/],
    ['unknown row key', (_d, rows) => (rows[0]!.barrier = 'b'), 'scenarios[0].barrier', /^unknown key; expected only "id", "description", "tags", "requests",/],
    ['requests missing', (_d, rows) => delete rows[0]!.requests, 'scenarios[0].requests', /^expected an object mapping request keys to hooks\/intercept requests, got nothing \(missing\)$/],
    ['a request without an id', (_d, rows) => delete rows[0]!.requests.a.id, 'scenarios[0].requests.a.id', /^expected a JSON-RPC request id \(a non-empty string or an integer\), got nothing \(missing\)$/],
    ['a request without an event', (_d, rows) => delete rows[0]!.requests.a.params.event, 'scenarios[0].requests.a.params.event', /^expected an event object with an id, got nothing \(missing\)$/],
    ['a request id used twice in the file', (_d, rows) => (rows[1]!.requests.a.id = 'held-publish:a'), 'scenarios[1].requests.a.id', /^expected a request id unique in the file, but "held-publish:a" is also the id of scenarios\[0\]\.requests\.a$/],
    ['a response that is not an object', (_d, rows) => (rows[0]!.responses.a = 'allow'), 'scenarios[0].responses.a', /^expected a response envelope object \(it may be deliberately invalid\), got "allow"$/],
    ['a response for no request', (_d, rows) => (rows[0]!.responses.b = rows[0]!.responses.a), 'scenarios[0].responses.b', /^expected a key of requests \("a"\), got "b"$/],
    ['an empty response sequence', (_d, rows) => (rows[4]!.responseSequences.a = []), 'scenarios[4].responseSequences.a', /^expected a non-empty array of response envelopes, one per attempt, got \[\] \(an empty array\)/],
    ['transports unknown', (_d, rows) => (rows[3]!.transports = ['grpc']), 'scenarios[3].transports[0]', /^expected a transport: "http" or "stdio", got "grpc"$/],
    ['transports empty', (_d, rows) => (rows[3]!.transports = []), 'scenarios[3].transports', /^expected a non-empty array of distinct transports/],
    ['inapplicableReason without transports', (_d, rows) => delete rows[3]!.transports, 'scenarios[3]', /^expected "transports" alongside "inapplicableReason", got nothing \(missing\)$/],
    ['tags repeated', (_d, rows) => (rows[0]!.tags = ['x', 'x']), 'scenarios[0].tags', /^expected an array of distinct non-empty tags, got an array \(must NOT have duplicate items/],
    // steps
    ['a step script without steps', (_d, rows) => (rows[0]!.steps = []), 'scenarios[0].steps', /^expected at least one step \(a row without `chain` is a step script\)/],
    ['an unknown op', (_d, rows) => (rows[0]!.steps[1].op = 'pause'), 'scenarios[0].steps[1].op', /^expected one of "send", "wait", "release", "receive", "cancel", "accept", "failOpen", "upload", "observe", "emit", got "pause"$/],
    ['a step without op', (_d, rows) => delete rows[0]!.steps[1].op, 'scenarios[0].steps[1].op', /^expected an op: "send", .* or "emit", got nothing \(missing\)$/],
    ['a field another op has', (_d, rows) => (rows[0]!.steps[2].slot = 'a'), 'scenarios[0].steps[2].slot', /^unknown key; expected only "op", "key"/],
    ['wait without count', (_d, rows) => delete rows[0]!.steps[1].count, 'scenarios[0].steps[1].count', /^expected a positive integer attempt count, got nothing \(missing\)$/],
    ['wait count 0', (_d, rows) => (rows[0]!.steps[1].count = 0), 'scenarios[0].steps[1].count', /^expected a positive integer attempt count, got number 0 \(must be >= 1\)$/],
    ['bypassSDK not a boolean', (_d, rows) => (rows[0]!.steps[0].bypassSDK = 'yes'), 'scenarios[0].steps[0].bypassSDK', /^expected a boolean, got "yes"$/],
    ['a key naming no request', (_d, rows) => (rows[0]!.steps[4].key = 'b'), 'scenarios[0].steps[4].key', /^expected a key of requests \("a"\), got "b"$/],
    ['a key that is only an Object.prototype member', (_d, rows) => (rows[0]!.steps[4].key = 'constructor'), 'scenarios[0].steps[4].key', /^expected a key of requests \("a"\), got "constructor"$/],
    ['a slot sent twice', (_d, rows) => rows[3]!.steps.splice(2, 0, { op: 'send', key: 'a', slot: 'b' }), 'scenarios[3].steps[2].slot', /^expected a slot name unique in the row, but "b" is already the slot of scenarios\[3\]\.steps\[1\]$/],
    ['a receive before its send', (_d, rows) => rows[0]!.steps.splice(0, 0, { op: 'receive', slot: 'a' }), 'scenarios[0].steps[0].slot', /^expected the slot of an earlier send step \(sent so far: none\), got "a"$/],
    ['a send with no scripted reply', (_d, rows) => delete rows[0]!.responses.a, 'scenarios[0].steps[0].key', /^expected a request with a scripted reply, but neither responses nor responseSequences has "a"$/],
    ['emit on a row that also runs over HTTP', (_d, rows) => delete rows[2]!.transports, 'scenarios[2].transports', /^expected \["stdio"\]: emit \(scenarios\[2\]\.steps\[2\]\) writes unsolicited stdio frames, got nothing \(missing\)$/],
    ['emit response without an id', (_d, rows) => delete rows[2]!.steps[2].response.id, 'scenarios[2].steps[2].response.id', /^expected a JSON-RPC request id/],
    // uploads
    ['upload with both body fields', (_d, rows) => (rows[1]!.steps[0].body = 'x'), 'scenarios[1].steps[0]', /^expected exactly one of "bodyBase64" or "body"$/],
    ['upload with no body field', (_d, rows) => delete rows[1]!.steps[0].bodyBase64, 'scenarios[1].steps[0]', /^expected exactly one of "bodyBase64" or "body"$/],
    ['upload base64 without padding', (_d, rows) => (rows[1]!.steps[0].bodyBase64 = 'AAEC/v8'), 'scenarios[1].steps[0].bodyBase64', /^expected the bytes as strict, padded base64, got "AAEC\/v8" \(must match pattern/],
    ['upload base64 with stray bits', (_d, rows) => (rows[1]!.steps[0].bodyBase64 = 'AAEC/v9='), 'scenarios[1].steps[0].bodyBase64', /^expected canonical base64 \(decoding and re-encoding gives the same text\)$/],
    ['upload sha256 in uppercase', (_d, rows) => (rows[1]!.steps[0].sha256 = String(rows[1]!.steps[0].sha256).toUpperCase()), 'scenarios[1].steps[0].sha256', /^expected the declared SHA-256 \(64 lowercase hex digits\), got /],
    ['upload size negative', (_d, rows) => (rows[1]!.steps[0].size = -1), 'scenarios[1].steps[0].size', /^expected the declared byte count \(a non-negative integer\), got number -1/],
    ['upload config with another auth type', (_d, rows) => (rows[1]!.steps[2].upload.auth.type = 'basic'), 'scenarios[1].steps[2].upload.auth.type', /^expected "bearer", got "basic"$/],
    ['upload config with an unknown key', (_d, rows) => (rows[1]!.steps[2].upload.retries = 3), 'scenarios[1].steps[2].upload.retries', /^unknown key; expected only "auth", "timeoutMs", "maxBytes", "endpoint"/],
    ['one upload status too few', (_d, rows) => rows[1]!.expected.uploadStatuses.pop(), 'scenarios[1].expected.uploadStatuses', /^expected one status per upload step \(3\), got 2$/],
    ['a confirmed upload whose declared size is wrong', (_d, rows) => (rows[1]!.steps[0].size = 6), 'scenarios[1].steps[0]', /^fixture source integrity mismatch: alias "binary-alias" declares size 6/],
    // expected (step scripts)
    ['expected in the chain shape', (_d, rows) => (rows[0]!.expected = rows[4]!.expected), 'scenarios[0].expected.published', /^expected the published request ids \(an array of non-empty strings\), got nothing \(missing\)$/],
    ['expected with an unknown key', (_d, rows) => (rows[0]!.expected.views = []), 'scenarios[0].expected.views', /^unknown key; expected only "published", "cancelled", "ignored", "states", "observations", "uploadStatuses"/],
    ['a state decision out of the enum', (_d, rows) => (rows[0]!.expected.states['held-publish:a'].decision = 'maybe'), 'scenarios[0].expected.states["held-publish:a"].decision', /^expected a decision: "allow", "deny" or "ask", got "maybe"$/],
    ['executed as a number', (_d, rows) => (rows[0]!.expected.states['held-publish:a'].executed = 1), 'scenarios[0].expected.states["held-publish:a"].executed', /^expected a boolean, got number 1$/],
    ['a flow other than stop', (_d, rows) => (rows[0]!.expected.states['held-publish:a'].flow = 'continue'), 'scenarios[0].expected.states["held-publish:a"].flow', /^expected "stop", got "continue"$/],
    ['an upload status that is not HTTP', (_d, rows) => (rows[1]!.expected.uploadStatuses[0] = 42), 'scenarios[1].expected.uploadStatuses[0]', /^expected an HTTP status code, got number 42/],
    ['published names another row’s request', (_d, rows) => (rows[0]!.expected.published = ['uploads:a']), 'scenarios[0].expected.published[0]', /^expected the id of one of the row's requests \("held-publish:a"\), got "uploads:a"$/],
    ['a state for an unpublished request', (_d, rows) => (rows[3]!.expected.states['two-pending:a'] = rows[3]!.expected.states['two-pending:b']), 'scenarios[3].expected.states["two-pending:a"]', /^expected states only for published requests/],
    ['ignored names no slot', (_d, rows) => (rows[3]!.expected.ignored = ['c']), 'scenarios[3].expected.ignored[0]', /^expected a sent slot or "unsolicited:<id>" of an emit step \("a", "b"\), got "c"$/],
    ['one observation too many', (_d, rows) => rows[0]!.expected.observations.push(rows[0]!.expected.observations[0]), 'scenarios[0].expected.observations', /^expected one observation per observe step \(1\), got 2$/],
    ['an observation of another event', (_d, rows) => (rows[0]!.expected.observations[0].eventId = 'other'), 'scenarios[0].expected.observations[0].eventId', /^expected the event id of scenarios\[0\]\.steps\[5\] \("held-publish:a"\), got "other"$/],
    ['an observation of another subscription', (_d, rows) => (rows[0]!.expected.observations[0].subscription = 'body'), 'scenarios[0].expected.observations[0].subscription', /^expected the subscription of scenarios\[0\]\.steps\[5\] \("metadata"\), got "body"$/],
    ['an observation with the original input after a settled publish', (_d, rows) => (rows[0]!.expected.observations[0].input = { value: 'original' }), 'scenarios[0].expected.observations[0].input', /^expected the tool input scenarios\[0\]\.steps\[5\] sends \(the published state's input, else the request's\): \{"value":"settled"\}$/],
    // chains
    ['chain without chainProof', (_d, rows) => delete rows[4]!.chainProof, 'scenarios[4]', /^expected "chainProof" alongside "chain", got nothing \(missing\)$/],
    ['chainProof without chain', (_d, rows) => (rows[0]!.chainProof = rows[4]!.chainProof), 'scenarios[0]', /^expected "chain" alongside "chainProof", got nothing \(missing\)$/],
    ['a chain row with steps', (_d, rows) => (rows[4]!.steps = [{ op: 'release', key: 'a' }]), 'scenarios[4].steps', /^expected no steps \(a chain row runs its chain, not a step script\)/],
    ['a chain with the step-script expected', (_d, rows) => (rows[4]!.expected = rows[0]!.expected), 'scenarios[4].expected.called', /^expected the called subscription ids \(an array of non-empty strings\), got nothing \(missing\)$/],
    ['a subscription with an unknown mode', (_d, rows) => (rows[4]!.chain.subscriptions[1].mode = 'audit'), 'scenarios[4].chain.subscriptions[1].mode', /^expected a mode: "intercept" or "observe", got "audit"$/],
    ['a chain without holdObservers', (_d, rows) => delete rows[4]!.chain.holdObservers, 'scenarios[4].chain.holdObservers', /^expected a boolean, got nothing \(missing\)$/],
    ['a chain request not under "a"', (_d, rows) => { rows[4]!.requests = { b: rows[4]!.requests.a }; rows[4]!.responses = {}; rows[4]!.responseSequences = {}; }, 'scenarios[4].requests.a', /^expected the chain request under key "a", got nothing \(missing\)$/],
    ['a subscription id repeated', (_d, rows) => (rows[4]!.chain.subscriptions[2].id = 'chain-deny:b'), 'scenarios[4].chain.subscriptions[2].id', /^expected a unique subscription id, got "chain-deny:b" again$/],
    ['an observe subscription called', (_d, rows) => (rows[4]!.expected.called = ['chain-deny:audit']), 'scenarios[4].expected.called[0]', /^expected the called intercept subscriptions, but "chain-deny:audit": only intercept subscriptions are called$/],
    ['observations out of declaration order', (_d, rows) => rows[4]!.expected.observations.reverse(), 'scenarios[4].expected.observations[1]', /^expected the observing subscriptions in declaration order without repeats, got "chain-deny:b" out of order$/],
    ['a failure that was not called', (_d, rows) => (rows[4]!.expected.failures = ['chain-deny:b']), 'scenarios[4].expected.failures[0]', /^expected the called subscriptions that failed, but "chain-deny:b": it is not in expected.called$/],
    ['an unknown subscription observed', (_d, rows) => (rows[4]!.expected.observations = ['nobody']), 'scenarios[4].expected.observations[0]', /^expected the observing subscriptions, but "nobody": it is not a subscription of the chain$/],
    ['fewer sequence responses than calls', (_d, rows) => (rows[4]!.expected.called = ['chain-deny:a', 'chain-deny:b']), 'scenarios[4].responseSequences.a', /^expected one response per call \(at least 2\), got 1$/],
    ['a proof observation missing', (_d, rows) => rows[4]!.chainProof.observations.pop(), 'scenarios[4].chainProof.observations', /^expected one notification per expected observation \(2\), got 1$/],
    ['a proof request with another id', (_d, rows) => (rows[4]!.chainProof.requests[0].id = 'other'), 'scenarios[4].chainProof.requests[0].id', /^expected the chain request id "chain-deny", got "other"$/],
    ['a proof observation of another event', (_d, rows) => (rows[4]!.chainProof.observations[0].params.event.id = 'other'), 'scenarios[4].chainProof.observations[0]', /^expected a notification for the chain event "chain-deny", got event id "other"$/],
  ];

  test.each(cases)('%s', (_title, edit, jsonPath, expectation) => {
    const doc = sample();
    edit(doc, rowsOf(doc));
    const error = refusal(doc);
    expect(error.file).toBe(FILE);
    expect(error.path).toBe(jsonPath);
    const first = error.problems[0]!;
    expect(first.problem).toMatch(expectation);
    expect(error.message.startsWith(`${FILE}: ${jsonPath}: ${first.problem}`)).toBe(true);
  });

  test('a top level that is not an object', () => {
    const error = refusal([]);
    expect(error.path).toBe('');
    expect(error.message).toBe(`${FILE}: expected a JSON object {version: 1, scenarios: [...]} at the top level, got [] (an empty array)`);
  });

  test('every case above breaks a clean file (the sample itself is clean)', () => {
    expect(lintLifecycleScenarioFile(sample())).toEqual([]);
  });
});
