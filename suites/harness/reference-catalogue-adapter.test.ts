// End-to-end tests of the reference adapter's lifecycle server and client in the catalogue suite
// (`suite: "catalogue"`, CATALOGUE-RULES §4–§5), with real processes, judged by the catalogue
// verifier (harness/families/catalogue/verify/verify-catalogue-run.ts) as the `catalogue` project will judge
// them:
//
// - HTTP: the test starts the receiver (scenario file `{version:1, scenarios}`, nothing merged:
//   catalogue rows carry no uploads), runs the client with the `upload` block and its `endpoint` as
//   the runner writes them, reads the receipts from the control endpoint, then shuts the receiver down.
// - stdio: the client spawns the receiver once, forwards its receipts in the report and reaps it.
//
// On our own catalogue fixture every HTTP auth mode runs; on the protocol's canonical file (skipped,
// with the reason, when it is not beside the checkout) `none` and `bearer`. Each group must verify
// with no failure at all, show one discovery and one delivery entry per sent message, and leave no
// process behind; the same evidence with one entry dropped must fail, so a pass is never vacuous.
// Then the failures: unknown suites and ops (exit 2, a message naming file and field), an
// unreachable receiver (a report that fails), and the HTTP receiver on the raw wire.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { writePrivateJson } from '../../harness/adapters/private-json.ts';
import type { RunTrust } from '../../harness/auth/run-trust.ts';
import { loadCatalogueScenarioFileSync } from '../../harness/families/catalogue/load-catalogue-scenarios.ts';
import { catalogueDiscoveryRequest } from '../../harness/families/catalogue/reference-manifest.ts';
import type { CatalogueScenario } from '../../harness/families/catalogue/scenario-types.ts';
import type { AuthMode, Transport } from '../../harness/config/define-config.ts';
import { CATALOGUE_SCENARIOS_FILE } from '../../harness/generate/fixture-target.ts';
import { canonicalInteropCandidate, canonicalInteropFile } from '../../harness/protocol/canonical-interop.ts';
import { cloneJson, type JsonObject } from '../../harness/protocol/json.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';
import type { Check } from '../../harness/lifecycle-adapters/findings.ts';
import { verifyCatalogueRun, type CatalogueVerification } from '../../harness/families/catalogue/verify/verify-catalogue-run.ts';
import { UPLOAD_TOKEN, useBadConfigs } from './support/bad-configs.ts';
import { survivorsAfter } from './support/recorded-pids.ts';
import { runReferenceOverHttp, runReferenceOverStdio, type ReferencePairRun } from './support/reference-runs.ts';
import { controlCall, describeTransportGroups, killLaunched, launchReference, PROJECT_ROOT, REFERENCE_ADAPTER, STARTUP_MS, waitReadiness, type Readiness } from './support/reference-processes.ts';

const OUR_ROWS = loadCatalogueScenarioFileSync(CATALOGUE_SCENARIOS_FILE).scenarios;
const CANONICAL = canonicalInteropFile('catalogue-scenarios.json');
const ALL_HTTP_MODES = ['none', 'bearer', 'oauth', 'workload', 'mtls'] as const satisfies readonly AuthMode[];
const RUN_MS = 90_000;
const validators = loadValidators(path.join(PROJECT_ROOT, 'schemas'));

let workDir = '';
let counter = 0;

function writeFile(name: string, value: unknown): string {
  const file = path.join(workDir, `${++counter}-${name}`);
  writePrivateJson(file, value);
  return file;
}

/** The scenario file the runner writes: the selected rows, the source's top-level `suite` dropped (§1). */
const scenarioFile = (name: string, rows: readonly CatalogueScenario[]): string => writeFile(name, { version: 1, scenarios: rows });

// ---- a run: one client over one transport and auth mode ------------------------------------------

interface CatalogueRun extends ReferencePairRun {
  transport: Transport;
  rows: readonly CatalogueScenario[];
}

/** The run's files: a fresh path, and a JSON file written under a name unique to this call. */
const runFiles = { file: (name: string) => path.join(workDir, `${++counter}-${name}`), write: writeFile };

async function runHttp(rows: readonly CatalogueScenario[], trust: RunTrust, mode: AuthMode): Promise<CatalogueRun> {
  // Nothing is merged into the client's rows: catalogue rows carry no uploads (§1).
  const file = scenarioFile(`rows-http-${mode}.json`, rows);
  const run = await runReferenceOverHttp({ ...runFiles, suite: 'catalogue', scenarioFile: file, clientScenarioFile: () => file, contentSources: [], runMs: RUN_MS, trust, mode });
  return { ...run, transport: 'http', rows };
}

async function runStdio(rows: readonly CatalogueScenario[]): Promise<CatalogueRun> {
  const run = await runReferenceOverStdio({ ...runFiles, suite: 'catalogue', scenarioFile: scenarioFile('rows-stdio.json', rows), contentSources: [], runMs: RUN_MS });
  return { ...run, transport: 'stdio', rows };
}

function verify(run: CatalogueRun, receipts: unknown = run.receipts): CatalogueVerification {
  return verifyCatalogueRun({
    rows: run.rows,
    transport: run.transport,
    report: run.report,
    receipts,
    exitCode: run.exitCode ?? null,
    clientLanguage: 'typescript',
    validators,
  });
}

/** Every failure as `where: label — message`, for a readable diff. */
function failuresOf(verification: CatalogueVerification): string[] {
  const line = (where: string, check: Check): string => `${where}: ${check.label} — ${check.message}`;
  return [...verification.runFailures.map((c) => line('run', c)), ...[...verification.rows].flatMap(([id, checks]) => checks.map((c) => line(id, c)))];
}

const entriesOf = (run: CatalogueRun): JsonObject[] => (run.receipts as { entries: JsonObject[] }).entries;

function checkRun(run: () => CatalogueRun): void {
  test('the client exits 0, writes one result per row with the discovery it got, and nothing on stdout', () => {
    const current = run();
    expect(current.exitCode, current.clientStderr).toBe(0);
    expect(current.clientStdout).toBe('');
    const report = current.report as { language: string; discovery: unknown; results: Array<{ id: string; actual: object }> };
    expect(report.language).toBe('typescript');
    expect(report.results.map((r) => r.id)).toEqual(current.rows.map((r) => r.id));
    for (const result of report.results) expect(Object.keys(result.actual).sort(), result.id).toEqual(['registrations', 'sent']);
    expect(report.discovery).toEqual(entriesOf(current).find((e) => e.kind === 'discovery')?.response);
  });

  test('the catalogue verifier finds no failure in the run or any row', () => {
    const verification = verify(run());
    expect(failuresOf(verification)).toEqual([]);
    expect([...verification.rows.keys()]).toEqual(run().rows.map((r) => r.id));
  });

  test('the receipt log is one discovery, then one observed or rejected entry per sent message, in step order', () => {
    const current = run();
    const entries = entriesOf(current);
    const deliveries = current.rows.flatMap((row) => row.expected.deliveries);
    expect(deliveries.length).toBeGreaterThan(0);
    expect(entries[0]).toEqual({ kind: 'discovery', request: catalogueDiscoveryRequest(), response: expect.any(Object) });
    expect(entries.slice(1).map((e) => e.kind)).toEqual(deliveries.map((d) => (d.accepted ? 'observed' : 'rejected')));
  });

  test('the same evidence with its last delivery entry dropped fails the verifier (the pass is not vacuous)', () => {
    const current = run();
    const entries = entriesOf(current);
    const broken = { entries: cloneJson(entries).slice(0, -1) };
    const labels = failuresOf(verify(current, broken));
    expect(labels.some((l) => l.includes('exact actual receiver delivery/rejection evidence mismatch')), labels.join('\n')).toBe(true);
  });

  test('no process survives the run', async () => {
    expect(await survivorsAfter(run().pids, 5_000)).toEqual([]);
  });
}

/** One run per HTTP mode in `modes` and one over stdio, each checked by checkRun. */
function runGroups(rows: () => readonly CatalogueScenario[], modes: readonly AuthMode[]): void {
  describeTransportGroups<CatalogueRun>({
    tmpPrefix: 'ahp-reference-catalogue-',
    useWorkDir: (dir) => (workDir = dir),
    modes,
    runHttp: (trust, mode) => runHttp(rows(), trust, mode),
    runStdio: () => runStdio(rows()),
    check: (run) => checkRun(run),
    runMs: RUN_MS,
  });
}

describe(`reference catalogue adapter on our catalogue fixture (${OUR_ROWS.length} rows)`, () => {
  runGroups(() => OUR_ROWS, ALL_HTTP_MODES);
});

const canonicalTitle = CANONICAL
  ? 'reference catalogue adapter on the canonical catalogue fixture'
  : `reference catalogue adapter on the canonical catalogue fixture (SKIPPED: no catalogue-scenarios.json in ${canonicalInteropCandidate()})`;

describe.skipIf(CANONICAL === undefined)(canonicalTitle, () => {
  const rows = CANONICAL ? loadCatalogueScenarioFileSync(CANONICAL).scenarios : [];
  runGroups(() => rows, ['none', 'bearer']);
});

// ---- failures -------------------------------------------------------------------------------------

describe('catalogue runs that must fail: unknown suites and ops, an unreachable receiver', () => {
  const { file, write, server, client, expectRefused } = useBadConfigs('ahp-reference-catalogue-bad-', 'catalogue', (kit) => kit.write('rows.json', { version: 1, scenarios: OUR_ROWS }));
  const unknownOpFile = (): string => {
    const rows = cloneJson(OUR_ROWS) as unknown as Array<{ steps: Array<{ op: string }> }>;
    rows[1]!.steps[0]!.op = 'teleport';
    return write('unknown-op.json', { version: 1, scenarios: rows });
  };

  const cases = [
    { name: 'server: unknown suite', side: 'lifecycleServer', config: () => server({ suite: 'catalog' }), message: /"suite" must be "lifecycle" or "catalogue" \(or absent\); "catalog" is an unknown suite/, scenarioError: false },
    { name: 'client: unknown suite', side: 'lifecycleClient', config: () => client({ suite: 'catalog' }), message: /"suite" must be "lifecycle" or "catalogue" \(or absent\); "catalog" is an unknown suite/, scenarioError: false },
    { name: 'server: a scenario step with an unknown op', side: 'lifecycleServer', config: () => server({ scenarioFile: unknownOpFile() }), message: /bad scenario file: .*unknown-op\.json: scenarios\[1\]\.steps\[0\]\.op: expected one of "notify", "rawNotify", "register", got "teleport"/, scenarioError: true },
    { name: 'client: a scenario step with an unknown op', side: 'lifecycleClient', config: () => client({ scenarioFile: unknownOpFile() }), message: /bad scenario file: .*unknown-op\.json: scenarios\[1\]\.steps\[0\]\.op: expected one of "notify", "rawNotify", "register", got "teleport"/, scenarioError: true },
    { name: 'client: a lifecycle scenario file in the catalogue suite', side: 'lifecycleClient', config: () => client({ scenarioFile: write('lifecycle.json', { version: 1, scenarios: [{ id: 'x', requests: {}, responses: {}, steps: [], expected: {} }] }) }), message: /bad scenario file: .*lifecycle\.json: scenarios\[0\]/, scenarioError: true },
  ] as const;

  test.each(cases)('$name: exit 2, the message names the file and the field, no report', async ({ side, config, message, scenarioError }) => {
    await expectRefused(side, config(), message, scenarioError);
  });

  test('an unreachable receiver: exit 1, every row failed, discovery null, and the verifier fails the run', async () => {
    const reportFile = file('unreachable-report.json');
    const config = write('unreachable.json', client({ reportFile }));
    const result = await launchReference(REFERENCE_ADAPTER.lifecycleClient, config, { timeoutMs: 20_000 });
    expect(result.exitCode, result.stderr).toBe(1);
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as { discovery: unknown; results: Array<{ status: string; error: string }> };
    expect(report.discovery).toBeNull();
    expect(report.results).toHaveLength(OUR_ROWS.length);
    for (const row of report.results) expect({ status: row.status, error: row.error }).toEqual({ status: 'failed', error: expect.stringMatching(/^not run: discovery: transport: connection failed/) });
    const verification = verifyCatalogueRun({ rows: OUR_ROWS, transport: 'http', report, receipts: { entries: [] }, exitCode: 1, clientLanguage: 'typescript', validators });
    expect(verification.runFailures.map((c) => c.label)).toEqual(expect.arrayContaining(['client exit 1', 'exactly one real discovery required']));
  });
});

// ---- the HTTP receiver on the raw wire ------------------------------------------------------------

describe('the catalogue HTTP receiver on the raw wire (bearer event auth)', () => {
  const TOKEN = 'TEST-ONLY-catalogue-wire-bearer';
  let dir = '';
  let ready: Readiness;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ahp-reference-catalogue-wire-'));
    const readinessFile = path.join(dir, 'ready.json');
    const rows = path.join(dir, 'rows.json');
    writePrivateJson(rows, { version: 1, scenarios: OUR_ROWS });
    const config = path.join(dir, 'server.json');
    writePrivateJson(config, { suite: 'catalogue', transport: 'http', readinessFile, scenarioFile: rows, auth: { mode: 'bearer', token: TOKEN }, uploadAuth: { token: UPLOAD_TOKEN } });
    ready = await waitReadiness(readinessFile, launchReference(REFERENCE_ADAPTER.lifecycleServer, config, { timeoutMs: 0 }));
  }, STARTUP_MS + 15_000); // past the start's own bound, so its clearer error is the one seen

  afterAll(async () => {
    await killLaunched();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (route: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${ready.endpoint}/${route}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers }, body });
  const entries = async (): Promise<JsonObject[]> => ((await controlCall(ready.controlEndpoint, 'receipts')).body as { entries: JsonObject[] }).entries;
  const withoutEvent = { jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft' } };

  test('requests without the event credential are refused and leave no trace', async () => {
    expect((await post('capabilities', JSON.stringify(catalogueDiscoveryRequest()), { authorization: '' })).status).toBe(401);
    expect((await post('observe', JSON.stringify(withoutEvent), { authorization: 'Bearer wrong' })).status).toBe(401);
    expect(await entries()).toEqual([]);
  });

  test('discovery answers its own id and is recorded exactly; an invalid request is refused unrecorded', async () => {
    const request = catalogueDiscoveryRequest('wire-discovery');
    const answer = await post('capabilities', JSON.stringify(request));
    expect(answer.status).toBe(200);
    const response = (await answer.json()) as JsonObject;
    expect(response.id).toBe('wire-discovery');
    expect(validators.capabilitiesResponse(response).errors).toEqual([]);
    expect((await post('capabilities', JSON.stringify({ ...request, params: {} }))).status).toBe(400);
    expect(await entries()).toEqual([{ kind: 'discovery', request, response }]);
  });

  test('a notification without an event is rejected (400, empty) and /wait-observed with eventId null counts it', async () => {
    const answer = await post('observe', JSON.stringify(withoutEvent));
    expect({ status: answer.status, body: await answer.text() }).toEqual({ status: 400, body: '' });
    expect((await entries()).at(-1)).toEqual({ kind: 'rejected', eventId: null, message: withoutEvent, errorKind: 'schema' });
    expect((await controlCall(ready.controlEndpoint, 'wait-observed', { eventId: null, count: 1 })).body).toEqual({ ok: true });
  });

  test('what is not an observation is refused without a record; intercepts, marks and uploads do not exist', async () => {
    const before = (await entries()).length;
    expect((await post('observe', JSON.stringify(withoutEvent), { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post('observe', '{not json')).status).toBe(400);
    expect((await post('intercept', '{}')).status).toBe(404);
    expect((await fetch(`${ready.endpoint}/observe`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(405);
    expect((await controlCall(ready.controlEndpoint, 'mark', { scenario: 's', kind: 'acquired', id: 'x' })).status).toBe(404);
    expect((await controlCall(ready.controlEndpoint, 'release', { id: 'x' })).status).toBe(404);
    expect((await fetch(ready.uploadEndpoint, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: 'x' })).status).toBe(404);
    expect((await entries()).length).toBe(before);
  });
});
