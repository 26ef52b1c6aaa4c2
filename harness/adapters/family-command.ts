// Finds the command a family launches for one adapter: the elicitation family's `elicitation`, the
// compaction family's `compactionWire` and `compaction` (ELICITATION-RULES §2, COMPACTION-RULES §2).
//
// A declared adapter.json key always wins (adapter-manifest.ts has validated it). Every SDK ships its
// adapter.json without these keys today, and the protocol's runners find the commands by convention,
// per language; so where the key is absent and the conventional file exists in the SDK's folder, that
// is the command, and the run says so (`notes`). Otherwise the family cannot test the adapter: the
// caller plans the pair `unsupported` with `reason`, and starts nothing.
//
// Relative paths in the argv are made absolute against the SDK's folder, because one adapter hands
// another's command to a process of its own (the compaction host spawns `receiverCommand` as is, from
// wherever it runs). A bare program name (`node`, `python3`) stays a PATH lookup.

import { existsSync } from 'node:fs';
import path from 'node:path';

import type { FamilyCommandField } from './adapter-manifest.ts';
import { goBinary, goRunTarget } from './go-run-swap.ts';
import type { LoadedAdapter } from './types.ts';

export type FamilyCommandKey = FamilyCommandField;

export interface FamilyCommand {
  key: FamilyCommandKey;
  /** The configured adapter name. */
  adapter: string;
  /** The adapter.json `language`. */
  language: string;
  /** The SDK folder; the command runs here. */
  cwd: string;
  /**
   * The base command, without the mode the family appends. Paths are absolute, except the exact
   * `["go","run","./cmd/<name>"]` launcher, which prepareFamilyCommand swaps for a built binary.
   */
  argv: string[];
  /** Declared in adapter.json, or found at the protocol's conventional location. */
  origin: 'declared' | 'convention';
  /** Lines for the run's log and the report: where the command came from, what was swapped. */
  notes: string[];
}

export type FamilyCommandLookup = { ok: true; command: FamilyCommand } | { ok: false; reason: string };

type Language = 'typescript' | 'python' | 'go' | 'rust';

/** The file (relative to the SDK folder) the protocol's runners start per language (rules §2). */
const CONVENTIONAL_FILES: Record<FamilyCommandKey, Record<Language, string>> = {
  elicitation: {
    typescript: 'interop/elicitation.mjs',
    python: 'interop/elicitation.py',
    go: 'cmd/elicitation',
    rust: 'target/debug/elicitation',
  },
  compactionWire: {
    typescript: 'interop/compaction-wire.mjs',
    python: 'interop/compaction_wire.py',
    go: 'cmd/compaction-wire',
    rust: 'target/debug/compaction_wire',
  },
  compaction: {
    typescript: 'interop/compaction.mjs',
    python: 'interop/compaction.py',
    go: 'cmd/compaction',
    rust: 'target/debug/compaction',
  },
};

const RULES: Record<FamilyCommandKey, string> = {
  elicitation: 'ELICITATION-RULES §2',
  compactionWire: 'COMPACTION-RULES §2',
  compaction: 'COMPACTION-RULES §2',
};

const LANGUAGE_NAMES: Record<string, Language> = {
  typescript: 'typescript',
  ts: 'typescript',
  javascript: 'typescript',
  js: 'typescript',
  node: 'typescript',
  python: 'python',
  py: 'python',
  go: 'go',
  golang: 'go',
  rust: 'rust',
  rs: 'rust',
};

/** The adapter's command for `key`: declared, conventional, or why there is none. Never throws. */
export function familyCommand(adapter: LoadedAdapter, key: FamilyCommandKey): FamilyCommandLookup {
  const { name, cwd, manifest } = adapter;
  const base = { key, adapter: name, language: manifest.language, cwd };
  const declared = manifest[key];
  if (declared !== undefined) {
    return { ok: true, command: { ...base, argv: absoluteArgv(declared, cwd), origin: 'declared', notes: [] } };
  }

  const language = LANGUAGE_NAMES[manifest.language.trim().toLowerCase()];
  const missing = `adapter "${name}" declares no "${key}" command in ${adapter.adapterFile}`;
  if (language === undefined) {
    return {
      ok: false,
      reason: `${missing}, and the protocol names no conventional location for language "${manifest.language}" (${RULES[key]} knows typescript, python, go, rust): declare "${key}": [argv...] to test it in this family`,
    };
  }
  const file = CONVENTIONAL_FILES[key][language];
  if (!existsSync(path.join(cwd, file))) {
    return {
      ok: false,
      reason: `${missing}, and its folder has no ${file} (the protocol's conventional location for ${language}, ${RULES[key]}): declare "${key}": [argv...] to test it in this family`,
    };
  }

  const notes = [`adapter "${name}" declares no "${key}" command; using the protocol's conventional ${file} for ${language} (${RULES[key]})`];
  let argv: string[];
  if (language === 'typescript') argv = ['node', file];
  else if (language === 'go') argv = ['go', 'run', `./${file}`];
  else if (language === 'rust') argv = [file];
  else {
    const venv = '.venv/bin/python';
    if (existsSync(path.join(cwd, venv))) argv = [venv, file];
    else {
      argv = ['python3', file];
      notes.push(`adapter "${name}": no ${venv} in its folder; running ${file} with python3 from PATH`);
    }
  }
  return { ok: true, command: { ...base, argv: absoluteArgv(argv, cwd), origin: 'convention', notes } };
}

/**
 * Relative paths become absolute against `cwd`: the program when it names a path (`target/debug/x`,
 * `.venv/bin/python`), and any later argument that names an existing file or folder there. Options,
 * bare program names and plain words are left alone; so is the exact Go launcher, swapped later.
 */
export function absoluteArgv(argv: readonly string[], cwd: string): string[] {
  if (goRunTarget(argv) !== undefined) return [...argv];
  return argv.map((arg, i) => {
    if (path.isAbsolute(arg) || arg.startsWith('-') || arg === '') return arg;
    if (i === 0) return arg.includes('/') ? path.resolve(cwd, arg) : arg;
    return existsSync(path.resolve(cwd, arg)) ? path.resolve(cwd, arg) : arg;
  });
}

/**
 * `PYTHONPATH=<python SDK>/src` (before any PYTHONPATH already set), for every process of a pair
 * whatever its language, as the protocol's runners set it.
 */
export function familyEnvironment(adapters: readonly LoadedAdapter[]): Record<string, string> {
  const sources = adapters
    .filter((adapter) => LANGUAGE_NAMES[adapter.manifest.language.trim().toLowerCase()] === 'python')
    .map((adapter) => path.join(adapter.cwd, 'src'));
  const unique = [...new Set(sources)];
  if (unique.length === 0) return {};
  const inherited = process.env.PYTHONPATH;
  return { PYTHONPATH: [...unique, ...(inherited ? [inherited] : [])].join(path.delimiter) };
}

/**
 * The command ready to start: the exact Go launcher `["go","run","./cmd/<name>"]` becomes a binary
 * built once for the run (`go run` leaves a descendant that keeps sockets open after a kill); any
 * other command is returned as it is. Call it once per command before a pair starts processes.
 */
export async function prepareFamilyCommand(
  command: FamilyCommand,
  options: { buildDir: string; timeoutMs?: number },
): Promise<FamilyCommandLookup> {
  const target = goRunTarget(command.argv);
  if (target === undefined) return { ok: true, command };
  const built = await goBinary(command.cwd, target, options);
  if (!built.ok) return { ok: false, reason: `adapter "${command.adapter}" "${command.key}": ${built.reason}` };
  return { ok: true, command: { ...command, argv: [built.binary], notes: [...command.notes, built.note] } };
}
