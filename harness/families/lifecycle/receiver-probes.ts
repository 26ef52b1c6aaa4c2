// The HTTP receiver probes of LIFECYCLE-RULES §9, sent on the raw wire to a running lifecycle server:
// raw uploads with the independent upload credential, observe notifications with the client's event
// auth (oauth fetches a token, workload sends its assertion, mtls presents the client certificate);
// 5 s per request, redirects never followed. The first raw upload is the gate: without a 201 and an
// exact `{ref,size,sha256}` receipt nothing else is probed and every probe fails with that one error.
//
// Nothing here logs or returns a credential: results are labels, statuses and our own words.

import { Agent } from 'undici';

import type { ClientAuthSettings } from '../../auth/auth-settings.ts';
import { UPLOAD_TOKEN } from '../../auth/constants.ts';
import { describeAnswer, eventWire, probePost, type ProbeAnswer } from '../../auth/event-auth-wire.ts';
import { isJsonObject, type JsonObject } from '../../protocol/json.ts';
import { sha256Hex } from '../../protocol/sha256-hex.ts';
import type { LifecycleScenario } from '../../lifecycle-adapters/scenario-types.ts';
import type { ReceiverProbeFamily } from '../../lifecycle-adapters/receiver-probe-suite.ts';

/** The nine probes, in order, with the rules' verbatim labels. */
export const RECEIVER_PROBES = [
  { name: 'raw-upload', label: 'raw upload readiness' },
  { name: 'changed-bytes', label: 'changed bytes receive new immutable ref' },
  { name: 'missing-upload-credential', label: 'missing independent upload credential' },
  { name: 'wrong-upload-credential', label: 'wrong independent upload credential' },
  { name: 'original-ref-readable', label: 'original binary ref readable' },
  { name: 'missing-ref-rejected', label: 'missing readiness rejected' },
  { name: 'size-metadata-rejected', label: 'event size metadata rejected' },
  { name: 'hash-metadata-rejected', label: 'event hash metadata rejected' },
  { name: 'bytes-unchanged-after-negatives', label: 'negative reads did not mutate bytes' },
] as const;

export type ReceiverProbeName = (typeof RECEIVER_PROBES)[number]['name'];

/** Why the gate failed: every probe fails with this one error. */
export const UPLOAD_GATE_ERROR = 'upload must return 201 with receiver-assigned content-upload-receipt';

export interface ReceiverProbeTarget {
  /** The server's event endpoint (base URL or `…/intercept`), https under mtls. */
  endpoint: string;
  uploadEndpoint: string;
  /** The client config's `auth` of the server's mode: the event auth observes are sent with. */
  clientAuth: ClientAuthSettings;
  /** The rows the probe event is taken from: the first row's `requests.a` event. */
  rows: LifecycleScenario[];
  timeoutMs?: number;
}

/** Each probe's problem (`<label>: expected <x>, got <y>`), or undefined when it passed. */
export type ReceiverProbeResults = Record<ReceiverProbeName, string | undefined>;

/** 259 octets: every byte value 0–255, then 00 FF FE. */
export function rawProbeBytes(): Buffer {
  return Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from([0x00, 0xff, 0xfe])]);
}

export async function runReceiverProbes(target: ReceiverProbeTarget): Promise<ReceiverProbeResults> {
  const timeoutMs = target.timeoutMs ?? 5000;
  const wire = await eventWire(target.clientAuth, target.endpoint);
  try {
    const results = {} as ReceiverProbeResults;
    const raw = rawProbeBytes();
    const first = await upload(target.uploadEndpoint, raw, { token: UPLOAD_TOKEN }, timeoutMs);
    const receipt = exactReceipt(first, raw);
    if (receipt === undefined) {
      for (const probe of RECEIVER_PROBES) results[probe.name] = UPLOAD_GATE_ERROR;
      return results;
    }
    const expect = (name: ReceiverProbeName, expected: string, got: string, ok: boolean): void => {
      const label = RECEIVER_PROBES.find((probe) => probe.name === name)!.label;
      results[name] = ok ? undefined : `${label}: expected ${expected}, got ${got}`;
    };
    expect('raw-upload', '201 with an exact receipt', describeAnswer(first), true);

    const changedBytes = Buffer.from('changed bytes', 'utf8');
    const changed = await upload(target.uploadEndpoint, changedBytes, { token: UPLOAD_TOKEN }, timeoutMs);
    const changedReceipt = exactReceipt(changed, changedBytes);
    expect(
      'changed-bytes',
      '201 with an exact receipt and a new ref',
      changedReceipt === undefined ? describeAnswer(changed) : changedReceipt.ref === receipt.ref ? 'the same ref as the original bytes' : '201 with a new ref',
      changedReceipt !== undefined && changedReceipt.ref !== receipt.ref,
    );
    const missing = await upload(target.uploadEndpoint, raw, {}, timeoutMs);
    expect('missing-upload-credential', '401', describeAnswer(missing), missing.status === 401);
    const wrong = await upload(target.uploadEndpoint, raw, { token: 'wrong' }, timeoutMs);
    expect('wrong-upload-credential', '401', describeAnswer(wrong), wrong.status === 401);

    const event = probeEvent(target.rows);
    const observe = (body: JsonObject): Promise<ProbeAnswer> =>
      wire.observe({ jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft', event: withBody(event, body) } }, timeoutMs);
    const readable = await observe({ ref: receipt.ref });
    expect('original-ref-readable', '202/204 with an empty body', describeAnswer(readable), emptyAccept(readable));
    const neverUploaded = await observe({ ref: 'never-uploaded' });
    expect('missing-ref-rejected', '409', describeAnswer(neverUploaded), neverUploaded.status === 409);
    const wrongSize = await observe({ ref: receipt.ref, size: receipt.size + 1, sha256: receipt.sha256 });
    expect('size-metadata-rejected', '400', describeAnswer(wrongSize), wrongSize.status === 400);
    const wrongHash = await observe({ ref: receipt.ref, size: receipt.size, sha256: '0'.repeat(64) });
    expect('hash-metadata-rejected', '400', describeAnswer(wrongHash), wrongHash.status === 400);
    const again = await observe({ ref: receipt.ref });
    expect('bytes-unchanged-after-negatives', '202/204 with an empty body', describeAnswer(again), emptyAccept(again));
    return results;
  } finally {
    await wire.close();
  }
}

function emptyAccept(answer: ProbeAnswer): boolean {
  return (answer.status === 202 || answer.status === 204) && answer.body.length === 0;
}

/** The 201 receipt when it is exactly `{ref,size,sha256}` for `bytes` (ref a non-empty string). */
function exactReceipt(answer: ProbeAnswer, bytes: Buffer): { ref: string; size: number; sha256: string } | undefined {
  if (answer.status !== 201) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return undefined;
  }
  if (!isJsonObject(body) || Object.keys(body).sort().join() !== 'ref,sha256,size') return undefined;
  const sha256 = sha256Hex(bytes);
  if (typeof body.ref !== 'string' || body.ref === '' || body.size !== bytes.length || body.sha256 !== sha256) return undefined;
  return { ref: body.ref, size: bytes.length, sha256 };
}

/** The first row's `requests.a` event as `receiver-probe-event` with one attachment item. */
function probeEvent(rows: LifecycleScenario[]): JsonObject {
  const source = rows.find((row) => isJsonObject(row.requests.a))?.requests.a as JsonObject | undefined;
  const params = source && isJsonObject(source.params) ? source.params : undefined;
  if (!params || !isJsonObject(params.event)) throw new Error('receiver probes: the scenario file has no row with requests.a (the probe event is taken from it)');
  return { ...params.event, id: 'receiver-probe-event' };
}

function withBody(event: JsonObject, body: JsonObject): JsonObject {
  return { ...event, items: [{ id: 'receiver-probe-item', kind: 'attachment', mediaType: 'application/octet-stream', selection: 'body', body }] };
}

const uploadAgent = new Agent({ keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000 });

async function upload(endpoint: string, bytes: Buffer, credential: { token?: string }, timeoutMs: number): Promise<ProbeAnswer> {
  const headers: Record<string, string> = {
    'content-type': 'application/octet-stream',
    'content-length': String(bytes.length),
    'ahp-content-sha256': sha256Hex(bytes),
    ...(credential.token === undefined ? {} : { authorization: `Bearer ${credential.token}` }),
  };
  return probePost(endpoint, headers, bytes, uploadAgent, timeoutMs);
}

/** LIFECYCLE-RULES §9: uploads and body references; the probe event comes from the first row's requests.a. */
export function lifecycleReceiverProbes(rows: LifecycleScenario[]): ReceiverProbeFamily {
  return {
    suite: 'lifecycle',
    probes: RECEIVER_PROBES,
    run: (server, clientAuth) => runReceiverProbes({ endpoint: server.endpoint, uploadEndpoint: server.uploadEndpoint!, clientAuth, rows }),
  };
}
