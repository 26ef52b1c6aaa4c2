// The harness's transparent relay between a stdio client adapter and the real stdio server adapter.
//
// Plain ESM JavaScript so it starts fast under plain `node`. The client is given
//   serverCommand = [node, stdio-relay.mjs, '--relay', RELAY_SPEC_JSON]
// and appends `--config SERVER_CONFIG` itself. The relay spec (written by harness/runs/client-run.ts):
//   { command: string[], cwd, serverLogFile, relayLogFile, instancesDir,
//     barriers: {[requestId]: barrier}, readinessTimeoutMs, controlTimeoutMs, barrierTimeoutMs, graceMs }
//
// A client may start its server many times in one run (one SDK restarts it after every negative row),
// so every relay process is one *instance* of the run's server: it claims the next free numbered
// folder `instancesDir/NNNN/` (mkdir is atomic) and keeps all of that instance's evidence there, so
// the harness can take the union over every instance afterwards (stdio-evidence.ts):
//   config.json        the server config the real server gets: the client's, with the readiness file
//                      moved into the instance folder (so a restarted server never sees a stale one)
//   readiness.json     written by the real server
//   receipts.ndjson    one received request per line, appended from GET /receipts before each
//                      scenario response is forwarded (so the evidence never depends on the client
//                      shutting the server down politely: it may SIGKILL the relay right after)
//   requests.ndjson    every line the client sent, parsed ({invalidJson:true} for one that is not
//                      JSON): what the client really put on the wire, to tell its faults from the server's
//   responses.ndjson   every response line forwarded to the client (see below)
//   status.json        {relayPid, serverPid?, spawnError?, startup?, problems:[...], exit?}
//
// - Spawns `command + --config INSTANCE_CONFIG` in `cwd`, in its own process group, stderr appended
//   to serverLogFile (shared by every instance), and records {relayPid, serverPid} in status.json at
//   once so the harness can always kill that group.
// - Forwards client stdin → server stdin and server stdout → client stdout byte for byte.
// - Copies the real server's readiness file, unchanged, to the path the client's server config names
//   once the server is ready (removing a previous instance's copy at start), so a client that waits
//   for readiness sees its own server's.
// - Barriers: when the client sends a hooks/intercept request whose id has a barrier, waits (bounded)
//   until the server's receipts hold that request, then POSTs /release {barrier}.
// - Records every response line it forwards to responses.ndjson, paired with the oldest request the
//   client sent that is still unanswered (the stdio binding allows one outstanding request), never by
//   its own id, because scripted responses may carry a deliberately wrong id. Records:
//     {requestId, method, response}         the parsed response line to that request
//     {requestId, method, invalidJson:true} a line that is not JSON
//     {unsolicited:true, response | invalidJson:true}  a line while no request was pending
//     {overflow:true}                       written once when the file reaches its size bound
//   Requests are lines with a string `method` and an `id` key; notifications get no response.
// - When the client closes stdin or dies: a last receipts snapshot, close the server's stdin, wait
//   graceMs, SIGTERM the server's group, SIGKILL after graceMs, exit. When the server exits first:
//   SIGKILL what is left of its group, record how it exited (status.exit: initiatedBy "server" when
//   neither the client nor the relay asked it to), and exit with its code (1 for a signal exit).
// Problems are written in our own words (never adapter output) and logged to relayLogFile.

import { spawn } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import { appendFileSync, closeSync, openSync, readFileSync, renameSync, rmSync, watch, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';

import { claimInstanceDir } from './instance-dir.mjs';
import { ReceiptTail } from './receipt-tail.mjs';

const argv = process.argv.slice(2);
function arg(name) {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : undefined;
}
const specFile = arg('--relay');
const serverConfigFile = arg('--config');

let relayLog = null;
let instanceName = '?';
function log(message) {
  const line = `[ahp-relay ${instanceName} ${new Date().toISOString()}] ${message}\n`;
  try {
    if (relayLog) appendFileSync(relayLog, line, { mode: 0o600 });
    else process.stderr.write(line);
  } catch {
    // nowhere left to log
  }
}

if (!specFile || !serverConfigFile) {
  log('usage: stdio-relay.mjs --relay RELAY_SPEC.json --config SERVER_CONFIG.json');
  process.exit(2);
}

let spec;
let serverConfig;
try {
  spec = JSON.parse(readFileSync(specFile, 'utf8'));
  relayLog = spec.relayLogFile ?? null;
  serverConfig = JSON.parse(readFileSync(serverConfigFile, 'utf8'));
} catch (error) {
  log(`cannot read the relay spec or server config: ${error.message}`);
  process.exit(2);
}

const graceMs = spec.graceMs ?? 1000;
const controlTimeoutMs = spec.controlTimeoutMs ?? 5000;
const barriers = new Map(Object.entries(spec.barriers ?? {}));

function writeAtomic(target, text) {
  const tmp = `${target}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, target);
}

// ----- this instance --------------------------------------------------------------------------------
let instanceDir;
try {
  const claimed = claimInstanceDir(spec.instancesDir);
  instanceDir = claimed.dir;
  instanceName = `#${claimed.number}`;
} catch (error) {
  log(`cannot create an instance folder in ${spec.instancesDir}: ${error.message}`);
  process.exit(2);
}
const files = {
  config: path.join(instanceDir, 'config.json'),
  readiness: path.join(instanceDir, 'readiness.json'),
  receipts: path.join(instanceDir, 'receipts.ndjson'),
  requests: path.join(instanceDir, 'requests.ndjson'),
  responses: path.join(instanceDir, 'responses.ndjson'),
  status: path.join(instanceDir, 'status.json'),
};
const clientReadinessFile = typeof serverConfig.readinessFile === 'string' ? serverConfig.readinessFile : undefined;

const status = { relayPid: process.pid, problems: [] };
function saveStatus() {
  try {
    writeAtomic(files.status, `${JSON.stringify(status)}\n`);
  } catch (error) {
    log(`cannot write the status file: ${error.message}`);
  }
}
function problem(stage, kind, message) {
  log(`${stage}/${kind}: ${message}`);
  if (status.problems.length < 20) status.problems.push({ stage, kind, message });
  saveStatus();
}
saveStatus();

// The three records stay open for appending: a line is written with one write(2) each time (in the
// kernel at once, so it survives a SIGKILL of the relay right after), instead of an open, a write and
// a close per line, which cost the relay more CPU than the forwarding itself on a busy machine.
const records = {};
function appendRecord(name, text) {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length; ) at += writeSync(records[name], bytes, at);
}
try {
  for (const name of ['receipts', 'requests', 'responses']) records[name] = openSync(files[name], 'w', 0o600);
  writeAtomic(files.config, `${JSON.stringify({ ...serverConfig, readinessFile: files.readiness })}\n`);
  // A previous instance's readiness copy must not tell the client that this one is ready.
  if (clientReadinessFile) rmSync(clientReadinessFile, { force: true });
} catch (error) {
  log(`cannot prepare the instance folder: ${error.message}`);
  process.exit(2);
}

// ----- server ---------------------------------------------------------------------------------------
let serverLogFd = 'ignore';
try {
  serverLogFd = openSync(spec.serverLogFile, 'a', 0o600);
} catch (error) {
  log(`cannot open the server log: ${error.message}`);
}
const [file, ...args] = spec.command;
let server;
try {
  server = spawn(file, [...args, '--config', files.config], {
    cwd: spec.cwd,
    stdio: ['pipe', 'pipe', serverLogFd],
    detached: true,
    windowsHide: true,
  });
} catch (error) {
  spawnFailed(error);
}

// Tells the harness (through the status file) that the server never started: a "spawn" failure.
function spawnFailed(error) {
  const code = error.code ?? 'ESPAWN';
  log(`spawn: cannot start the server command ${JSON.stringify(file)} in ${spec.cwd} (${code})`);
  status.spawnError = code;
  saveStatus();
  process.exit(127);
}
if (typeof serverLogFd === 'number') closeSync(serverLogFd);

let serverExited = false;
let clientGone = false;
let signalled = false;
function killServerGroup(signal) {
  if (server.pid === undefined) return;
  try {
    process.kill(-server.pid, signal);
  } catch {
    // group already empty
  }
}

server.once('error', (error) => {
  if (server.pid === undefined) spawnFailed(error);
});
if (server.pid !== undefined) {
  status.serverPid = server.pid;
  saveStatus();
}

// ----- readiness → control endpoint ------------------------------------------------------------------
let controlEndpointPromise = null;
function controlEndpoint() {
  controlEndpointPromise ??= new Promise((resolve) => {
    const timeoutMs = spec.readinessTimeoutMs ?? 10_000;
    let done = false;
    let watcher;
    const finish = (value) => {
      if (done) return;
      done = true;
      clearInterval(poll);
      clearTimeout(timer);
      watcher?.close();
      resolve(value);
    };
    const check = () => {
      if (done) return;
      let text;
      let readiness;
      try {
        text = readFileSync(files.readiness, 'utf8');
        readiness = JSON.parse(text);
      } catch {
        return; // not there yet (or not complete yet)
      }
      if (!readiness || typeof readiness.controlEndpoint !== 'string') return;
      if (clientReadinessFile) {
        try {
          writeAtomic(clientReadinessFile, text);
        } catch (error) {
          log(`cannot copy the readiness file for the client: ${error.message}`);
        }
      }
      finish(readiness.controlEndpoint);
    };
    const poll = setInterval(check, 20);
    const timer = setTimeout(() => {
      if (!status.startup) {
        status.startup = { kind: 'timeout', message: `startup watchdog fired after ${timeoutMs} ms: readiness file ${files.readiness} was not written` };
        problem('startup', 'timeout', status.startup.message);
      }
      finish(null);
      // The startup watchdog is the run's verdict on this server: end it, so the client fails now
      // instead of waiting out its run watchdog on a server that never came up.
      killServerGroup('SIGTERM');
      setTimeout(() => killServerGroup('SIGKILL'), graceMs).unref();
    }, timeoutMs);
    server.once('exit', () => {
      check();
      finish(null);
    });
    try {
      watcher = watch(instanceDir, check);
      watcher.on('error', () => undefined);
    } catch {
      // poll only
    }
    check();
  });
  return controlEndpointPromise;
}
controlEndpoint(); // start watching right away

// Pooled keep-alive connections to the control endpoint, over node:http: the relay asks for receipts
// before every response it forwards, and fetch's per-request machinery cost more CPU than the request
// itself. A request that goes out on a pooled connection the server closes at that moment (its idle
// timeout) resets before any answer: it is sent again, on a fresh connection once the stale ones are used up.
const controlAgents = { 'http:': new http.Agent({ keepAlive: true, maxSockets: 4 }), 'https:': new https.Agent({ keepAlive: true, maxSockets: 4 }) };

/** One bounded control request: `{status, bytes}`, or `{failure}` naming why there is no answer. */
async function controlRequest(method, url, body, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  // Each resend uses up one stale pooled connection; a fresh connection never asks for another.
  for (;;) {
    const answer = await controlAttempt(method, url, body, Math.max(1, deadline - Date.now()));
    if (!answer.resend) return answer;
    if (Date.now() >= deadline) return { failure: answer.failure };
  }
}

function controlAttempt(method, url, body, timeoutMs) {
  return new Promise((resolve) => {
    const transport = url.protocol === 'https:' ? https : http;
    const agent = controlAgents[url.protocol];
    if (agent === undefined) return resolve({ failure: `unsupported scheme ${url.protocol}` });
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    let settled = false;
    const settle = (value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const request = transport.request(url, {
      method,
      agent,
      headers: payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': payload.length },
    });
    const timer = setTimeout(() => {
      settle({ failure: 'timeout' });
      request.destroy();
    }, timeoutMs);
    let answered = false;
    request.on('error', (error) => {
      const code = error.code ?? error.name;
      settle(!answered && request.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE') ? { resend: true, failure: code } : { failure: code });
    });
    request.on('response', (response) => {
      answered = true;
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('error', (error) => settle({ failure: error.code ?? error.name }));
      response.on('end', () => settle({ status: response.statusCode ?? 0, bytes: Buffer.concat(chunks) }));
    });
    request.end(payload);
  });
}

async function controlCall(method, route, body, timeoutMs = controlTimeoutMs, { raw = false } = {}) {
  const endpoint = await controlEndpoint();
  if (endpoint === null) return { ok: false, why: 'the server never became ready' };
  const base = endpoint.endsWith('/') ? endpoint : `${endpoint}/`;
  let url;
  try {
    url = new URL(route, base);
  } catch {
    return { ok: false, why: `${method} /${route} failed (the control endpoint is not a URL)` };
  }
  const answer = await controlRequest(method, url, body, timeoutMs);
  if (answer.failure !== undefined) return { ok: false, why: `${method} /${route} failed (${answer.failure})` };
  if (answer.status < 200 || answer.status > 299) return { ok: false, why: `${method} /${route} answered HTTP ${answer.status}` };
  if (raw) return { ok: true, bytes: answer.bytes };
  try {
    return { ok: true, body: JSON.parse(answer.bytes.toString('utf8')) };
  } catch {
    return { ok: false, why: `${method} /${route} answered a body that is not JSON` };
  }
}

// ----- receipts: delta snapshots ---------------------------------------------------------------------
const receiptTail = new ReceiptTail();
let snapshotChain = Promise.resolve();
/** Appends the receipts the server reports beyond those already recorded. Serialised. */
function snapshot(reason, timeoutMs) {
  snapshotChain = snapshotChain.then(() => takeSnapshot(reason, timeoutMs));
  return snapshotChain;
}
async function takeSnapshot(reason, timeoutMs) {
  if (serverExited) return;
  const known = receiptTail.count;
  const answer = await controlCall('GET', 'receipts', undefined, timeoutMs, { raw: true });
  if (!answer.ok) return problem('receipts', 'snapshot', `${answer.why} (${reason})`);
  const read = receiptTail.read(answer.bytes);
  if (!read.ok && read.kind === 'not-json') return problem('receipts', 'snapshot', `GET /receipts answered a body that is not JSON (${reason})`);
  if (!read.ok && read.kind === 'invalid') return problem('receipts', 'invalid', `GET /receipts: field "requests": expected an array (${reason})`);
  if (!read.ok) return problem('receipts', 'reset', `GET /receipts returned ${read.count} requests after ${known} earlier ones (${reason})`);
  if (read.fresh.length === 0) return;
  try {
    appendRecord('receipts', read.fresh.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
  } catch (error) {
    log(`cannot append to the receipts file: ${error.message}`);
  }
}

// ----- barriers ---------------------------------------------------------------------------------------
function receiptId(receipt) {
  if (!receipt || typeof receipt !== 'object') return undefined;
  const envelope = !('jsonrpc' in receipt) && receipt.message && typeof receipt.message === 'object' ? receipt.message : receipt;
  if (typeof envelope.id === 'string' || typeof envelope.id === 'number') return String(envelope.id);
  return undefined;
}
async function releaseWhenReceived(id, barrier) {
  const deadline = Date.now() + (spec.barrierTimeoutMs ?? 60_000);
  for (;;) {
    if (serverExited || clientGone) return;
    const answer = await controlCall('GET', 'receipts');
    if (answer.ok && Array.isArray(answer.body?.requests) && answer.body.requests.some((r) => receiptId(r) === id)) break;
    if (Date.now() > deadline) {
      return problem('run', 'barrier', `the server did not record the request of "${id}" within ${spec.barrierTimeoutMs ?? 60_000} ms, so barrier ${JSON.stringify(barrier)} was not released`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const released = await controlCall('POST', 'release', { barrier });
  if (!released.ok) problem('run', 'barrier', `POST /release for barrier ${JSON.stringify(barrier)}: ${released.why}`);
}

// ----- the response record (see the header) -----------------------------------------------------------
const MAX_RESPONSE_RECORD_BYTES = 64 * 1024 * 1024;
const pendingRequests = []; // {id, method} of requests sent and not yet answered, oldest first
let responseRecordBytes = 0;
let responseRecordFull = false;

const MAX_REQUEST_RECORD_BYTES = 64 * 1024 * 1024;
let requestRecordBytes = 0;
function recordRequest(line) {
  if (requestRecordBytes > MAX_REQUEST_RECORD_BYTES) return;
  requestRecordBytes += Buffer.byteLength(line);
  try {
    appendRecord('requests', line);
  } catch (error) {
    log(`cannot append to the requests file: ${error.message}`);
  }
}

function noteRequest(buffer) {
  if (buffer.length === 0 || buffer.toString('utf8').trim() === '') return;
  const text = buffer.toString('utf8');
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    recordRequest(`${JSON.stringify({ invalidJson: true })}\n`);
    return; // the server answers a line it cannot parse (if at all) with an error: not a scenario's
  }
  // The line as the client sent it (valid JSON, one line), not re-serialised.
  recordRequest(`${text}\n`);
  if (value && typeof value === 'object' && !Array.isArray(value) && typeof value.method === 'string' && 'id' in value) {
    pendingRequests.push({ id: value.id, method: value.method });
    if (value.method === 'hooks/intercept' && (typeof value.id === 'string' || typeof value.id === 'number')) {
      const barrier = barriers.get(String(value.id));
      if (barrier !== undefined) void releaseWhenReceived(String(value.id), barrier);
    }
  }
}

function recordResponse(buffer, request) {
  const pairing = request === undefined ? { unsolicited: true } : { requestId: request.id, method: request.method };
  // The line without its line end (the record is one line per response).
  const text = buffer.toString('utf8').replace(/\r?\n$/, '');
  let valid = true;
  try {
    JSON.parse(text);
  } catch {
    valid = false;
  }
  if (responseRecordFull) return;
  // A valid response goes into the record as the server wrote it (one line of JSON), not re-serialised.
  const head = JSON.stringify(pairing).slice(0, -1);
  let line = valid ? `${head},"response":${text}}\n` : `${JSON.stringify({ ...pairing, invalidJson: true })}\n`;
  if (responseRecordBytes + Buffer.byteLength(line) > MAX_RESPONSE_RECORD_BYTES) {
    responseRecordFull = true;
    line = `${JSON.stringify({ overflow: true })}\n`;
    log(`responses: the record reached ${MAX_RESPONSE_RECORD_BYTES} bytes; later responses are not recorded`);
  }
  try {
    appendRecord('responses', line);
    responseRecordBytes += Buffer.byteLength(line);
  } catch (error) {
    log(`cannot append to the responses file: ${error.message}`);
  }
}

// ----- client stdin → server stdin (byte for byte; ids noted on the side) -------------------------
let inputRest = Buffer.alloc(0);
server.stdin.on('error', (error) => log(`server stdin: ${error.code ?? error.message}`));
process.stdin.on('data', (chunk) => {
  server.stdin.write(chunk);
  inputRest = Buffer.concat([inputRest, chunk]);
  let newline;
  while ((newline = inputRest.indexOf(0x0a)) >= 0) {
    const line = inputRest.subarray(0, newline);
    inputRest = inputRest.subarray(newline + 1);
    noteRequest(line);
  }
});
process.stdin.on('end', () => void clientClosed('the client closed stdin'));
process.stdin.on('error', () => void clientClosed('the client stdin broke'));

async function clientClosed(why) {
  if (clientGone) return;
  clientGone = true;
  log(`${why}; stopping the server`);
  if (!serverExited) await snapshot('final', controlTimeoutMs);
  try {
    server.stdin.end();
  } catch {
    // already closed
  }
  setTimeout(() => {
    killServerGroup('SIGTERM');
    setTimeout(() => killServerGroup('SIGKILL'), graceMs).unref();
  }, graceMs).unref();
}

// ----- server stdout → client stdout (snapshot before each scenario response) -----------------------
async function forward(buffer) {
  if (buffer.length === 0) return;
  if (!process.stdout.write(buffer)) {
    await new Promise((resolve) => {
      process.stdout.once('drain', resolve);
      process.stdout.once('error', resolve);
    });
  }
}

process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') void clientClosed('the client closed our stdout');
});

async function pump() {
  let rest = Buffer.alloc(0);
  for await (const chunk of server.stdout) {
    rest = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
    let newline;
    while ((newline = rest.indexOf(0x0a)) >= 0) {
      const line = rest.subarray(0, newline + 1);
      rest = rest.subarray(newline + 1);
      // Every line answers the oldest pending request: a scripted response may lack its id, carry a
      // wrong one or even a `method` member, and a server may only ever write responses in core.
      const request = pendingRequests.shift();
      if (request?.method === 'hooks/intercept') await snapshot(`before the response to ${JSON.stringify(request.id)}`, controlTimeoutMs);
      recordResponse(line, request);
      await forward(line);
    }
  }
  if (rest.length > 0) recordResponse(rest, pendingRequests.shift());
  await forward(rest);
}

const pumped = pump().catch((error) => log(`relay: server stdout: ${error.message}`));

server.once('exit', async (code, signal) => {
  serverExited = true;
  killServerGroup('SIGKILL'); // leftovers of the server's group
  await pumped;
  const how = signal ? `signal ${signal}` : `code ${code}`;
  const initiatedBy = signalled || status.startup ? 'relay' : clientGone ? 'client' : 'server';
  status.exit = { code, signal, initiatedBy };
  log(`server exited (${how}; ${initiatedBy === 'server' ? 'on its own' : `after the ${initiatedBy} ended it`})`);
  if (!status.startup && (await controlEndpoint()) === null) {
    status.startup = { kind: 'exited', message: `server exited with ${how} before writing its readiness file ${files.readiness}` };
    problem('startup', 'exited', status.startup.message);
  }
  saveStatus();
  process.stdout.end(() => process.exit(signal ? 1 : (code ?? 1)));
  setTimeout(() => process.exit(signal ? 1 : (code ?? 1)), 1000).unref();
});

// Killed (the client's group is being ended, or the client stops its server): take a last quick
// snapshot — the evidence of what a hung server did receive — then end the server's group and exit.
for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(name, async () => {
    if (signalled) return;
    signalled = true;
    const budget = Math.max(50, Math.min(Math.floor(graceMs / 2), 500));
    const hardStop = setTimeout(() => {
      killServerGroup('SIGKILL');
      process.exit(1);
    }, budget + Math.min(graceMs, 500));
    if (!serverExited) await snapshot(`on ${name}`, budget);
    killServerGroup('SIGTERM');
    setTimeout(() => {
      killServerGroup('SIGKILL');
      clearTimeout(hardStop);
      process.exit(1);
    }, Math.min(graceMs, 500));
  });
}
