// Anonymous uploads of the reference lifecycle client (SENDER-ISOLATION-RULES §2–§5): when the
// client config's `upload` block has no `auth` key, a raw upload goes to the given endpoint verbatim
// as exactly one fixed-length POST with no credential of any kind — although upload tokens sit in the
// environment and the event exchange carries the mode's credential — and the 201 receipt binds the
// alias to the receiver's `urn:uuid:` ref. First the upload module alone against a capture origin
// (with a credentialed contrast, so the capture demonstrably sees a credential when one is sent),
// then the whole client, over HTTP in every credentialed mode and over stdio.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';

import { Uploads } from '../../adapters/reference/lifecycle/uploads.ts';
import { RowFailure } from '../../adapters/reference/lifecycle/row-failure.ts';
import { writePrivateJson } from '../../harness/adapters/private-json.ts';
import { createRunTrust, type RunTrust } from '../../harness/auth/run-trust.ts';
import type { AuthMode } from '../../harness/config/define-config.ts';
import { sha256Hex } from '../../harness/protocol/sha256-hex.ts';
import type { StepScenario } from '../../harness/lifecycle-adapters/scenario-types.ts';
import type { JsonObject } from '../../harness/protocol/json.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';
import { allowResponse, PUBLISH_STEPS, toolBeforeRequest, uploadStep } from './support/lifecycle-rows.ts';
import { killLaunched, PROJECT_ROOT, STARTUP_MS } from './support/reference-processes.ts';
import { CLIENT_ENV, runReferenceOverHttp, runReferenceOverStdio, type ReferencePairRun } from './support/reference-runs.ts';
import { startCaptureServer, type CaptureServer, type CapturedRequest } from './support/upload-capture-server.ts';

const validators = loadValidators(path.join(PROJECT_ROOT, 'schemas'));
/** Every octet once, then 0x00 0xFF, then an ASCII label: 274 bytes no text conversion survives. */
const BYTES = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from([0x00, 0xff]), Buffer.from('sender-isolation', 'ascii')]);
const DIGEST = sha256Hex(BYTES);
const ALIAS = 'sender-isolation';
const FORBIDDEN_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'ahp-subscription', 'ahp-content-ref', 'transfer-encoding', 'content-encoding'];
const ANONYMOUS = { timeoutMs: 5000, maxBytes: 1048576 };

/** The one capture a correct anonymous upload leaves, checked header by header. */
function expectCleanUpload(captures: readonly CapturedRequest[]): void {
  expect(captures.map((c) => `${c.method} ${c.target}`), 'exactly one POST to the given path').toEqual(['POST /capture']);
  const [capture] = captures as [CapturedRequest];
  for (const name of FORBIDDEN_HEADERS) expect(capture.headers.get(name), `header ${name}`).toBeUndefined();
  expect(capture.headers.get('content-type')).toEqual(['application/octet-stream']);
  expect(capture.headers.get('content-length')).toEqual([String(BYTES.length)]);
  expect(capture.headers.get('ahp-content-sha256')).toEqual([DIGEST]);
  expect(capture.body.equals(BYTES), 'the raw octets, once').toBe(true);
}

describe('the upload module with settings that have no auth', () => {
  const servers: CaptureServer[] = [];
  const capture = async (...args: Parameters<typeof startCaptureServer>): Promise<CaptureServer> => {
    const server = await startCaptureServer(...args);
    servers.push(server);
    return server;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  test('sends one anonymous fixed-length POST verbatim to the given endpoint and binds the receiver ref', async () => {
    const origin = await capture();
    const ownServer = await capture();
    // The given endpoint wins over the spawned server's uploadEndpoint, which gets nothing.
    const uploads = new Uploads({ ...ANONYMOUS, endpoint: origin.url('/capture') }, ownServer.url('/upload'), CLIENT_ENV, validators, new Map());
    expect(await uploads.run(uploadStep(ALIAS, BYTES))).toBe(201);
    expectCleanUpload(origin.captures);
    expect(ownServer.captures).toEqual([]);
    const ref = uploads.bindings.get(ALIAS);
    expect(ref).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);
  });

  test('contrast: settings naming a token send it, and the capture sees it', async () => {
    const origin = await capture();
    const uploads = new Uploads({ ...ANONYMOUS, tokenEnv: 'AHP_INTEROP_UPLOAD_TOKEN', endpoint: origin.url('/capture') }, undefined, CLIENT_ENV, validators, new Map());
    expect(await uploads.run(uploadStep(ALIAS, BYTES))).toBe(201);
    expect(origin.captures[0]?.headers.get('authorization')).toEqual([`Bearer ${CLIENT_ENV.AHP_INTEROP_UPLOAD_TOKEN}`]);
  });

  test('a redirect is not followed: the status is the answer, the second origin sees nothing, no alias is bound', async () => {
    const second = await capture();
    const first = await capture(() => ({ status: 307, headers: { location: second.url('/capture') } }));
    const uploads = new Uploads({ ...ANONYMOUS, endpoint: first.url('/capture') }, undefined, CLIENT_ENV, validators, new Map());
    expect(await uploads.run(uploadStep(ALIAS, BYTES))).toBe(307);
    expect(first.captures).toHaveLength(1);
    expect(second.captures).toEqual([]);
    expect(uploads.bindings.has(ALIAS)).toBe(false);
  });

  test('a 201 whose receipt does not confirm the bytes fails the row instead of binding', async () => {
    const origin = await capture(() => ({ status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ref: 'urn:uuid:00000000-0000-4000-8000-000000000000', size: 1, sha256: DIGEST }) }));
    const uploads = new Uploads({ ...ANONYMOUS, endpoint: origin.url('/capture') }, undefined, CLIENT_ENV, validators, new Map());
    await expect(uploads.run(uploadStep(ALIAS, BYTES))).rejects.toThrow(RowFailure);
    expect(uploads.bindings.has(ALIAS)).toBe(false);
  });
});

// ---- the whole client ---------------------------------------------------------------------------

const ROW_ID = 'anonymous-upload-before-send';
const REQUEST_ID = `${ROW_ID}:a`;
/** Upload (no step settings: the config's apply), then a plain held publication; the request names no body ref. */
const ROW: StepScenario = {
  id: ROW_ID,
  requests: { a: toolBeforeRequest(REQUEST_ID) },
  responses: { a: allowResponse(REQUEST_ID) },
  steps: [uploadStep(ALIAS, BYTES), ...PUBLISH_STEPS],
  expected: {
    published: [REQUEST_ID],
    cancelled: [],
    ignored: [],
    states: { [REQUEST_ID]: { decision: 'allow', executed: true, input: { value: 'settled' }, messages: [] } },
    observations: [],
    uploadStatuses: [201],
  },
};
const CREDENTIALED_MODES = ['bearer', 'oauth', 'workload', 'mtls'] as const satisfies readonly AuthMode[];
const RUN_MS = 60_000;

describe('the lifecycle client with an upload block without auth, upload tokens in its environment', () => {
  let dir = '';
  let trust: RunTrust | undefined;
  let counter = 0;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ahp-reference-anonymous-upload-'));
    trust = await createRunTrust(CREDENTIALED_MODES, dir);
  });
  afterAll(async () => {
    await killLaunched();
    await trust?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const file = (name: string): string => path.join(dir, `${++counter}-${name}`);
  const write = (name: string, value: unknown): string => {
    const at = file(name);
    writePrivateJson(at, value);
    return at;
  };

  /** The client's run against its own receiver, with the config's upload block replaced by an anonymous one. */
  async function runClient(transport: 'http' | 'stdio', mode: AuthMode): Promise<{ run: ReferencePairRun; captures: readonly CapturedRequest[] }> {
    const origin = await startCaptureServer();
    try {
      const spec = { suite: 'lifecycle' as const, file, write, scenarioFile: write('rows.json', { version: 1, scenarios: [ROW] }), contentSources: [], runMs: RUN_MS, upload: { ...ANONYMOUS, endpoint: origin.url('/capture') } };
      const run = transport === 'http' ? await runReferenceOverHttp({ ...spec, trust: trust!, mode, clientScenarioFile: () => spec.scenarioFile }) : await runReferenceOverStdio(spec);
      return { run, captures: origin.captures };
    } finally {
      await origin.close();
    }
  }

  const groups = [...CREDENTIALED_MODES.map((mode) => ({ transport: 'http' as const, mode })), { transport: 'stdio' as const, mode: 'none' as const }];

  test.each(groups)(
    '$transport/$mode: one clean anonymous upload, the row passes with the receiver ref bound, and its own receiver gets no upload',
    async ({ transport, mode }) => {
      const { run, captures } = await runClient(transport, mode);
      expect(run.exitCode, run.clientStderr).toBe(0);
      expectCleanUpload(captures);
      const [result] = (run.report as { results: Array<{ id: string; status: string; actual: unknown; error?: string }> }).results;
      expect({ id: result?.id, status: result?.status, error: result?.error }).toEqual({ id: ROW_ID, status: 'passed', error: undefined });
      expect(result?.actual).toEqual(ROW.expected);
      // The event exchange ran against the client's own receiver, with the mode's credential, and nothing was uploaded there.
      expect((run.receipts as { entries: JsonObject[] }).entries.map((e) => e.kind)).toEqual(['received', 'replied', 'acquired', 'accepted']);
      expect(run.clientStderr).not.toContain(CLIENT_ENV.AHP_INTEROP_UPLOAD_TOKEN);
    },
    RUN_MS + STARTUP_MS,
  );
});
