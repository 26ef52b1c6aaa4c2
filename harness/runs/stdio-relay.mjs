// The harness's transparent relay between a stdio client adapter and the real stdio server adapter.
//
// Plain ESM JavaScript so it starts fast under plain `node`. The client is given
//   serverCommand = [node, stdio-relay.mjs, '--relay', RELAY_SPEC_JSON]
// and appends `--config SERVER_CONFIG` itself. The relay spec (written by harness/runs/client-run.ts):
//   { command: string[], cwd, serverLogFile, relayLogFile, receiptsFile, responsesFile?, pidFile,
//     expectedIds: string[], readinessTimeoutMs, controlTimeoutMs, graceMs }
//
// - Spawns `command + --config SERVER_CONFIG` in `cwd`, in its own process group, stderr → serverLogFile,
//   and registers {relayPid, serverPid} in pidFile so the harness can always kill that group.
// - Forwards client stdin → server stdin and server stdout → client stdout byte for byte (NDJSON;
//   no re-encoding, no extra envelope).
// - Learns the control endpoint from the server's readiness file (named in the server config), bounded.
// - Before forwarding the response to the client's last scenario request (paired with its request
//   by order, as scripted responses may carry wrong ids) it GETs /receipts and writes the snapshot
//   atomically to receiptsFile: {requests:[...], snapshots:n}. So receipt evidence never depends on
//   the client shutting the server down politely (a client may SIGKILL the relay right after). A final snapshot is attempted when the
//   client closes stdin or the relay is signalled. Snapshot failures are written as {error:"..."} (our own words, never adapter
//   output) as {error, stage:"startup"|"receipts"} unless a snapshot already exists, and logged to
//   relayLogFile. A server command that cannot be spawned is recorded as {relayPid, spawnError} in
//   pidFile.
// - Records every response line it forwards to responsesFile (NDJSON, one record appended per line,
//   created empty at start), so the harness can check that the client saw each scenario's scripted
//   response and not one the server made up. A response is paired with the oldest request the client
//   sent that is still unanswered (the stdio binding allows one outstanding request), never by its own
//   id, because scripted responses may carry a deliberately wrong id. Records:
//     {requestId, method, response}         the parsed response line to that request
//     {requestId, method, invalidJson:true} a line that is not JSON
//     {unsolicited:true, response | invalidJson:true}  a line while no request was pending
//     {overflow:true}                       written once when the file reaches its size bound; no
//                                           records follow
//   Requests are lines with a string `method` and an `id` key; notifications (no id) get no response.
// - When the client closes stdin or dies: close the server's stdin, wait graceMs, SIGTERM the
//   server's group, SIGKILL after graceMs, exit. When the server exits first: SIGKILL what is left of
//   its group and exit with its code (1 for a signal exit).

import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, openSync, readFileSync, renameSync, watch, writeFileSync } from 'node:fs';
import path from 'node:path';

const argv = process.argv.slice(2);
function arg(name) {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : undefined;
}
const specFile = arg('--relay');
const serverConfigFile = arg('--config');

let relayLog = null;
function log(message) {
  const line = `[ahp-relay ${new Date().toISOString()}] ${message}\n`;
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
const expectedIds = new Set((spec.expectedIds ?? []).map(String));
let interceptRequestsSent = 0;
const readinessFile = serverConfig.readinessFile;

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
  server = spawn(file, [...args, '--config', serverConfigFile], {
    cwd: spec.cwd,
    stdio: ['pipe', 'pipe', serverLogFd],
    detached: true,
    windowsHide: true,
  });
} catch (error) {
  spawnFailed(error);
}

// Tells the harness (through the pid file) that the server never started: a "spawn" failure.
function spawnFailed(error) {
  const code = error.code ?? 'ESPAWN';
  log(`spawn: cannot start the server command ${JSON.stringify(file)} in ${spec.cwd} (${code})`);
  try {
    writeAtomic(spec.pidFile, `${JSON.stringify({ relayPid: process.pid, spawnError: code })}\n`);
  } catch {
    // the harness will report missing receipts instead
  }
  process.exit(127);
}
if (typeof serverLogFd === 'number') closeSync(serverLogFd);

function writeAtomic(target, text) {
  const tmp = `${target}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, target);
}

let serverExited = false;
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
  try {
    writeAtomic(spec.pidFile, `${JSON.stringify({ relayPid: process.pid, serverPid: server.pid })}\n`);
  } catch (error) {
    log(`cannot write the pid file: ${error.message}`);
  }
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
      try {
        const readiness = JSON.parse(readFileSync(readinessFile, 'utf8'));
        if (readiness && typeof readiness.controlEndpoint === 'string') finish(readiness.controlEndpoint);
      } catch {
        // not there yet (or not complete yet)
      }
    };
    const poll = setInterval(check, 25);
    const timer = setTimeout(() => {
      log(`startup: readiness file ${readinessFile} not usable within ${timeoutMs} ms; no receipts can be taken`);
      // The startup watchdog is the run's verdict on this server: record it and end the server, so
      // the client fails now instead of waiting out its run watchdog on a server that never came up.
      recordStartupFailure('timeout', `startup watchdog fired after ${timeoutMs} ms: readiness file ${readinessFile} was not written`);
      finish(null);
      killServerGroup('SIGTERM');
      setTimeout(() => killServerGroup('SIGKILL'), graceMs).unref();
    }, timeoutMs);
    const stopOnExit = () => finish(null);
    server.once('exit', stopOnExit);
    try {
      watcher = watch(path.dirname(readinessFile), check);
      watcher.on('error', () => undefined);
    } catch {
      // poll only
    }
    check();
  });
  return controlEndpointPromise;
}
controlEndpoint(); // start watching right away

let snapshots = 0;
let haveGoodSnapshot = false;

/** A server that never became ready: the receipts file carries the startup failure instead. */
let startupFailed = false;
function recordStartupFailure(kind, problem) {
  if (startupFailed || haveGoodSnapshot) return;
  startupFailed = true;
  try {
    writeAtomic(spec.receiptsFile, `${JSON.stringify({ error: problem, stage: 'startup', kind })}\n`);
  } catch (error) {
    log(`cannot write the receipts file: ${error.message}`);
  }
}
async function snapshot(reason, timeoutMs = spec.controlTimeoutMs ?? 5000) {
  const endpoint = await controlEndpoint();
  let problem;
  let stage = 'receipts';
  if (endpoint === null) {
    stage = 'startup';
    problem = `readiness file ${readinessFile} was not usable, so /receipts could not be reached`;
  } else {
    const base = endpoint.endsWith('/') ? endpoint : `${endpoint}/`;
    try {
      const response = await fetch(new URL('receipts', base), {
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      if (response.status < 200 || response.status > 299) {
        problem = `GET /receipts answered HTTP ${response.status}`;
      } else {
        let body;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        if (!body || typeof body !== 'object' || !Array.isArray(body.requests)) {
          problem = 'GET /receipts: field "requests": expected an array';
        } else {
          snapshots += 1;
          writeAtomic(spec.receiptsFile, `${JSON.stringify({ requests: body.requests, snapshots, reason })}\n`);
          haveGoodSnapshot = true;
          return;
        }
      }
    } catch (error) {
      problem = `GET /receipts failed (${error.name === 'TimeoutError' ? 'timeout' : (error.cause?.code ?? error.name)})`;
    }
  }
  log(`receipts: ${problem}`);
  // Never replace a good snapshot (ours, or the harness's own at a watchdog) by an error record.
  if (!haveGoodSnapshot && !existsSync(spec.receiptsFile)) {
    try {
      writeAtomic(spec.receiptsFile, `${JSON.stringify({ error: problem, stage })}\n`);
    } catch (error) {
      log(`cannot write the receipts file: ${error.message}`);
    }
  }
}

function lineId(buffer) {
  try {
    const value = JSON.parse(buffer.toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value) && 'id' in value) {
      return { id: value.id === null ? null : String(value.id), isResponse: !('method' in value) };
    }
  } catch {
    // not JSON: forwarded as is
  }
  return undefined;
}

// ----- the response record (see the header) -----------------------------------------------------------
const MAX_RESPONSE_RECORD_BYTES = 64 * 1024 * 1024;
const pendingRequests = []; // {id, method} of requests sent and not yet answered, oldest first
let responseRecordBytes = 0;
let responseRecordFull = false;
if (spec.responsesFile) {
  try {
    writeFileSync(spec.responsesFile, '', { mode: 0o600 });
  } catch (error) {
    log(`cannot create the responses file: ${error.message}`);
  }
}

function noteRequest(buffer) {
  let value;
  try {
    value = JSON.parse(buffer.toString('utf8'));
  } catch {
    return; // the server answers a line it cannot parse (if at all) with an error: not a scenario's
  }
  if (value && typeof value === 'object' && !Array.isArray(value) && typeof value.method === 'string' && 'id' in value) {
    pendingRequests.push({ id: value.id, method: value.method });
    if (value.method === 'hooks/intercept') interceptRequestsSent += 1;
  }
}

function recordResponse(buffer) {
  let record;
  const request = pendingRequests.shift();
  const pairing = request === undefined ? { unsolicited: true } : { requestId: request.id, method: request.method };
  try {
    record = { ...pairing, response: JSON.parse(buffer.toString('utf8')) };
  } catch {
    record = { ...pairing, invalidJson: true };
  }
  if (!spec.responsesFile || responseRecordFull) return;
  let line = `${JSON.stringify(record)}\n`;
  if (responseRecordBytes + Buffer.byteLength(line) > MAX_RESPONSE_RECORD_BYTES) {
    responseRecordFull = true;
    line = `${JSON.stringify({ overflow: true })}\n`;
    log(`responses: the record reached ${MAX_RESPONSE_RECORD_BYTES} bytes; later responses are not recorded`);
  }
  try {
    appendFileSync(spec.responsesFile, line, { mode: 0o600 });
    responseRecordBytes += Buffer.byteLength(line);
  } catch (error) {
    log(`cannot append to the responses file: ${error.message}`);
  }
}

// ----- client stdin → server stdin (byte for byte; ids noted on the side) -------------------------
let inputRest = Buffer.alloc(0);
let clientGone = false;
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
  if (!serverExited && readinessSeen()) await snapshot('final');
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

function readinessSeen() {
  try {
    readFileSync(readinessFile);
    return true;
  } catch {
    return false;
  }
}

// ----- server stdout → client stdout (snapshot before responses that complete a scenario) ----------
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

/**
 * True for the response that answers the client's last scenario request (paired by order, since a
 * scripted response may carry a wrong id). One snapshot there is the whole run's evidence: a client
 * that dies earlier leaves rows missing, and the close/signal handlers and the harness's own
 * watchdog snapshot cover the rest.
 */
function answersFinalIntercept(line) {
  const parsed = lineId(line);
  return Boolean(
    parsed && parsed.isResponse && pendingRequests[0]?.method === 'hooks/intercept' && interceptRequestsSent >= expectedIds.size,
  );
}

async function pump() {
  let rest = Buffer.alloc(0);
  for await (const chunk of server.stdout) {
    rest = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
    let newline;
    while ((newline = rest.indexOf(0x0a)) >= 0) {
      const line = rest.subarray(0, newline + 1);
      rest = rest.subarray(newline + 1);
      if (answersFinalIntercept(line)) await snapshot('before the final response');
      recordResponse(line);
      await forward(line);
    }
  }
  if (rest.length > 0) recordResponse(rest);
  await forward(rest);
}

const pumped = pump().catch((error) => log(`relay: server stdout: ${error.message}`));

server.once('exit', async (code, signal) => {
  serverExited = true;
  killServerGroup('SIGKILL'); // leftovers of the server's group
  await pumped;
  const how = signal ? `signal ${signal}` : `code ${code}`;
  log(`server exited (${how})`);
  if (!readinessSeen()) recordStartupFailure('exited', `server exited with ${how} before writing its readiness file ${readinessFile}`);
  process.stdout.end(() => process.exit(signal ? 1 : (code ?? 1)));
  setTimeout(() => process.exit(signal ? 1 : (code ?? 1)), 1000).unref();
});

// Killed (the client's group is being ended by the harness): take a last quick snapshot — the
// evidence of what a hung server did receive — then end the server's group and exit.
let signalled = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, async () => {
    if (signalled) return;
    signalled = true;
    const budget = Math.max(50, Math.min(Math.floor(graceMs / 2), 500));
    const hardStop = setTimeout(() => {
      killServerGroup('SIGKILL');
      process.exit(1);
    }, budget + Math.min(graceMs, 500));
    if (!serverExited && readinessSeen()) await snapshot(`on ${signal}`, budget);
    killServerGroup('SIGTERM');
    setTimeout(() => {
      killServerGroup('SIGKILL');
      clearTimeout(hardStop);
      process.exit(1);
    }, Math.min(graceMs, 500));
  });
}
