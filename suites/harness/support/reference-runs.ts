// One run of the reference lifecycle-family adapters as the protocol's runner does it, for the dev
// tests of both suites: over HTTP the test starts the server (suite, readiness, the independent
// upload credential), runs the client against it with the `upload` block and its `endpoint`, reads
// the receipts from the control endpoint and shuts the server down; over stdio the client spawns the
// server itself, forwards its receipts in the report and reaps it. The checks every run must pass on
// the way (readiness shape, health, a clean server exit, the child pid file) are made here.

import { readFileSync } from 'node:fs';

import { expect } from 'vitest';

import type { RunTrust } from '../../../harness/auth/run-trust.ts';
import type { AuthMode } from '../../../harness/config/define-config.ts';
import { UPLOAD_TOKEN } from './bad-configs.ts';
import { controlCall, launchReference, REFERENCE_ADAPTER, REFERENCE_DIR, waitReadiness } from './reference-processes.ts';

export const CLIENT_ENV = { AHP_INTEROP_UPLOAD_TOKEN: UPLOAD_TOKEN, AHP_INTEROP_UNAUTHORIZED_UPLOAD_TOKEN: 'TEST-ONLY-unauthorized-upload-token' };
export const UPLOAD_SETTINGS = { auth: { type: 'bearer', tokenEnv: 'AHP_INTEROP_UPLOAD_TOKEN' }, timeoutMs: 5000, maxBytes: 1048576 };

export interface ReferencePairRun {
  exitCode: number | undefined;
  clientStderr: string;
  clientStdout: string;
  report: unknown;
  /** HTTP: the receiver's GET /receipts body; stdio: the report's `receipts`. */
  receipts: unknown;
  /** Every process the run started (server or spawned child), to check none survives. */
  pids: Map<number, string>;
}

export interface ReferenceRunSpec {
  suite: 'lifecycle' | 'catalogue';
  /** Writes a JSON file into the run's folder under a name unique to this call; returns its path. */
  write: (name: string, value: unknown) => string;
  /** A fresh path in the run's folder. */
  file: (name: string) => string;
  /** The scenario file the server reads (and, over stdio, the client). */
  scenarioFile: string;
  contentSources: unknown[];
  runMs: number;
  /** Replaces the client config's `upload` block wholesale on both transports (sender isolation does). */
  upload?: Record<string, unknown>;
}

export async function runReferenceOverHttp(
  spec: ReferenceRunSpec & { trust: RunTrust; mode: AuthMode; /** The client's scenario file, given the upload endpoint. */ clientScenarioFile: (uploadEndpoint: string) => string },
): Promise<ReferencePairRun> {
  const { mode } = spec;
  const readinessFile = spec.file(`ready-http-${mode}.json`);
  const serverConfig = spec.write(`server-http-${mode}.json`, {
    suite: spec.suite,
    transport: 'http',
    readinessFile,
    scenarioFile: spec.scenarioFile,
    auth: spec.trust.server(mode),
    uploadAuth: { token: UPLOAD_TOKEN },
  });
  const server = launchReference(REFERENCE_ADAPTER.lifecycleServer, serverConfig, { timeoutMs: 0 });
  const ready = await waitReadiness(readinessFile, server);
  expect(ready.endpoint).toMatch(mode === 'mtls' ? /^https:\/\/127\.0\.0\.1:\d+$/ : /^http:\/\/127\.0\.0\.1:\d+$/);
  expect(ready.uploadEndpoint, 'readiness names the upload endpoint').toMatch(/^http:\/\/127\.0\.0\.1:\d+\/upload$/);
  expect((await controlCall(ready.controlEndpoint, 'health')).body).toEqual({ ready: true });

  const reportFile = spec.file(`report-http-${mode}.json`);
  const clientConfig = spec.write(`client-http-${mode}.json`, {
    suite: spec.suite,
    transport: 'http',
    scenarioFile: spec.clientScenarioFile(ready.uploadEndpoint),
    reportFile,
    auth: spec.trust.client(mode),
    endpoint: ready.endpoint,
    controlEndpoint: ready.controlEndpoint,
    upload: spec.upload ?? { ...UPLOAD_SETTINGS, endpoint: ready.uploadEndpoint },
    contentSources: spec.contentSources,
  });
  const client = await launchReference(REFERENCE_ADAPTER.lifecycleClient, clientConfig, { timeoutMs: spec.runMs, env: CLIENT_ENV });
  // HTTP receipts come from the receiver, which the client must have left running.
  const receipts = await controlCall(ready.controlEndpoint, 'receipts');
  expect(receipts.status).toBe(200);
  expect((await controlCall(ready.controlEndpoint, 'shutdown', {})).body).toEqual({ ok: true });
  const serverExit = await server;
  expect(serverExit.exitCode, serverExit.stderr).toBe(0);
  return {
    exitCode: client.exitCode,
    clientStderr: client.stderr,
    clientStdout: client.stdout,
    report: JSON.parse(readFileSync(reportFile, 'utf8')) as unknown,
    receipts: receipts.body,
    pids: new Map([[ready.pid, `http ${spec.suite} server`]]),
  };
}

export async function runReferenceOverStdio(spec: ReferenceRunSpec): Promise<ReferencePairRun> {
  const serverConfig = spec.write('server-stdio.json', {
    suite: spec.suite,
    transport: 'stdio',
    readinessFile: spec.file('ready-stdio.json'),
    scenarioFile: spec.scenarioFile,
    auth: { mode: 'none' },
    uploadAuth: { token: UPLOAD_TOKEN },
  });
  const reportFile = spec.file('report-stdio.json');
  const childPidFile = spec.file('child.json');
  const clientConfig = spec.write('client-stdio.json', {
    suite: spec.suite,
    transport: 'stdio',
    scenarioFile: spec.scenarioFile,
    reportFile,
    auth: { mode: 'none' },
    serverCommand: REFERENCE_ADAPTER.lifecycleServer,
    serverCwd: REFERENCE_DIR,
    serverConfig,
    childPidFile,
    upload: spec.upload ?? UPLOAD_SETTINGS,
    contentSources: spec.contentSources,
  });
  const client = await launchReference(REFERENCE_ADAPTER.lifecycleClient, clientConfig, { timeoutMs: spec.runMs, env: CLIENT_ENV });
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as { receipts?: unknown };
  const child = JSON.parse(readFileSync(childPidFile, 'utf8')) as { pid: number };
  expect(Object.keys(child)).toEqual(['pid']);
  expect(Number.isInteger(child.pid) && child.pid > 1).toBe(true);
  return {
    exitCode: client.exitCode,
    clientStderr: client.stderr,
    clientStdout: client.stdout,
    report,
    receipts: report.receipts,
    pids: new Map([[child.pid, `stdio ${spec.suite} server (child)`]]),
  };
}
