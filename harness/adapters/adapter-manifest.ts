// Reads and validates an SDK's `interop/adapter.json` (contract v1):
//   { "language": "python", "server": [argv...], "client": [argv...], ...extra keys kept }
// Commands are argv arrays (never shell strings); the harness appends `--config ABS` when it runs them.
// Our documented extension (extra keys are allowed by the contract): an optional `"auth": [modes...]`
// listing the auth modes the adapter implements. Absent means "no declaration": every configured mode
// is tried. A declared list makes the planner report every other mode `unsupported` without running it.
// A second one, `"authAllowList": [modes...]`, lists the modes in which the server reads the harness's
// allow-list of principals: the contract's server config names none, so without the declaration the
// probes that need one (an unauthorised subject or principal) are skipped, never failed.
// The lifecycle contract's optional `lifecycleServer` / `lifecycleClient` argv arrays are validated
// like the core commands when present; a pairing that needs an absent one is planned `unsupported`.
// So are the elicitation and compaction families' optional base commands (`elicitation`,
// `compactionWire`, `compaction`); where one is absent, family-command.ts looks for the protocol's
// conventional location instead.

import { readFileSync, statSync } from 'node:fs';

import { AUTH_MODES, type AuthMode } from '../config/define-config.ts';
import { describeValue as describe, parseJsonText } from '../protocol/json-text.ts';
import { AUTH_ALLOW_LIST_MODES, type AdapterManifest, type AuthAllowListMode, type LoadedAdapter } from './types.ts';

/** An adapter problem. The message names the file, the field and what was expected. */
export class AdapterError extends Error {
  override readonly name = 'AdapterError';
  /** The adapter.json path (or the cwd, for cwd problems). */
  readonly file: string;
  /** Field such as `server[1]`; empty when the problem is the whole file. */
  readonly field: string;
  /** The configured adapter name. */
  readonly adapter: string;

  constructor(adapter: string, file: string, field: string, problem: string, options?: { cause?: unknown }) {
    super(`adapter "${adapter}": ${file}: ${field ? `${field}: ` : ''}${problem}`, options);
    this.adapter = adapter;
    this.file = file;
    this.field = field;
  }
}

export interface AdapterLocation {
  name: string;
  /** Absolute SDK folder; commands run here. */
  cwd: string;
  /** Absolute path of adapter.json. */
  adapterFile: string;
}

/** Loads and validates one adapter (synchronously). Throws AdapterError. */
export function loadAdapter(entry: AdapterLocation): LoadedAdapter {
  const { name, cwd, adapterFile } = entry;

  let cwdStat;
  try {
    cwdStat = statSync(cwd);
  } catch (error) {
    throw new AdapterError(name, cwd, 'cwd', `expected an existing directory (the SDK checkout), but it ${reasonOf(error)}`, {
      cause: error,
    });
  }
  if (!cwdStat.isDirectory()) {
    throw new AdapterError(name, cwd, 'cwd', 'expected a directory (the SDK checkout), got a file');
  }

  let text: string;
  try {
    text = readFileSync(adapterFile, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem =
      code === 'ENOENT'
        ? 'adapter.json is missing: expected {"language": ..., "server": [...], "client": [...]} (contract v1)'
        : `cannot read adapter.json (${reasonOf(error)})`;
    throw new AdapterError(name, adapterFile, '', problem, { cause: error });
  }

  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new AdapterError(name, adapterFile, '', `invalid JSON ${parsed.where}: ${parsed.reason}`);
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AdapterError(
      name,
      adapterFile,
      '',
      `expected a JSON object {"language", "server", "client"} at the top level, got ${describe(value)}`,
    );
  }
  const raw = value as Record<string, unknown>;
  if (typeof raw.language !== 'string' || raw.language.trim() === '') {
    throw new AdapterError(name, adapterFile, 'language', `expected a non-empty string, got ${describe(raw.language)}`);
  }
  const server = commandField(name, adapterFile, raw, 'server');
  const client = commandField(name, adapterFile, raw, 'client');

  const auth = raw.auth === undefined ? undefined : authField(name, adapterFile, raw.auth);
  const authAllowList = raw.authAllowList === undefined ? undefined : authAllowListField(name, adapterFile, raw.authAllowList, auth);
  const lifecycleServer = raw.lifecycleServer === undefined ? undefined : commandField(name, adapterFile, raw, 'lifecycleServer');
  const lifecycleClient = raw.lifecycleClient === undefined ? undefined : commandField(name, adapterFile, raw, 'lifecycleClient');
  const familyCommands: Partial<Record<FamilyCommandField, string[]>> = {};
  for (const key of FAMILY_COMMAND_FIELDS) {
    if (raw[key] !== undefined) familyCommands[key] = commandField(name, adapterFile, raw, key);
  }

  const manifest: AdapterManifest = {
    ...raw,
    language: raw.language,
    server,
    client,
    ...(auth ? { auth } : {}),
    ...(authAllowList ? { authAllowList } : {}),
    ...(lifecycleServer ? { lifecycleServer } : {}),
    ...(lifecycleClient ? { lifecycleClient } : {}),
    ...familyCommands,
  };
  return { name, cwd, adapterFile, manifest };
}

function commandField(name: string, file: string, raw: Record<string, unknown>, key: CommandKey): string[] {
  const value = raw[key];
  if (!Array.isArray(value) || value.length === 0) {
    throw new AdapterError(
      name,
      file,
      key,
      `empty command: expected a non-empty array of non-empty strings (argv, no shell), got ${describe(value)}`,
    );
  }
  value.forEach((arg, i) => {
    if (typeof arg !== 'string' || arg === '') {
      throw new AdapterError(name, file, `${key}[${i}]`, `expected a non-empty string (argv element), got ${describe(arg)}`);
    }
  });
  return [...(value as string[])];
}

/** The optional `auth` extension: a non-empty array of distinct known auth modes. */
function authField(name: string, file: string, value: unknown): AuthMode[] {
  const expected = `expected a non-empty array of the auth modes the adapter implements (${AUTH_MODES.join(', ')}); omit the key to try every configured mode`;
  if (!Array.isArray(value) || value.length === 0) throw new AdapterError(name, file, 'auth', `${expected}, got ${describe(value)}`);
  const seen = new Set<AuthMode>();
  value.forEach((mode, i) => {
    if (typeof mode !== 'string' || !(AUTH_MODES as readonly string[]).includes(mode)) {
      throw new AdapterError(name, file, `auth[${i}]`, `expected one of ${AUTH_MODES.join(', ')}, got ${describe(mode)}`);
    }
    if (seen.has(mode as AuthMode)) throw new AdapterError(name, file, `auth[${i}]`, `duplicate auth mode "${mode}"`);
    seen.add(mode as AuthMode);
  });
  return [...seen];
}

/**
 * The optional `authAllowList` extension: a non-empty array of distinct modes that have an identity to
 * allow-list. A mode the adapter's own `auth` list leaves out is a contradiction, so it is an error too.
 */
function authAllowListField(name: string, file: string, value: unknown, auth: readonly AuthMode[] | undefined): AuthAllowListMode[] {
  const modes = AUTH_ALLOW_LIST_MODES.join(', ');
  const expected = `expected a non-empty array of the auth modes (${modes}) in which the server reads the harness's allow-list of principals; omit the key when it reads none`;
  if (!Array.isArray(value) || value.length === 0) throw new AdapterError(name, file, 'authAllowList', `${expected}, got ${describe(value)}`);
  const seen = new Set<AuthAllowListMode>();
  value.forEach((mode, i) => {
    const field = `authAllowList[${i}]`;
    if (typeof mode !== 'string' || !(AUTH_ALLOW_LIST_MODES as readonly string[]).includes(mode)) {
      throw new AdapterError(name, file, field, `expected one of ${modes} (the modes with an authenticated identity), got ${describe(mode)}`);
    }
    const known = mode as AuthAllowListMode;
    if (seen.has(known)) throw new AdapterError(name, file, field, `duplicate auth mode "${mode}"`);
    if (auth && !auth.includes(known)) throw new AdapterError(name, file, field, `auth mode "${mode}" is not in this adapter's "auth" list (${auth.join(', ')}): expected only modes it implements`);
    seen.add(known);
  });
  return [...seen];
}

/** The optional base commands of the elicitation and compaction families (the harness appends the mode). */
export const FAMILY_COMMAND_FIELDS = ['elicitation', 'compactionWire', 'compaction'] as const;
export type FamilyCommandField = (typeof FAMILY_COMMAND_FIELDS)[number];

type CommandKey = 'server' | 'client' | 'lifecycleServer' | 'lifecycleClient' | FamilyCommandField;

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'does not exist';
  if (code === 'EACCES') return 'is not accessible (permission denied)';
  return error instanceof Error ? error.message : String(error);
}
