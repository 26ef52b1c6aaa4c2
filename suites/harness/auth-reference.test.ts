// End-to-end tests of endpoint authentication in the embedded reference adapter, with real processes:
// for every auth mode over HTTP, the reference client passes every row against the reference server;
// raw-wire negatives (hand-written HTTP/1.1 over node:net / node:tls, so duplicate Authorization fields
// really are separate header lines) are refused with 401/403 or a TLS failure, record no receipt and
// leave the server healthy; credential failures on the client fail rows and never pass a negative;
// credentials never reach another URL; no secret reaches a report or a log.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { execa, type ResultPromise } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';

import { loadAdapter } from '../../harness/adapters/adapter-manifest.ts';
import { writePrivateJson } from '../../harness/adapters/private-json.ts';
import { allowListServerConfig } from '../../harness/auth/allow-list.ts';
import { clientAuthSettings, secretsOf, serverAuthSettings, type AuthMaterial, type ClientAuthSettings, type ServerAuthSettings } from '../../harness/auth/auth-settings.ts';
import { OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET, STATIC_BEARER, STATIC_SECRETS } from '../../harness/auth/constants.ts';
import { mintToken, NEGATIVE_TOKEN_CASES, negativeToken } from '../../harness/auth/jwt.ts';
import { headerValue, rawRequest, type RawRequest } from '../../harness/families/auth/probes-raw-http.ts';
import { startOAuthIssuer, type OAuthIssuer } from '../../harness/auth/oauth-issuer.ts';
import { disposeTestPki, testPki, type TestPki } from '../../harness/auth/pki.ts';
import type { AuthMode } from '../../harness/config/define-config.ts';
import type { JsonObject } from '../../harness/protocol/json.ts';
import type { InterceptRequest } from '../../harness/protocol/messages.ts';
import type { Scenario } from '../../harness/scenarios/types.ts';
import { okResponse, toolBeforeRequest } from './support/intercept-messages.ts';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REFERENCE_DIR = path.join(PROJECT_ROOT, 'adapters', 'reference');
const ADAPTER = JSON.parse(readFileSync(path.join(REFERENCE_DIR, 'interop', 'adapter.json'), 'utf8')) as { server: string[]; client: string[] };
const REFERENCE = loadAdapter({ name: 'reference', cwd: REFERENCE_DIR, adapterFile: path.join(REFERENCE_DIR, 'interop', 'adapter.json') });
const STARTUP_MS = 15_000;
const HTTP_MODES = ['none', 'bearer', 'oauth', 'workload', 'mtls'] as const satisfies readonly AuthMode[];
const WRONG_BEARER = 'TEST-ONLY-ahp-interop-wrong-bearer';

// ---- a tiny scenario set --------------------------------------------------------------------------

const toolRequest = (id: string): InterceptRequest => toolBeforeRequest(id, { effects: ['deny', 'allow', 'message'] });

const POSITIVE: Scenario = {
  id: 'auth.positive',
  request: toolRequest('auth.positive'),
  response: okResponse('auth.positive', [{ type: 'message', text: 'hello' }]),
  expected: { decision: 'allow', executed: true, input: { task: 1 }, messages: ['hello'] },
};
const DENY: Scenario = {
  id: 'auth.deny',
  request: toolRequest('auth.deny'),
  response: okResponse('auth.deny', [{ type: 'deny', reason: 'no' }]),
  expected: { decision: 'deny', executed: false, messages: [] },
};
/** A negative row: a transport/credential failure must fail it, never satisfy its expectError. */
const SCHEMA_INVALID: Scenario = {
  id: 'auth.schema-invalid',
  request: toolRequest('auth.schema-invalid'),
  response: okResponse('auth.schema-invalid', [{ type: 'explode' }]),
  expectError: true,
};
const ROWS = [POSITIVE, DENY, SCHEMA_INVALID];

// ---- processes, files, trust ----------------------------------------------------------------------

let workDir: string;
let scenarioFile: string;
let pki: TestPki;
let issuer: OAuthIssuer;
let material: AuthMaterial;
/** Processes and helper servers of the running test (killed after each test). */
const processes = new Set<ResultPromise>();
const helperServers = new Set<Server>();
/** One reference server per auth mode, shared by the file (started in beforeAll, killed in afterAll). */
const servers = {} as Record<(typeof HTTP_MODES)[number], StartedServer>;
const sharedProcesses = new Set<ResultPromise>();
/** Every secret and every adapter output of this file, for the hygiene check at the end. */
const secretSources: Parameters<typeof secretsOf> = [];
const outputs: Array<{ what: string; text: string }> = [];

function track<P extends ResultPromise>(subprocess: P): P {
  processes.add(subprocess);
  void subprocess.finally(() => processes.delete(subprocess)).catch(() => undefined);
  return subprocess;
}

async function killAll(includeShared = false): Promise<void> {
  const running = [...processes, ...(includeShared ? sharedProcesses : [])];
  for (const subprocess of running) subprocess.kill('SIGKILL');
  await Promise.allSettled(running);
  const servers = [...helperServers];
  helperServers.clear();
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())))));
}

let counter = 0;
function writeConfig(name: string, value: unknown): string {
  const file = path.join(workDir, `${++counter}-${name}`);
  writePrivateJson(file, value);
  return file;
}

/** `timeoutMs` 0: no execa timeout (the shared servers live for the whole file; afterAll kills them). */
function launch(argv: string[], configFile: string, timeoutMs = 30_000) {
  const [command, ...args] = argv;
  return track(
    execa(command!, [...args, '--config', configFile], {
      cwd: REFERENCE_DIR,
      reject: false,
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      timeout: timeoutMs,
      forceKillAfterDelay: 1_000,
    }),
  );
}

interface Readiness {
  endpoint: string;
  controlEndpoint: string;
}

interface StartedServer {
  subprocess: ResultPromise;
  endpoint: string;
  control: string;
}

async function startServer(auth: ServerAuthSettings): Promise<StartedServer> {
  secretSources.push(auth);
  const readinessFile = path.join(workDir, `ready-${++counter}.json`);
  // The reference adapter declares authAllowList, so the harness hands its servers the allow-list.
  const config = writeConfig(`server-${auth.mode}.json`, { transport: 'http', readinessFile, scenarioFile, auth, ...allowListServerConfig(REFERENCE, auth.mode) });
  const subprocess = launch(ADAPTER.server, config, 0);
  processes.delete(subprocess);
  sharedProcesses.add(subprocess);
  let exited = false;
  void subprocess.finally(() => (exited = true)).catch(() => undefined);
  void subprocess.then((result) => outputs.push({ what: `server ${auth.mode} output`, text: `${result.stdout}\n${result.stderr}` }));
  const deadline = Date.now() + STARTUP_MS;
  while (Date.now() < deadline && !exited) {
    try {
      const readiness = JSON.parse(readFileSync(readinessFile, 'utf8')) as Readiness;
      return { subprocess, endpoint: readiness.endpoint, control: readiness.controlEndpoint };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  const result = await Promise.race([subprocess, Promise.resolve(undefined)]);
  throw new Error(`reference server (${auth.mode}) not ready within ${STARTUP_MS} ms; exit ${result?.exitCode}; stderr:\n${result?.stderr ?? ''}`);
}

interface ReportShape {
  language: string;
  results: Array<{ id: string; status: string; actual: unknown; error?: string }>;
}

async function runClient(auth: ClientAuthSettings, endpoint: string, transport: 'http' | 'stdio' = 'http') {
  secretSources.push(auth);
  const reportFile = path.join(workDir, `report-${++counter}.json`);
  const base = { transport, scenarioFile, reportFile, auth, watchdogs: { discoveryMs: 10_000, requestMs: 10_000 } };
  const config = writeConfig(
    `client-${auth.mode}.json`,
    transport === 'http' ? { ...base, endpoint } : { ...base, serverCommand: ADAPTER.server, serverCwd: REFERENCE_DIR, serverConfig: path.join(workDir, 'never-spawned.json') },
  );
  const result = await launch(ADAPTER.client, config);
  const reportText = readFileSync(reportFile, 'utf8');
  const port = `:${new URL(endpoint).port}`;
  outputs.push({ what: `client ${auth.mode} output`, text: `${result.stdout}\n${result.stderr}` }, { what: `client ${auth.mode} report`, text: reportText });
  for (const text of [reportText, result.stderr]) {
    expect(text).not.toContain(port);
    expect(text).not.toContain(workDir);
    expect(text).not.toContain(pki.dir);
  }
  return { result, report: JSON.parse(reportText) as ReportShape };
}

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return response.json();
}

const health = (server: StartedServer) => getJson(`${server.control}/health`);
const receipts = async (server: StartedServer) => ((await getJson(`${server.control}/receipts`)) as { requests: unknown[] }).requests;
const authStats = async (server: StartedServer) => (await getJson(`${server.control}/auth-stats`)) as { tlsRejections: number; authRejections: number };

// ---- raw HTTP/1.1 over node:net / node:tls (harness/families/auth/probes-raw-http.ts) -----------------------

const ENDPOINTS = [
  { name: 'GET /capabilities', method: 'GET', route: '/capabilities' },
  { name: 'POST /intercept', method: 'POST', route: '/intercept', body: JSON.stringify(POSITIVE.request) },
] as const;

/** Sends one negative probe to both endpoints; each must be refused with `status`, change nothing, and leave the server healthy. */
async function expectRefused(server: StartedServer, probe: string, status: 401 | 403, request: Omit<RawRequest, 'method' | 'route' | 'body'>): Promise<void> {
  for (const endpoint of ENDPOINTS) {
    const before = await receipts(server);
    const stats = await authStats(server);
    const outcome = await rawRequest(server.endpoint, { ...endpoint, ...request });
    const where = `${probe} → ${endpoint.name}`;
    expect(outcome.kind, where).toBe('response');
    if (outcome.kind !== 'response') return;
    expect(outcome.status, where).toBe(status);
    const body = JSON.parse(outcome.body) as Record<string, unknown>;
    expect(body, where).toMatchObject({ error: status === 401 ? 'unauthorized' : 'forbidden' });
    expect(body, where).not.toHaveProperty('jsonrpc');
    if (status === 401) expect(headerValue(outcome, 'www-authenticate')?.toLowerCase(), where).toMatch(/^bearer realm="ahp"/);
    expect(await receipts(server), where).toEqual(before);
    expect(await authStats(server), where).toEqual({ ...stats, authRejections: stats.authRejections + 1 });
    expect(await health(server), where).toEqual({ ready: true });
  }
}

/**
 * Both endpoints answer: GET discovery with the bare capability set, intercept with the scripted
 * response and exactly one new receipt. Returns the hooks/capabilities envelope (with the manifest)
 * that POST /capabilities answers with the same credential.
 */
async function expectAccepted(server: StartedServer, probe: string, request: Omit<RawRequest, 'method' | 'route' | 'body'>): Promise<JsonObject> {
  const bare = await rawRequest(server.endpoint, { ...ENDPOINTS[0], ...request });
  expect(bare, probe).toMatchObject({ kind: 'response', status: 200 });
  expect(JSON.parse((bare as { body: string }).body), probe).toHaveProperty('effects');
  const discovery = await rawRequest(server.endpoint, {
    method: 'POST',
    route: '/capabilities',
    body: JSON.stringify({ jsonrpc: '2.0', id: 'probe-discovery', method: 'hooks/capabilities', params: { protocolVersion: 'draft' } }),
    ...request,
  });
  expect(discovery, probe).toMatchObject({ kind: 'response', status: 200 });
  const before = await receipts(server);
  const intercept = await rawRequest(server.endpoint, { ...ENDPOINTS[1], ...request });
  expect(intercept, probe).toMatchObject({ kind: 'response', status: 200, body: JSON.stringify(POSITIVE.response) });
  expect(await receipts(server), probe).toEqual([...before, POSITIVE.request]);
  return JSON.parse((discovery as { body: string }).body) as JsonObject;
}

/** A TLS-level refusal: no HTTP response at all, and the server's TLS rejection counter moves by exactly one. */
async function expectTlsRefused(server: StartedServer, probe: string, clientTls: RawRequest['tls']): Promise<void> {
  for (const endpoint of ENDPOINTS) {
    const where = `${probe} → ${endpoint.name}`;
    const before = await receipts(server);
    const stats = await authStats(server);
    const outcome = await rawRequest(server.endpoint, { ...endpoint, tls: clientTls });
    expect(outcome.kind, where).toBe('failure');
    // The server counts the refused handshake; poll briefly in case its event lands after our close.
    const deadline = Date.now() + 2_000;
    let now = await authStats(server);
    while (now.tlsRejections === stats.tlsRejections && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      now = await authStats(server);
    }
    expect(now, where).toEqual({ tlsRejections: stats.tlsRejections + 1, authRejections: stats.authRejections });
    expect(await receipts(server), where).toEqual(before);
    expect(await health(server), where).toEqual({ ready: true });
  }
}

async function issuedToken(): Promise<string> {
  const response = await fetch(issuer.tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: OAUTH_CLIENT_ID, client_secret: OAUTH_CLIENT_SECRET }).toString(),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

async function validCredential(mode: 'bearer' | 'oauth' | 'workload'): Promise<string> {
  if (mode === 'bearer') return STATIC_BEARER;
  if (mode === 'oauth') return issuedToken();
  const assertion = await mintToken('workload');
  secretSources.push(assertion);
  return assertion;
}

const MANIFEST_AUTHENTICATION: Record<(typeof HTTP_MODES)[number], string[]> = { none: [], bearer: ['bearer'], oauth: ['oauth'], workload: ['bearer'], mtls: [] };

function listenHelper(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  helperServers.add(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`)));
}

// ---- lifecycle ------------------------------------------------------------------------------------

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'ahp-auth-reference-'));
  scenarioFile = path.join(workDir, 'scenarios.json');
  writePrivateJson(scenarioFile, { version: 1, scenarios: ROWS });
  [pki, issuer] = await Promise.all([testPki(), startOAuthIssuer()]);
  material = { pki, tokenEndpoint: issuer.tokenEndpoint };
  secretSources.push(pki, issuer, ...STATIC_SECRETS);
  // The five servers start together: process startup dominates this file's run time.
  const started = await Promise.all(HTTP_MODES.map((mode) => startServer(serverAuthSettings(mode, material))));
  HTTP_MODES.forEach((mode, i) => (servers[mode] = started[i]!));
}, 60_000);

afterEach(() => killAll());

afterAll(async () => {
  await killAll(true);
  await issuer?.close();
  await disposeTestPki();
  rmSync(workDir, { recursive: true, force: true });
});

// ---- tests ----------------------------------------------------------------------------------------

describe.each(HTTP_MODES)('reference adapter over http with auth %s', (mode) => {
  test('the reference client passes every row against the reference server', async () => {
    const server = servers[mode];
    expect(server.endpoint).toMatch(mode === 'mtls' ? /^https:\/\/127\.0\.0\.1:\d+$/ : /^http:\/\/127\.0\.0\.1:\d+$/);
    const issuedBefore = issuer.issued();
    const receiptsBefore = await receipts(server);
    const statsBefore = await authStats(server);
    const { result, report } = await runClient(await clientAuthSettings(mode, material), server.endpoint);
    expect(report.results.map((row) => [row.id, row.status, row.error])).toEqual(ROWS.map((row) => [row.id, 'passed', undefined]));
    expect(result.exitCode).toBe(0);
    expect(await receipts(server)).toEqual([...receiptsBefore, ...ROWS.map((row) => row.request)]);
    expect(await authStats(server)).toEqual(statsBefore);
    // The oauth client acquires exactly one token for its run; no other mode touches the issuer.
    expect(issuer.issued() - issuedBefore).toBe(mode === 'oauth' ? 1 : 0);
  });

  test('raw-wire probes: negatives refused before dispatch, then a positive', async () => {
    const server = servers[mode];
    const statsBefore = await authStats(server);
    if (mode === 'none') {
      // Any credential is ignored, including a wrong one and several fields.
      await expectAccepted(server, 'wrong credential', { headerLines: [`Authorization: Bearer ${WRONG_BEARER}`] });
      await expectAccepted(server, 'duplicate fields', { headerLines: [`Authorization: Bearer ${WRONG_BEARER}`, 'Authorization: Basic Zm9vOmJhcg=='] });
      const discovery = await expectAccepted(server, 'no credential', {});
      expect((discovery.result as { manifest: { authentication: string[] } }).manifest.authentication).toEqual([]);
      expect(await authStats(server)).toEqual(statsBefore);
      return;
    }

    if (mode === 'mtls') {
      const trust = { ca: readFileSync(pki.caFile) };
      const identity = (files: { certFile: string; keyFile: string }) => ({ ...trust, cert: readFileSync(files.certFile), key: readFileSync(files.keyFile) });
      await expectTlsRefused(server, 'no client certificate', trust);
      await expectTlsRefused(server, 'untrusted client certificate', identity(pki.untrustedClient));
      await expectRefused(server, 'trusted but unauthorised principal', 403, { tls: identity(pki.unauthorisedClient) });
      await expectRefused(server, 'duplicate Authorization fields', 401, {
        tls: identity(pki.client),
        headerLines: [`Authorization: Bearer ${WRONG_BEARER}`, `authorization: Bearer ${WRONG_BEARER}`],
      });
      const discovery = await expectAccepted(server, 'authorised client certificate', { tls: identity(pki.client) });
      expect((discovery.result as { manifest: { authentication: string[] } }).manifest.authentication).toEqual([]);
      expect(await authStats(server)).toEqual({ tlsRejections: statsBefore.tlsRejections + 4, authRejections: statsBefore.authRejections + 4 });
      return;
    }

    const valid = await validCredential(mode);
    const bearer = (token: string) => `Authorization: Bearer ${token}`;
    await expectRefused(server, 'missing credential', 401, {});
    await expectRefused(server, 'wrong bearer', 401, { headerLines: [bearer(WRONG_BEARER)] });
    await expectRefused(server, 'valid credential in another scheme', 401, { headerLines: [`Authorization: Basic ${Buffer.from(valid).toString('base64')}`] });
    await expectRefused(server, 'duplicate: valid + valid', 401, { headerLines: [bearer(valid), bearer(valid)] });
    await expectRefused(server, 'duplicate: valid + wrong', 401, { headerLines: [bearer(valid), bearer(WRONG_BEARER)] });
    await expectRefused(server, 'duplicate: wrong + valid', 401, { headerLines: [bearer(WRONG_BEARER), `authorization: Bearer ${valid}`] });
    if (mode === 'bearer') {
      await expectRefused(server, 'a signed oauth token', 401, { headerLines: [bearer(await mintToken('oauth'))] });
    } else {
      for (const which of NEGATIVE_TOKEN_CASES) {
        const probe = await negativeToken(mode, which);
        await expectRefused(server, `${mode} token: ${which}`, 401, { headerLines: [bearer(probe.token)] });
      }
      await expectRefused(server, `${mode} token for another principal`, 403, { headerLines: [bearer(await mintToken(mode, { sub: 'someone-else' }))] });
    }
    const discovery = await expectAccepted(server, 'valid credential', { headerLines: [bearer(valid)] });
    expect((discovery.result as { manifest: { authentication: string[] } }).manifest.authentication).toEqual(MANIFEST_AUTHENTICATION[mode]);
    expect((await authStats(server)).tlsRejections).toBe(0);
  });
});

describe('reference client credential failures', () => {
  const expectAllFailed = (report: ReportShape, error: string | RegExp): void => {
    expect(report.results.map((row) => row.id)).toEqual(ROWS.map((row) => row.id));
    for (const row of report.results) {
      expect(row.status, row.id).toBe('failed');
      expect(row.actual, row.id).toBeNull();
      expect(row.error, row.id).toMatch(error);
    }
  };

  test('a refused bearer token fails every row, the negative one included', async () => {
    const server = servers.bearer;
    const before = { receipts: await receipts(server), stats: await authStats(server) };
    const { result, report } = await runClient({ mode: 'bearer', token: WRONG_BEARER }, server.endpoint);
    expect(result.exitCode).toBe(1);
    expectAllFailed(report, /^discovery: transport: HTTP status 401$/);
    expect(await receipts(server)).toEqual(before.receipts);
    expect(await authStats(server)).toEqual({ ...before.stats, authRejections: before.stats.authRejections + 1 });
  });

  test('a workload assertion for the wrong audience is never sent', async () => {
    const server = servers.workload;
    const stats = await authStats(server);
    const auth = { ...(await clientAuthSettings('workload')), assertion: await mintToken('workload', { aud: 'urn:ahp:interop:other-server' }) };
    const { result, report } = await runClient(auth, server.endpoint);
    expect(result.exitCode).toBe(1);
    expectAllFailed(report, /^discovery: auth: workload assertion fails local validation \(audience\)$/);
    expect(await authStats(server)).toEqual(stats);
  });

  test('a wrong client secret fails every row at token acquisition', async () => {
    const server = servers.oauth;
    const stats = await authStats(server);
    const issued = issuer.issued();
    const auth = { ...(await clientAuthSettings('oauth', material)), clientSecret: 'TEST-ONLY-ahp-interop-wrong-secret' };
    const { result, report } = await runClient(auth, server.endpoint);
    expect(result.exitCode).toBe(1);
    expectAllFailed(report, /^discovery: auth: token request refused \(HTTP status 401\)$/);
    expect(issuer.issued()).toBe(issued);
    expect(await authStats(server)).toEqual(stats);
  });

  test('a token endpoint that redirects is not followed', async () => {
    const server = servers.oauth;
    const seen: string[] = [];
    const redirector = await listenHelper((request, response) => {
      seen.push(`${request.method} ${request.url}`);
      request.resume();
      response.writeHead(307, { location: issuer.tokenEndpoint }).end();
    });
    const issued = issuer.issued();
    const auth = { ...(await clientAuthSettings('oauth', material)), tokenEndpoint: `${redirector}/token` };
    const { result, report } = await runClient(auth, server.endpoint);
    expect(result.exitCode).toBe(1);
    expectAllFailed(report, /^discovery: auth: token endpoint answered a redirect \(HTTP status 307\); redirects are not followed$/);
    expect(seen).toEqual(['POST /token']);
    expect(issuer.issued()).toBe(issued);
  });

  test('event credentials never follow a redirect to another URL', async () => {
    const sink: string[] = [];
    const elsewhere = await listenHelper((request, response) => {
      sink.push(`${request.method} ${request.url} ${request.headers.authorization ?? ''}`);
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const seen: Array<string | undefined> = [];
    const endpoint = await listenHelper((request, response) => {
      seen.push(request.headers.authorization);
      request.resume();
      response.writeHead(308, { location: `${elsewhere}${request.url}` }).end();
    });
    const { result, report } = await runClient({ mode: 'bearer', token: STATIC_BEARER }, endpoint);
    expect(result.exitCode).toBe(1);
    expectAllFailed(report, /^discovery: transport: HTTP status 308$/);
    expect(seen).toEqual([`Bearer ${STATIC_BEARER}`]);
    expect(sink).toEqual([]);
  });

  test('an untrusted client certificate fails every row at the TLS handshake', async () => {
    const server = servers.mtls;
    const before = { receipts: await receipts(server), stats: await authStats(server) };
    const auth = { mode: 'mtls' as const, caFile: pki.caFile, certFile: pki.untrustedClient.certFile, keyFile: pki.untrustedClient.keyFile };
    const { result, report } = await runClient(auth, server.endpoint);
    expect(result.exitCode).toBe(1);
    expectAllFailed(report, /^discovery: transport: connection failed/);
    expect((await authStats(server)).tlsRejections).toBeGreaterThan(before.stats.tlsRejections);
    expect(await receipts(server)).toEqual(before.receipts);
  });

  test('a client that does not trust the server certificate fails every row', async () => {
    const server = servers.mtls;
    const before = await receipts(server);
    const auth = { mode: 'mtls' as const, caFile: pki.untrustedCaFile, certFile: pki.client.certFile, keyFile: pki.client.keyFile };
    const { result, report } = await runClient(auth, server.endpoint);
    expect(result.exitCode).toBe(1);
    expectAllFailed(report, /^discovery: transport: connection failed/);
    expect(await receipts(server)).toEqual(before);
  });

  test('stdio with an HTTP auth mode is inapplicable, never run', async () => {
    const { result, report } = await runClient(await clientAuthSettings('bearer'), 'http://127.0.0.1:9', 'stdio');
    expect(result.exitCode).toBe(0);
    for (const row of report.results) expect(row).toMatchObject({ status: 'inapplicable', actual: null });
  });

  test('bad auth configs exit 2 without echoing a value', async () => {
    const readinessFile = path.join(workDir, 'never-ready.json');
    const server = await launch(ADAPTER.server, writeConfig('server-bad-auth.json', { transport: 'http', readinessFile, scenarioFile, auth: { mode: 'oauth', signingKey: STATIC_BEARER } }));
    expect(server.exitCode).toBe(2);
    expect(server.stderr).toMatch(/"auth\.purpose" must be "oauth"/);
    const stdio = await launch(ADAPTER.server, writeConfig('server-stdio-bearer.json', { transport: 'stdio', readinessFile, scenarioFile, auth: { mode: 'bearer', token: STATIC_BEARER } }));
    expect(stdio.exitCode).toBe(3);
    const mtlsOverHttp = { transport: 'http', endpoint: 'http://127.0.0.1:9', scenarioFile, reportFile: path.join(workDir, 'r.json'), auth: await clientAuthSettings('mtls', material) };
    const client = await launch(ADAPTER.client, writeConfig('client-mtls-http.json', mtlsOverHttp));
    expect(client.exitCode).toBe(2);
    expect(client.stderr).toMatch(/mtls needs an https: endpoint/);
    for (const output of [server, stdio, client]) outputs.push({ what: 'bad-config output', text: `${output.stdout}\n${output.stderr}` });
  });
});

describe('credential hygiene', () => {
  test('no secret of this file reached a report or an adapter log', async () => {
    // Stop the shared servers so their complete logs are captured, and check they stayed healthy.
    const exits = await Promise.all(
      HTTP_MODES.map(async (mode) => {
        await fetch(`${servers[mode].control}/shutdown`, { method: 'POST' });
        return (await servers[mode].subprocess).exitCode;
      }),
    );
    expect(exits).toEqual(HTTP_MODES.map(() => 0));
    const secrets = secretsOf(...secretSources);
    expect(secrets.length).toBeGreaterThan(8);
    expect(outputs.filter((o) => o.what.startsWith('server')).length).toBe(HTTP_MODES.length);
    const hits = outputs.flatMap(({ what, text }) => secrets.filter((secret) => text.includes(secret)).map((secret) => `${what} contains a secret of ${secret.length} chars`));
    expect(hits).toEqual([]);
  });
});
