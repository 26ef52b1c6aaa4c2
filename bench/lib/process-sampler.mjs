// The grid bench's process sampler, in a process of its own at the lowest CPU priority (nice 19), so
// that reading /proc does not take CPU from the run it measures: in the bench's own process, sampling
// every 50 ms cost 6-10 % of a core, stretched the wall time and inflated the utilisation ratio.
//
//   node process-sampler.mjs ROOT INTERVAL_MS ANCESTOR_PID [ADAPTER_DIR...]   — prints `ready` once it knows which processes were
//   there before (start the measured run only then), samples until stdin ends, then prints one JSON
//   line {"byKind": {"adapter": ms, "vitest main": ms, ...}} for the processes that appeared since.
//
// Plain JavaScript: it starts under plain `node`, before the run it measures.

import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [root, intervalArg, ancestorArg, ...adapterDirs] = process.argv.slice(2);
// Only descendants of this process count (the bench's): other work on a shared machine starts
// processes too. A process is remembered as ours once seen with an ancestor of ours, so one that is
// later reparented (a detached supervisor's child) still counts.
const ours = new Set([String(ancestorArg)]);
// Processes running in one of these folders are adapter processes (default: the reference adapter's).
const ADAPTER_DIRS = adapterDirs.length > 0 ? adapterDirs : [path.join(root, 'adapters', 'reference')];
const intervalMs = Number(intervalArg ?? 100);
const CLOCK_TICKS = 100; // USER_HZ on Linux

try {
  os.setPriority(19);
} catch {
  // not allowed here: sample anyway
}

/** `adapter`, or the harness part a process belongs to (adapter.json commands run in an adapter's folder). */
function classify(cmdline, cwd) {
  if (cmdline.includes('supervisor.mjs')) return 'supervisors';
  if (cmdline.includes('stdio-relay.mjs')) return 'stdio relays';
  if (ADAPTER_DIRS.some((dir) => cwd === dir || cwd.startsWith(dir + path.sep))) return 'adapter';
  if (/vitest\.mjs/.test(cmdline)) return 'vitest main';
  if (/vitest/.test(cmdline)) return 'vitest workers';
  return 'other';
}

const pids = () => readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
const before = new Set(pids());
const seen = new Map();

function sample() {
  for (const entry of pids().sort((a, b) => Number(a) - Number(b))) {
    if (before.has(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (!ours.has(entry)) {
        if (!ours.has(fields[1])) continue; // fields[1]: the parent pid
        ours.add(entry);
      }
      const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
      // Classified anew each time: a child caught between fork and exec still shows its parent's
      // command. An exiting process (a zombie) shows none: it keeps what it was.
      const known = seen.get(entry);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'latin1').replace(/\0/g, ' ');
      const kind = cmdline === '' && known ? known.kind : classify(cmdline, readlinkSync(`/proc/${entry}/cwd`));
      seen.set(entry, { cpuMs: Math.max(known?.cpuMs ?? 0, cpuMs), kind });
    } catch {
      // gone meanwhile
    }
  }
}

const timer = setInterval(sample, intervalMs);
process.stdout.write('ready\n');
process.stdin.resume();
process.stdin.on('end', () => {
  clearInterval(timer);
  const byKind = {};
  for (const { kind, cpuMs } of seen.values()) byKind[kind] = (byKind[kind] ?? 0) + cpuMs;
  process.stdout.write(`${JSON.stringify({ byKind })}\n`);
});
