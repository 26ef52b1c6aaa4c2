// The evidence a stdio run leaves in its instances folder (one numbered sub-folder per server process
// the client started through stdio-relay.mjs; see its header for the files), read back as one run:
// receipts and forwarded responses are the union over every instance in start order, each response
// record tagged with its instance. Also: ending every instance's process group, and the harness's own
// receipts snapshot when the run watchdog fires on a hung server.

import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { receipts as getReceipts } from '../adapters/control-client.ts';
import { validateReadiness } from '../adapters/readiness.ts';
import { groupAlive, killGroup, killPid, waitGroupGone } from '../adapters/supervise.ts';
import { isJsonObject } from '../protocol/json.ts';
import { parseJsonText } from '../protocol/json-text.ts';
import type { RunFailure, RunStage } from './types.ts';

/** What one relay instance recorded about itself (status.json), read defensively. */
export interface InstanceStatus {
  relayPid?: number;
  serverPid?: number;
  spawnError?: string;
  startup?: { kind: string; message: string };
  problems: Array<{ stage: string; kind: string; message: string }>;
  exit?: { code: number | null; signal: string | null; initiatedBy: 'client' | 'relay' | 'server' };
}

export interface StdioInstance {
  /** 1 for the first server process the client started, 2 for the next, ... */
  number: number;
  dir: string;
  status: InstanceStatus;
}

export interface StdioEvidence {
  instances: StdioInstance[];
  /** Requests every instance's server recorded, instance by instance. Undefined when unusable. */
  receipts: unknown[] | undefined;
  /** Forwarded response records of every instance, each with `instance: <number>`. Undefined when unusable. */
  responses: unknown[] | undefined;
  /** Every message the client sent to any instance, parsed, in order. Undefined when unusable. */
  sent: unknown[] | undefined;
  failures: RunFailure[];
}

const FILES = { status: 'status.json', requests: 'requests.ndjson', receipts: 'receipts.ndjson', finalReceipts: 'receipts.final.json', responses: 'responses.ndjson', readiness: 'readiness.json' };

export function listInstances(instancesDir: string): StdioInstance[] {
  let names: string[];
  try {
    names = readdirSync(instancesDir).filter((name) => /^\d{4,}$/.test(name));
  } catch {
    return [];
  }
  return names
    .map((name) => Number(name))
    .sort((a, b) => a - b)
    .map((number) => {
      const dir = path.join(instancesDir, String(number).padStart(4, '0'));
      return { number, dir, status: readStatus(path.join(dir, FILES.status)) };
    });
}

function readStatus(file: string): InstanceStatus {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { problems: [] };
  }
  if (!isJsonObject(raw)) return { problems: [] };
  const positive = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined);
  const status: InstanceStatus = { problems: [] };
  const relayPid = positive(raw.relayPid);
  const serverPid = positive(raw.serverPid);
  if (relayPid !== undefined) status.relayPid = relayPid;
  if (serverPid !== undefined) status.serverPid = serverPid;
  if (typeof raw.spawnError === 'string') status.spawnError = raw.spawnError;
  if (isJsonObject(raw.startup) && typeof raw.startup.kind === 'string' && typeof raw.startup.message === 'string') {
    status.startup = { kind: raw.startup.kind, message: raw.startup.message };
  }
  if (Array.isArray(raw.problems)) {
    for (const entry of raw.problems) {
      if (isJsonObject(entry) && typeof entry.stage === 'string' && typeof entry.kind === 'string' && typeof entry.message === 'string') {
        status.problems.push({ stage: entry.stage, kind: entry.kind, message: entry.message });
      }
    }
  }
  if (isJsonObject(raw.exit) && (raw.exit.initiatedBy === 'client' || raw.exit.initiatedBy === 'relay' || raw.exit.initiatedBy === 'server')) {
    status.exit = {
      code: typeof raw.exit.code === 'number' ? raw.exit.code : null,
      signal: typeof raw.exit.signal === 'string' ? raw.exit.signal : null,
      initiatedBy: raw.exit.initiatedBy,
    };
  }
  return status;
}

/**
 * Reads every instance's evidence. `server` names the server adapter in failure messages, `logs` the
 * files a reader should look at.
 */
export function readStdioEvidence(instancesDir: string, server: string, logs: string): StdioEvidence {
  const failures: RunFailure[] = [];
  const fail = (stage: RunStage, kind: string, message: string): void => {
    if (!failures.some((f) => f.stage === stage && f.kind === kind && f.message.endsWith(message))) {
      failures.push({ stage, kind, message: `${stage}: server "${server}" via the stdio relay: ${message}; see ${logs}` });
    }
  };
  const instances = listInstances(instancesDir);
  // No instance: the client never started its server. Not a run failure by itself (a client may
  // report every row unsupported); each applicable row then fails on its missing receipt.
  if (instances.length === 0) return { instances, receipts: [], responses: [], sent: [], failures };

  const receipts: unknown[] = [];
  const responses: unknown[] = [];
  const sent: unknown[] = [];
  let receiptsUsable = true;
  let responsesUsable = true;
  let sentUsable = true;
  for (const instance of instances) {
    const { status } = instance;
    const which = instances.length > 1 ? `server process #${instance.number}: ` : '';
    if (status.spawnError !== undefined) {
      failures.push({ stage: 'spawn', kind: status.spawnError, party: 'server', message: `spawn: server "${server}": the stdio relay could not start its command (${status.spawnError}); see ${logs}` });
      receiptsUsable = responsesUsable = sentUsable = false;
      continue;
    }
    if (status.startup) fail('startup', status.startup.kind, `${which}${status.startup.message}`);
    for (const entry of status.problems) {
      if (entry.stage === 'startup') continue; // reported through status.startup
      fail(entry.stage === 'run' ? 'run' : 'receipts', entry.kind, `${which}${entry.message}`);
    }
    if (status.exit?.initiatedBy === 'server' && (status.exit.signal !== null || status.exit.code !== 0) && !status.startup) {
      const how = status.exit.signal !== null ? `signal ${status.exit.signal}` : `code ${status.exit.code}`;
      fail('run', 'server-crash', `${which}the server exited with ${how} while the client was still talking to it`);
    }
    const own = readInstanceReceipts(instance.dir, (kind, message) => fail('receipts', kind, `${which}${message}`));
    if (own === undefined) receiptsUsable = false;
    else receipts.push(...own);
    const records = readNdjson(path.join(instance.dir, FILES.responses), (kind, message) => fail('receipts', kind, `${which}${message}`), 'response record');
    if (records === undefined) responsesUsable = false;
    else responses.push(...records.map((record) => (isJsonObject(record) ? { ...record, instance: instance.number } : record)));
    const requests = readNdjson(path.join(instance.dir, FILES.requests), (kind, message) => fail('receipts', kind, `${which}${message}`), 'request record');
    if (requests === undefined) sentUsable = false;
    else sent.push(...requests);
  }
  return {
    instances,
    receipts: receiptsUsable ? receipts : undefined,
    responses: responsesUsable ? responses : undefined,
    sent: sentUsable ? sent : undefined,
    failures,
  };
}

/** The relay's appended receipts, or the harness's fuller watchdog snapshot when there is one. */
function readInstanceReceipts(dir: string, onFail: (kind: string, message: string) => void): unknown[] | undefined {
  const appended = readNdjson(path.join(dir, FILES.receipts), onFail, 'receipts record');
  const finalFile = path.join(dir, FILES.finalReceipts);
  if (!existsSync(finalFile)) return appended;
  const parsed = parseJsonText(readFileSync(finalFile, 'utf8'));
  if (parsed.ok && isJsonObject(parsed.value) && Array.isArray(parsed.value.requests) && parsed.value.requests.length >= (appended?.length ?? 0)) {
    return parsed.value.requests;
  }
  return appended;
}

/**
 * An NDJSON record file: a last line without its newline (a writer killed mid-write) is ignored; a
 * missing file or a garbled complete line is reported through `onFail` and yields undefined.
 */
function readNdjson(file: string, onFail: (kind: string, message: string) => void, what: string): unknown[] | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    onFail('missing', `${what} ${file} ${code === 'ENOENT' ? 'was not written' : `cannot be read (${code})`}`);
    return undefined;
  }
  const lines = text.split('\n');
  lines.pop();
  const records: unknown[] = [];
  for (const [index, line] of lines.entries()) {
    const parsed = parseJsonText(line);
    if (!parsed.ok) {
      onFail('invalid-json', `${what} ${file} line ${index + 1} is not valid JSON ${parsed.where}`);
      return undefined;
    }
    records.push(parsed.value);
  }
  return records;
}

/**
 * The run watchdog fired: a hung server answers nothing more, so its relay took no snapshot of what
 * it did receive. Takes one per live instance (bounded) before the trees are ended.
 */
export async function snapshotLiveInstances(instancesDir: string, timeoutMs: number): Promise<void> {
  await Promise.all(
    listInstances(instancesDir).map(async (instance) => {
      if (instance.status.serverPid === undefined || !groupAlive(instance.status.serverPid)) return;
      let controlEndpoint: string;
      try {
        const file = path.join(instance.dir, FILES.readiness);
        controlEndpoint = validateReadiness(JSON.parse(readFileSync(file, 'utf8')), file).controlEndpoint;
      } catch {
        return; // not ready (yet): nothing to ask
      }
      try {
        const requests = await getReceipts(controlEndpoint, { timeoutMs });
        const target = path.join(instance.dir, FILES.finalReceipts);
        writeFileSync(`${target}.tmp`, `${JSON.stringify({ requests, reason: 'run watchdog' })}\n`, { mode: 0o600 });
        renameSync(`${target}.tmp`, target);
      } catch {
        // the relay's own records stand
      }
    }),
  );
}

/** Ends every instance's server group (bounded) and any relay that outlived the client. */
export async function endInstances(instancesDir: string, graceMs: number, relayPath: string): Promise<void> {
  await Promise.all(
    listInstances(instancesDir).map(async ({ status }) => {
      const serverPid = status.serverPid;
      if (serverPid !== undefined && groupAlive(serverPid)) {
        if (!(await waitGroupGone(serverPid, graceMs))) {
          killGroup(serverPid, 'SIGTERM');
          if (!(await waitGroupGone(serverPid, graceMs))) killGroup(serverPid, 'SIGKILL');
          await waitGroupGone(serverPid, 1000);
        }
      }
      // The relay normally died with the client's group; only kill a pid that is still our relay.
      if (status.relayPid !== undefined && isRelayProcess(status.relayPid, relayPath)) killPid(status.relayPid, 'SIGKILL');
    }),
  );
}

function isRelayProcess(pid: number, relayPath: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(relayPath);
  } catch {
    return false; // gone, or no /proc: never signal a pid we cannot identify
  }
}
