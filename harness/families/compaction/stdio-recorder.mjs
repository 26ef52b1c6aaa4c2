// The harness's recorder between a compaction host and each stdio receiver it spawns. The host is
// given receiverCommand = [node, stdio-recorder.mjs, SPEC, <receiver wire argv>, schemaDir, storeDir,
// configPath] and appends `stdio <scope>` itself (the probe client one more `stdio`); the recorder
// runs the rest of its argv as the real receiver, in the host's process group (so a host killed on
// timeout takes its receivers with it), and passes stdin and stdout through byte for byte.
//
// Plain ESM JavaScript so it starts fast under plain `node`. SPEC is a JSON file {instancesDir}.
// Every recorder claims the next numbered folder `instancesDir/NNNN/` (mkdir is atomic) and keeps
// there what crossed the wire, so a verdict can tell which side changed what:
//   argv.json         the real receiver's argv (paths and the scope; never a token)
//   in.ndjson         every line the host wrote to the receiver, as written
//   out.ndjson        every line the receiver wrote to its stdout, as written
//   status.json       {recorderPid, receiverPid?, spawnError?, end?: {code, signal} | {killed: signal}}
// A status without `end` after the host exited means the receiver was still running then.

import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { claimInstanceDir } from '../../runs/instance-dir.mjs';

const [specFile, ...argv] = process.argv.slice(2);
let spec;
try {
  spec = JSON.parse(readFileSync(specFile, 'utf8'));
} catch (error) {
  process.stderr.write(`ahp stdio recorder: cannot read its spec ${specFile}: ${error.message}\n`);
  process.exit(2);
}
if (argv.length === 0) {
  process.stderr.write('ahp stdio recorder: no receiver command after the spec\n');
  process.exit(2);
}

const { dir } = claimInstanceDir(spec.instancesDir);
const file = (name) => path.join(dir, name);
const status = { recorderPid: process.pid };
function saveStatus() {
  const tmp = `${file('status.json')}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(status)}\n`, { mode: 0o600 });
  renameSync(tmp, file('status.json'));
}
writeFileSync(file('argv.json'), `${JSON.stringify(argv)}\n`, { mode: 0o600 });
writeFileSync(file('in.ndjson'), '', { mode: 0o600 });
writeFileSync(file('out.ndjson'), '', { mode: 0o600 });
saveStatus();

/** Appends each complete line of the stream to `target` as it passes; the unterminated rest at the end. */
function recordLines(target) {
  let pending = '';
  return {
    chunk(buffer) {
      pending += buffer.toString('utf8');
      let newline;
      while ((newline = pending.indexOf('\n')) >= 0) {
        appendFileSync(target, `${pending.slice(0, newline + 1)}`);
        pending = pending.slice(newline + 1);
      }
    },
    end() {
      if (pending !== '') appendFileSync(target, `${pending}\n`);
      pending = '';
    },
  };
}

const child = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
child.once('spawn', () => {
  status.receiverPid = child.pid;
  saveStatus();
});
child.once('error', (error) => {
  status.spawnError = `${error.code ?? 'error'}: ${error.message}`;
  status.end = { code: 127, signal: null };
  saveStatus();
  process.exit(127);
});

const incoming = recordLines(file('in.ndjson'));
process.stdin.on('data', (buffer) => {
  incoming.chunk(buffer);
  child.stdin.write(buffer);
});
process.stdin.on('end', () => {
  incoming.end();
  child.stdin.end();
});
child.stdin.on('error', () => undefined); // a receiver that exits early closes its stdin

const outgoing = recordLines(file('out.ndjson'));
child.stdout.on('data', (buffer) => {
  outgoing.chunk(buffer);
  process.stdout.write(buffer);
});

let stdoutDone = false;
let exit;
const finish = () => {
  if (!stdoutDone || exit === undefined) return;
  outgoing.end();
  status.end = exit;
  saveStatus();
  process.stdout.write('', () => process.exit(exit.code ?? 1));
};
child.stdout.on('end', () => {
  stdoutDone = true;
  finish();
});
child.once('exit', (code, signal) => {
  exit = { code, signal };
  finish();
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    status.end = { killed: signal };
    saveStatus();
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
    process.exit(signal === 'SIGTERM' ? 143 : 130);
  });
}
