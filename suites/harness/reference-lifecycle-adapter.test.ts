// End-to-end tests of the reference adapter's lifecycle server and client (adapters/reference,
// `lifecycleServer` / `lifecycleClient`) against the protocol's canonical lifecycle fixture, with
// real processes:
//
// - HTTP, in every auth mode: the test starts the receiver, runs the client on the rows that apply
//   to HTTP (as the protocol's runner would: the uploadEndpoint merged into upload steps that carry
//   their own settings), reads the receipts from the control endpoint, then shuts the receiver down.
// - stdio: the client spawns the receiver itself, forwards its receipts in the report and reaps it.
//
// Each group asserts: every row passed with `actual` deep-equal to the row's `expected`; exit 0;
// a received/replied pair in order for every send, each received message the exact (ref-rewritten)
// request; upload receipts with the declared size and digest, the receiver's status and, on 201, a
// receiver ref (never the alias, changed bytes never sharing one); observed entries equal to the
// §7.6 notifications with receiver refs (chains: their proof, as a multiset); no process survives.
// Skipped, with the reason, when the canonical fixture is not beside the checkout.

import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { writePrivateJson } from '../../harness/adapters/private-json.ts';
import type { RunTrust } from '../../harness/auth/run-trust.ts';
import type { AuthMode, Transport } from '../../harness/config/define-config.ts';
import { splitByTransport } from '../../harness/families/lifecycle/applicability.ts';
import { deriveContentSources } from '../../harness/lifecycle-adapters/content-sources.ts';
import { sha256Hex } from '../../harness/protocol/sha256-hex.ts';
import { loadLifecycleScenarioFileSync } from '../../harness/families/lifecycle/load-lifecycle-scenarios.ts';
import { observeNotificationFor, withBoundRefs } from '../../harness/families/lifecycle/observe-message.ts';
import type { ChainScenario, LifecycleScenario, StepScenario } from '../../harness/lifecycle-adapters/scenario-types.ts';
import { canonicalInteropCandidate, canonicalInteropFile } from '../../harness/protocol/canonical-interop.ts';
import { cloneJson, type JsonObject } from '../../harness/protocol/json.ts';
import { heldPublishRow, sampleLifecycleFile } from './support/lifecycle-rows.ts';
import { UPLOAD_TOKEN, useBadConfigs } from './support/bad-configs.ts';
import { pidGone, survivorsAfter } from './support/recorded-pids.ts';
import { runReferenceOverHttp, runReferenceOverStdio, type ReferencePairRun } from './support/reference-runs.ts';
import { controlCall, describeTransportGroups, killLaunched, launchReference, REFERENCE_ADAPTER, STARTUP_MS, waitReadiness, type Readiness } from './support/reference-processes.ts';

const CANONICAL = canonicalInteropFile('lifecycle-scenarios.json');
const HTTP_MODES = ['none', 'bearer', 'oauth', 'workload', 'mtls'] as const satisfies readonly AuthMode[];
const RUN_MS = 90_000;

// ---- processes and files ----------------------------------------------------------------------------

let workDir = '';
let counter = 0;

function writeConfig(name: string, value: unknown): string {
  const file = path.join(workDir, `${++counter}-${name}`);
  writePrivateJson(file, value);
  return file;
}

// ---- a run: one client over one transport and auth mode ------------------------------------------

interface ReportShape {
  language: string;
  results: Array<{ id: string; status: string; actual: unknown; error?: string }>;
  receipts?: { entries: JsonObject[] };
}

interface Run {
  rows: LifecycleScenario[];
  exitCode: number | undefined;
  clientStderr: string;
  clientStdout: string;
  report: ReportShape;
  entries: JsonObject[];
  /** Every process the run started (server or spawned child), to check none survives. */
  pids: Map<number, string>;
}

function scenarioFile(name: string, rows: LifecycleScenario[]): string {
  return writeConfig(name, { version: 1, scenarios: rows });
}

/** What the protocol's runner does over HTTP (§2): an upload step with its own settings gets the endpoint. */
function withUploadEndpoint(rows: LifecycleScenario[], uploadEndpoint: string): LifecycleScenario[] {
  return rows.map((row) => {
    if (row.chain !== undefined) return row;
    const steps = row.steps.map((step) => (step.op === 'upload' && step.upload !== undefined ? { ...step, upload: { ...step.upload, endpoint: uploadEndpoint } } : step));
    return { ...row, steps };
  });
}

/** The run's files: a fresh path, and a JSON file written under a name unique to this call. */
const runFiles = { file: (name: string) => path.join(workDir, `${++counter}-${name}`), write: writeConfig };

function asRun(rows: LifecycleScenario[], run: ReferencePairRun): Run {
  const report = run.report as ReportShape;
  const entries = run.receipts === undefined ? [] : (run.receipts as { entries: JsonObject[] }).entries;
  return { rows, exitCode: run.exitCode, clientStderr: run.clientStderr, clientStdout: run.clientStdout, report, entries, pids: run.pids };
}

async function runHttp(all: LifecycleScenario[], trust: RunTrust, mode: AuthMode): Promise<Run> {
  const rows = splitByTransport(all, 'http').applicable;
  const run = await runReferenceOverHttp({
    ...runFiles,
    suite: 'lifecycle',
    scenarioFile: scenarioFile(`rows-http-${mode}.json`, rows),
    clientScenarioFile: (uploadEndpoint) => scenarioFile(`client-rows-http-${mode}.json`, withUploadEndpoint(rows, uploadEndpoint)),
    contentSources: deriveContentSources(rows),
    runMs: RUN_MS,
    trust,
    mode,
  });
  return asRun(rows, run);
}

async function runStdio(all: LifecycleScenario[]): Promise<Run> {
  const rows = splitByTransport(all, 'stdio').applicable;
  const run = await runReferenceOverStdio({ ...runFiles, suite: 'lifecycle', scenarioFile: scenarioFile('rows-stdio.json', rows), contentSources: deriveContentSources(rows), runMs: RUN_MS });
  return asRun(rows, run);
}

// ---- what the receipts must show --------------------------------------------------------------------

const stepRows = (run: Run): StepScenario[] => run.rows.filter((row): row is StepScenario => row.chain === undefined);
const chainRows = (run: Run): ChainScenario[] => run.rows.filter((row): row is ChainScenario => row.chain !== undefined);

/** Alias → receiver ref from the 201 upload receipts, paired in order with the upload steps. */
function receiverBindings(run: Run): Map<string, string> {
  const uploads = run.entries.filter((e) => e.kind === 'upload');
  const steps = stepRows(run).flatMap((row) => row.steps.filter((s) => s.op === 'upload'));
  const bindings = new Map<string, string>();
  steps.forEach((step, i) => {
    const entry = uploads[i];
    if (entry?.status === 201 && typeof entry.ref === 'string') bindings.set(step.ref, entry.ref);
  });
  return bindings;
}

function entriesOf(run: Run, kind: string, ids: ReadonlySet<string>): JsonObject[] {
  return run.entries.filter((e) => e.kind === kind && ids.has(String(kind === 'observed' ? e.eventId : e.id)));
}

function checkRun(run: () => Run, transport: Transport): void {
  test('the client exits 0 with a TypeScript report of every applicable row and nothing on stdout', () => {
    const { report, exitCode, clientStderr, clientStdout, rows } = run();
    expect(exitCode, clientStderr).toBe(0);
    expect(clientStdout).toBe('');
    expect(report.language).toBe('typescript');
    expect(report.results.map((r) => r.id)).toEqual(rows.map((r) => r.id));
    if (transport === 'stdio') expect(report.receipts).toBeDefined();
  });

  test('every row passed with actual deep-equal to expected', () => {
    const { report, rows } = run();
    for (const row of rows) {
      const result = report.results.find((r) => r.id === row.id);
      expect(result, row.id).toBeDefined();
      expect({ id: row.id, status: result!.status, error: result!.error }).toEqual({ id: row.id, status: 'passed', error: undefined });
      expect(result!.actual, row.id).toEqual(row.expected);
    }
  });

  test('every send has a received and a replied entry, in order, and each received message is the exact request', () => {
    const current = run();
    const bindings = receiverBindings(current);
    for (const row of stepRows(current)) {
      const ids = new Set(Object.values(row.requests).map((r) => String(r.id)));
      const sends = row.steps.flatMap((s) => (s.op === 'send' ? [String(row.requests[s.key]!.id)] : []));
      const received = entriesOf(current, 'received', ids);
      expect(received.map((e) => e.id), `${row.id}: received`).toEqual(sends);
      expect(entriesOf(current, 'replied', ids).map((e) => e.id).sort(), `${row.id}: replied`).toEqual([...sends].sort());
      for (const id of ids) {
        const receivedAt = current.entries.flatMap((e, i) => (e.kind === 'received' && e.id === id ? [i] : []));
        const repliedAt = current.entries.flatMap((e, i) => (e.kind === 'replied' && e.id === id ? [i] : []));
        receivedAt.forEach((at, k) => expect(at, `${row.id}: reply ${k} of ${id} before its receipt`).toBeLessThan(repliedAt[k]!));
      }
      for (const entry of received) {
        const request = Object.values(row.requests).find((r) => r.id === entry.id)!;
        const wire = { ...request, params: { ...request.params, event: withBoundRefs(request.params.event, bindings) } };
        expect(entry.message, `${row.id}: received message`).toEqual(wire);
      }
    }
    for (const row of chainRows(current)) {
      const id = String(row.requests.a!.id);
      const received = entriesOf(current, 'received', new Set([id]));
      expect(received.length, `${row.id}: one receipt per call`).toBe(row.chainProof.requests.length);
      expect(entriesOf(current, 'replied', new Set([id])).length, `${row.id}: one reply per call`).toBe(received.length);
      received.forEach((entry, k) => {
        // The verifier recomputes params.state.permission; everything else is the proof's request.
        const sent = cloneJson(entry.message as JsonObject) as { params: { state?: { permission?: unknown } } };
        const proof = cloneJson(row.chainProof.requests[k]!) as unknown as { params: { state?: { permission?: unknown } } };
        delete sent.params.state?.permission;
        delete proof.params.state?.permission;
        expect(sent, `${row.id}: call ${k}`).toEqual(proof);
      });
    }
  });

  test('upload receipts: declared size and digest, the expected status, and a receiver ref on every 201', () => {
    const current = run();
    const uploads = current.entries.filter((e) => e.kind === 'upload');
    const steps = stepRows(current).flatMap((row) => {
      const statuses = row.expected.uploadStatuses;
      return row.steps.filter((s) => s.op === 'upload').map((step, i) => ({ step, status: statuses[i] }));
    });
    expect(uploads.length).toBe(steps.length);
    expect(steps.length).toBeGreaterThan(0);
    const digestOfRef = new Map<string, string>();
    steps.forEach(({ step, status }, i) => {
      const entry = uploads[i]!;
      expect({ status: entry.status, size: entry.size, sha256: entry.sha256 }, `upload ${step.ref}`).toEqual({ status, size: step.size, sha256: step.sha256 });
      if (status !== 201) {
        expect(entry.ref, `upload ${step.ref}`).toBeUndefined();
        return;
      }
      expect(typeof entry.ref === 'string' && entry.ref !== '' && entry.ref !== step.ref, `upload ${step.ref}: receiver-assigned ref`).toBe(true);
      const known = digestOfRef.get(entry.ref as string);
      if (known !== undefined) expect(known, `ref ${String(entry.ref)} reused for changed bytes`).toBe(step.sha256);
      digestOfRef.set(entry.ref as string, step.sha256);
    });
  });

  test('observed entries are exactly the settled notifications, with receiver refs', () => {
    const current = run();
    const bindings = receiverBindings(current);
    const rows = stepRows(current);
    const stepEvents = new Set(rows.flatMap((row) => Object.values(row.requests).map((r) => r.params.event.id)));
    const expected = rows.flatMap((row) =>
      row.steps.flatMap((step) => {
        if (step.op !== 'observe') return [];
        const message = observeNotificationFor(row, step, bindings);
        return [{ kind: 'observed', eventId: message.params.event.id, event: message.params.event, message }];
      }),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(entriesOf(current, 'observed', stepEvents)).toEqual(expected);
    for (const row of chainRows(current)) {
      const observed = entriesOf(current, 'observed', new Set([row.requests.a!.params.event.id]));
      const sortKey = (value: unknown): string => JSON.stringify(value);
      expect(observed.map((e) => sortKey(e.message)).sort(), `${row.id}: observations`).toEqual(row.chainProof.observations.map(sortKey).sort());
      for (const entry of observed) expect(entry.event, `${row.id}: receipt event`).toEqual((entry.message as { params: { event: unknown } }).params.event);
    }
  });

  test('no process survives the run', async () => {
    expect(await survivorsAfter(run().pids, 5_000)).toEqual([]);
  });

  if (transport === 'stdio') {
    test("the report carries the child receiver's receipts, and the child is gone", () => {
      const current = run();
      expect(current.entries.length).toBeGreaterThan(0);
      for (const pid of current.pids.keys()) expect(pidGone(pid), `pid ${pid}`).toBe(true);
    });
  }
}

// ---- the groups -------------------------------------------------------------------------------------

/** One run per HTTP auth mode in `modes` and one over stdio, each checked by checkRun. */
function runGroups(rows: () => LifecycleScenario[], modes: readonly AuthMode[]): void {
  describeTransportGroups<Run>({
    tmpPrefix: 'ahp-reference-lifecycle-',
    useWorkDir: (dir) => (workDir = dir),
    modes,
    runHttp: (trust, mode) => runHttp(rows(), trust, mode),
    runStdio: () => runStdio(rows()),
    check: checkRun,
    runMs: RUN_MS,
  });
}

const fixtureTitle = CANONICAL
  ? 'reference lifecycle adapter on the canonical lifecycle fixture'
  : `reference lifecycle adapter on the canonical lifecycle fixture (SKIPPED: no canonical fixture at ${path.join(canonicalInteropCandidate(), 'lifecycle-scenarios.json')})`;

describe.skipIf(CANONICAL === undefined)(fixtureTitle, () => {
  const rows = CANONICAL ? loadLifecycleScenarioFileSync(CANONICAL).scenarios : [];
  runGroups(() => rows, HTTP_MODES);
});

// Our own small rows (one of each kind), so the adapter is exercised without the canonical file too.
describe('reference lifecycle adapter on the self-test sample rows', () => {
  runGroups(() => sampleLifecycleFile().scenarios, ['none']);
});

// ---- config errors --------------------------------------------------------------------------------

describe('bad lifecycle configs fail with exit 2 and a message naming the field', () => {
  const { server, client, expectRefused } = useBadConfigs('ahp-reference-lifecycle-config-', 'lifecycle', (kit) => kit.write('rows.json', { version: 1, scenarios: [] }));

  const cases = [
    { name: 'server: unknown suite', side: 'lifecycleServer', config: () => server({ suite: 'nonsense' }), message: /"suite" must be "lifecycle" or "catalogue" \(or absent\); "nonsense" is an unknown suite/ },
    { name: 'server: a suite of another family', side: 'lifecycleServer', config: () => server({ suite: 'elicitation' }), message: /"elicitation" is an unknown suite/ },
    { name: 'server: no upload credential', side: 'lifecycleServer', config: () => server({ uploadAuth: undefined }), message: /"uploadAuth" must be an object \{token\}/ },
    { name: 'client: unknown suite', side: 'lifecycleClient', config: () => client({ suite: 42 }), message: /"suite" must be "lifecycle" or "catalogue" \(or absent\)/ },
    { name: 'client: http without a control endpoint', side: 'lifecycleClient', config: () => client({ controlEndpoint: undefined }), message: /"controlEndpoint" must be an http\(s\) URL string for transport "http"/ },
    { name: 'client: upload without a token variable', side: 'lifecycleClient', config: () => client({ upload: { auth: { type: 'bearer' }, timeoutMs: 1, maxBytes: 1 } }), message: /"upload\.auth\.tokenEnv" must be a non-empty string/ },
    { name: 'client: upload auth that is not an object', side: 'lifecycleClient', config: () => client({ upload: { auth: 'none', timeoutMs: 1, maxBytes: 1 } }), message: /"upload\.auth" must be an object \{type: "bearer", tokenEnv\} \(or no "auth" key for anonymous uploads\)/ },
  ] as const;

  test.each(cases)('$name', async ({ side, config, message }) => {
    await expectRefused(side, config(), message);
  });
});

// ---- the HTTP receiver on the raw wire --------------------------------------------------------------

describe("the HTTP receiver answers the runner's raw probes (§9) and refuses bad framing", () => {
  let dir = '';
  let ready: Readiness;
  let server: ReturnType<typeof launchReference> | undefined;
  const row = heldPublishRow('probe-row');

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ahp-reference-lifecycle-probes-'));
    const readinessFile = path.join(dir, 'ready.json');
    const rowsFile = path.join(dir, 'rows.json');
    writePrivateJson(rowsFile, { version: 1, scenarios: [row] });
    const config = path.join(dir, 'server.json');
    writePrivateJson(config, { suite: 'lifecycle', transport: 'http', readinessFile, scenarioFile: rowsFile, auth: { mode: 'none' }, uploadAuth: { token: UPLOAD_TOKEN } });
    server = launchReference(REFERENCE_ADAPTER.lifecycleServer, config, { timeoutMs: 0 });
    ready = await waitReadiness(readinessFile, server);
  }, STARTUP_MS + 15_000); // past the start's own bound, so its clearer error is the one seen

  afterAll(async () => {
    await killLaunched();
    rmSync(dir, { recursive: true, force: true });
  });

  const RAW = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from([0x00, 0xff, 0xfe])]);
  const upload = (bytes: Buffer, headers: Record<string, string> = {}) =>
    fetch(ready.uploadEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', 'ahp-content-sha256': sha256Hex(bytes), authorization: `Bearer ${UPLOAD_TOKEN}`, ...headers },
      body: bytes,
    });
  const observe = (body: JsonObject) => {
    const event = { ...row.requests.a!.params.event, id: 'receiver-probe-event', items: [{ id: 'receiver-probe-item', kind: 'attachment', mediaType: 'application/octet-stream', selection: 'body', body }] };
    return fetch(`${ready.endpoint}/observe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft', event } }),
    });
  };
  const entries = async (): Promise<JsonObject[]> => ((await controlCall(ready.controlEndpoint, 'receipts')).body as { entries: JsonObject[] }).entries;

  test('the nine probes get 201/401/202/409/400 as the runner expects, and refs stay readable', async () => {
    const first = await upload(RAW);
    expect(first.status).toBe(201);
    const receipt = (await first.json()) as { ref: string; size: number; sha256: string };
    expect(Object.keys(receipt).sort()).toEqual(['ref', 'sha256', 'size']);
    expect({ size: receipt.size, sha256: receipt.sha256 }).toEqual({ size: 259, sha256: sha256Hex(RAW) });

    const changed = await upload(Buffer.from('changed bytes'));
    expect(changed.status).toBe(201);
    expect(((await changed.json()) as { ref: string }).ref).not.toBe(receipt.ref);
    const again = await upload(RAW);
    expect(((await again.json()) as { ref: string }).ref, 'identical bytes may share their ref').toBe(receipt.ref);

    expect((await upload(RAW, { authorization: '' })).status).toBe(401);
    expect((await upload(RAW, { authorization: 'Bearer wrong' })).status).toBe(401);

    const readable = await observe({ ref: receipt.ref });
    expect({ status: readable.status, body: await readable.text() }).toEqual({ status: 202, body: '' });
    expect((await observe({ ref: 'never-uploaded' })).status).toBe(409);
    expect((await observe({ ref: receipt.ref, size: receipt.size + 1, sha256: receipt.sha256 })).status).toBe(400);
    expect((await observe({ ref: receipt.ref, size: receipt.size, sha256: '0'.repeat(64) })).status).toBe(400);
    expect((await observe({ ref: receipt.ref })).status).toBe(202);

    const uploads = (await entries()).filter((e) => e.kind === 'upload');
    expect(uploads.map((e) => e.status)).toEqual([201, 201, 201, 401, 401]);
    expect(uploads[0]).toEqual({ kind: 'upload', status: 201, size: 259, sha256: sha256Hex(RAW), ref: receipt.ref });
    expect((await entries()).filter((e) => e.kind === 'observed')).toHaveLength(2);
  });

  test('a body shorter than its Content-Length, ended by a half-close, gets 400 and is recorded with the declared size', async () => {
    const url = new URL(ready.uploadEndpoint);
    const status = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/octet-stream\r\ncontent-length: 99\r\n` +
            `ahp-content-sha256: ${sha256Hex(Buffer.from('body'))}\r\nauthorization: Bearer ${UPLOAD_TOKEN}\r\n\r\nbody`,
        );
        socket.end();
      });
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      socket.on('close', () => resolve(text.split('\r\n')[0] ?? ''));
      socket.on('error', reject);
    });
    expect(status).toBe('HTTP/1.1 400 Bad Request');
    const last = (await entries()).filter((e) => e.kind === 'upload').at(-1);
    expect(last).toEqual({ kind: 'upload', status: 400, size: 99, sha256: sha256Hex(Buffer.from('body')) });
  });

  test('caller-chosen refs, other media types and encodings are framing errors', async () => {
    expect((await upload(Buffer.from('x'), { 'ahp-content-ref': 'mine' })).status).toBe(400);
    expect((await upload(Buffer.from('x'), { 'content-type': 'application/json' })).status).toBe(400);
    expect((await upload(Buffer.from('x'), { 'content-encoding': 'gzip' })).status).toBe(400);
  });

  test('an intercept naming unknown content or an unscripted id is refused and never recorded', async () => {
    const before = (await entries()).filter((e) => e.kind === 'received').length;
    const item = { id: 'i', kind: 'attachment', mediaType: 'application/octet-stream', selection: 'body', body: { ref: 'never-uploaded' } };
    const request = row.requests.a!;
    const unknownRef = { ...request, params: { ...request.params, event: { ...request.params.event, items: [item] } } };
    const unknownId = { ...request, id: 'not-scripted', params: { ...request.params, event: { ...request.params.event, id: 'not-scripted' } } };
    const post = (body: unknown) => fetch(`${ready.endpoint}/intercept`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post(unknownRef)).status).toBe(409);
    expect((await post(unknownId)).status).toBe(400);
    expect((await entries()).filter((e) => e.kind === 'received').length).toBe(before);
  });

  test('control: /emit exists only over stdio, /mark takes only milestone kinds, unknown routes are 404', async () => {
    expect((await controlCall(ready.controlEndpoint, 'emit', { response: { jsonrpc: '2.0', id: 'x', result: { protocolVersion: 'draft', effects: [] } } })).status).toBe(400);
    expect((await controlCall(ready.controlEndpoint, 'mark', { scenario: 's', kind: 'received', id: 'x' })).status).toBe(400);
    expect((await controlCall(ready.controlEndpoint, 'mark', { scenario: 's', kind: 'acquired', id: 'x' })).body).toEqual({ ok: true });
    expect((await entries()).at(-1)).toEqual({ kind: 'acquired', id: 'x', scenario: 's' });
    expect((await controlCall(ready.controlEndpoint, 'nope', {})).status).toBe(404);
  });
});
