// Process supervisor: the only way the harness starts adapter processes.
//
// Plain ESM JavaScript on purpose, so it starts fast under plain `node` (no TypeScript loader).
//
// Protocol (see harness/adapters/launch.ts):
// - stdin, first line: the JSON spec
//     {command: string[], cwd, env: {..}, stdinFile?, stdoutFile?, stderrFile?, passStdout?: boolean, graceMs}
//   `stdinFile` becomes the child's stdin (a plan the harness wrote); without it the child's stdin is empty.
//   The spec travels over stdin (not argv) so environment values never show up in `ps`.
// - stdin, later lines: `{"op":"stop","graceMs":N}` — terminate the child's group.
// - stdin EOF (the harness process or its worker died, or it asked): terminate the child's group.
// - fd 3 (status pipe), one JSON line per event:
//     {"event":"started","pid":N}
//     {"event":"spawn-error","code":"ENOENT","message":"..."}
//     {"event":"exit","code":N|null,"signal":"SIGTERM"|null}
//
// The child runs `detached` (its own process group, pgid = child pid). Termination = SIGTERM to the
// whole group, SIGKILL to the group after the grace period; the grace applies to the whole group (a
// leader dying first does not cut short the others' cleanup). When the group leader exits by itself,
// anything left in its group is SIGKILLed at once. The exit is reported only once the group is empty.
// A signal exit is reported as {code:null, signal}, never as 0.
//
// Escapes: a descendant may leave the group (setsid, its own `detached` spawn) and outlive it. Every
// process the child starts inherits its environment, which carries `AHP_SUPERVISED_TAG=<spec.tag>`;
// once the group is empty, tagged processes still alive get `escapeGraceMs` to end on their own (a
// server finishing after its stdin closed), then they and their groups are SIGKILLed and counted in
// the exit report: `{"event":"exit", ..., "leftovers": N}`.

import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';

const STATUS_FD = 3;
let child = null;
let terminating = false;
let reported = false;
let killTimer = null;

function status(event) {
  const line = `${JSON.stringify(event)}\n`;
  for (let attempt = 0; attempt < 1000; attempt++) {
    try {
      writeSync(STATUS_FD, line);
      return;
    } catch (error) {
      if (error && error.code === 'EAGAIN') continue;
      return; // the harness is gone: nobody to tell
    }
  }
}

function killGroup(signal) {
  if (!child || child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already empty
  }
}

// True while a live (non-zombie) member of the child's group exists. Zombies reparented to an init
// that reaps slowly must not hold the report back; /proc tells them apart on Linux.
function groupAlive() {
  try {
    process.kill(-child.pid, 0);
  } catch {
    return false;
  }
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === child.pid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
    } catch {
      // exited meanwhile
    }
  }
  return false;
}

/** Live (non-zombie) pids whose environment carries our tag. */
function taggedPids(tag) {
  if (!tag) return [];
  const needle = `AHP_SUPERVISED_TAG=${tag}`;
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z' || state === 'X') continue;
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(needle)) found.push(Number(entry));
    } catch {
      // exited meanwhile, or not ours to read
    }
  }
  return found;
}

/** Waits (bounded) for tagged escapees to end by themselves, then kills what is left; returns how many. */
async function endEscapes(tag, graceMs) {
  const deadline = Date.now() + graceMs;
  let alive = taggedPids(tag);
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    alive = taggedPids(tag);
  }
  for (const pid of alive) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // not a group leader, or gone
      }
    }
  }
  return alive.length;
}

let graceDeadline = 0;
function terminate(graceMs) {
  if (!child) {
    process.exit(0);
  }
  if (terminating) return;
  terminating = true;
  graceDeadline = Date.now() + Math.max(0, graceMs);
  killGroup('SIGTERM');
  killTimer = setTimeout(() => killGroup('SIGKILL'), Math.max(0, graceMs));
}

function start(spec) {
  const stdio = ['ignore', 'ignore', 'ignore'];
  const opened = [];
  const open = (file) => {
    const fd = openSync(file, 'a', 0o600);
    opened.push(fd);
    return fd;
  };
  try {
    let sharedFd = null;
    if (spec.stdinFile) {
      const fd = openSync(spec.stdinFile, 'r');
      opened.push(fd);
      stdio[0] = fd;
    }
    if (spec.stdoutFile && spec.stdoutFile === spec.stderrFile) sharedFd = open(spec.stdoutFile);
    if (spec.passStdout) stdio[1] = 'inherit';
    else if (spec.stdoutFile) stdio[1] = sharedFd ?? open(spec.stdoutFile);
    if (spec.stderrFile) stdio[2] = sharedFd ?? open(spec.stderrFile);
  } catch (error) {
    status({ event: 'spawn-error', code: error.code ?? 'EOPEN', message: `cannot open the stdin or log file: ${error.message}` });
    process.exit(1);
  }

  const [file, ...args] = spec.command;
  try {
    const env = spec.tag ? { ...spec.env, AHP_SUPERVISED_TAG: spec.tag } : spec.env;
    child = spawn(file, args, { cwd: spec.cwd, env, stdio, detached: true, windowsHide: true });
  } catch (error) {
    status({ event: 'spawn-error', code: error.code ?? 'ESPAWN', message: error.message });
    process.exit(1);
  }
  for (const fd of opened) closeSync(fd);

  child.once('error', (error) => {
    // Failed to spawn (ENOENT, EACCES, bad cwd): there is no process to wait for.
    if (child.pid === undefined && !reported) {
      reported = true;
      status({ event: 'spawn-error', code: error.code ?? 'ESPAWN', message: error.message });
      process.exit(1);
    }
  });
  child.once('spawn', () => {
    status({ event: 'started', pid: child.pid });
    if (terminating) killGroup('SIGTERM');
  });
  child.once('exit', (code, signal) => {
    let reporting = false;
    const report = async () => {
      if (reporting) return;
      reporting = true;
      killGroup('SIGKILL'); // leftovers of the group (grandchildren)
      if (killTimer) clearTimeout(killTimer);
      const leftovers = await endEscapes(spec.tag, spec.escapeGraceMs ?? spec.graceMs ?? 1000);
      if (!reported) {
        reported = true;
        status({ event: 'exit', code: signal ? null : code, signal: signal ?? null, leftovers });
      }
      process.exit(0);
    };
    if (!terminating) {
      void report(); // exited by itself: nothing else of the group may outlive it
      return;
    }
    // Being terminated: the rest of the group keeps its grace period (e.g. a relay stopping its
    // server) until it is empty or the SIGKILL timer fires.
    const poll = setInterval(() => {
      if (!groupAlive()) {
        clearInterval(poll);
        void report();
      }
    }, 20);
    if (killTimer) clearTimeout(killTimer);
    killTimer = setTimeout(() => {
      clearInterval(poll);
      void report();
    }, Math.max(0, graceDeadline - Date.now()));
  });
}

let buffered = '';
let spec = null;
let defaultGraceMs = 2000;

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let newline;
  while ((newline = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, newline);
    buffered = buffered.slice(newline + 1);
    if (line.trim() === '') continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      continue;
    }
    if (spec === null) {
      spec = message;
      if (typeof spec.graceMs === 'number') defaultGraceMs = spec.graceMs;
      start(spec);
    } else if (message && message.op === 'stop') {
      terminate(typeof message.graceMs === 'number' ? message.graceMs : defaultGraceMs);
    }
  }
});
// EOF or a broken pipe: the harness asked, or died. Either way the child's group must go.
process.stdin.on('end', () => terminate(defaultGraceMs));
process.stdin.on('error', () => terminate(defaultGraceMs));

// Ctrl-C reaches the supervisor (it shares the harness's process group; the child does not).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => terminate(Math.min(defaultGraceMs, 1000)));
}
