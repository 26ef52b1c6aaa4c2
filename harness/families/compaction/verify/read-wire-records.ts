// Reads what the stdio recorder (../stdio-recorder.mjs) left in its instances folder: one
// StdioWireRecord per receiver process the sender spawned, in start order, and which of them were
// still running when the host exited (their status has no normal end).

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { invalidLine, type StdioWireRecord } from './wire-record.ts';

export interface WireRecords {
  records: StdioWireRecord[];
  /** Instance numbers whose receiver had not ended by itself (killed with the host's group, or never ended). */
  leftovers: number[];
  /** Instance numbers whose receiver could not be started. */
  spawnErrors: Array<{ instance: number; message: string }>;
}

export function readWireRecords(instancesDir: string): WireRecords {
  let names: string[];
  try {
    names = readdirSync(instancesDir).filter((name) => /^\d{4,}$/.test(name)).sort();
  } catch {
    return { records: [], leftovers: [], spawnErrors: [] };
  }
  const out: WireRecords = { records: [], leftovers: [], spawnErrors: [] };
  for (const name of names) {
    const dir = path.join(instancesDir, name);
    const instance = Number(name);
    const argv = readJson(path.join(dir, 'argv.json'));
    const args = Array.isArray(argv) ? argv.filter((a): a is string => typeof a === 'string') : [];
    const at = args.indexOf('stdio');
    const scope = at >= 0 ? args[at + 1] : undefined;
    const probe = at >= 0 && args[at + 2] === 'stdio';
    out.records.push({ instance, scope, probe, requests: readLines(path.join(dir, 'in.ndjson')), replies: readLines(path.join(dir, 'out.ndjson')) });
    const status = readJson(path.join(dir, 'status.json')) as { end?: { code?: unknown; killed?: unknown }; spawnError?: unknown } | undefined;
    if (typeof status?.spawnError === 'string') out.spawnErrors.push({ instance, message: status.spawnError });
    else if (!status?.end || status.end.killed !== undefined) out.leftovers.push(instance);
  }
  return out;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function readLines(file: string): unknown[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as unknown;
      } catch {
        return invalidLine(line);
      }
    });
}
