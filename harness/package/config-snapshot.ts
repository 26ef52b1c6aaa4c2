// The installed package hands the harness a config as one JSON file with absolute paths: the CLI's
// flags applied, a `.ts` config already evaluated (Node 20 cannot import TypeScript from
// node_modules, where the harness then runs), and our defaults pointed at the SDK, not at the package
// (reports go to the SDK's ./reports, not into node_modules). It is validated first, so a bad field
// fails before vitest starts, with the file and field named.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { UserConfig } from '../config/define-config.ts';
import { locateReference } from './reference-cwd.ts';
import { readConfigValue, resolveConfig, type ImportModule, type ResolvedConfig } from '../config/load-config.ts';

/** Imports `.ts`/`.mts` configs through vite's module runner; the rest natively. */
export const importConfigModule: ImportModule = async (url) => {
  if (!/\.m?ts$/.test(new URL(url).pathname)) return (await import(url)) as Record<string, unknown>;
  const { runnerImport } = await import('vite');
  const { module } = await runnerImport<Record<string, unknown>>(url, { configFile: false, logLevel: 'error' });
  return module;
};

/** Reads a config file as written (any supported extension), throwing ConfigError on a bad file. */
export async function readUserConfig(file: string): Promise<UserConfig> {
  const value = await readConfigValue(file, importConfigModule);
  // Validated by resolveConfig below, which names the field of any problem.
  return value as UserConfig;
}

/**
 * Validates `config` as if it were in `file` and writes it, resolved, to a private temporary file
 * removed when this process exits. Returns the snapshot's path (for AHP_CONFIG) and the resolution.
 */
export async function writeConfigSnapshot(config: UserConfig, file: string): Promise<{ file: string; resolved: ResolvedConfig }> {
  const located = locateReference(config);
  const withReports: UserConfig = located.reports === undefined ? { ...located, reports: path.join(path.dirname(file), 'reports') } : located;
  const resolved = await resolveConfig(withReports, file);
  const snapshot: UserConfig = {
    schemas: resolved.schemas,
    scenarios: resolved.scenarios,
    adapters: resolved.adapters.map(({ name, cwd, adapterFile }) => ({ name, cwd, adapterFile })),
    transports: resolved.transports,
    auth: resolved.auth,
    ...(resolved.pairings ? { pairings: resolved.pairings } : {}),
    watchdogs: resolved.watchdogs,
    parallelism: resolved.parallelism,
    reports: resolved.reports,
    ...(resolved.baseline ? { baseline: resolved.baseline } : {}),
    blind: resolved.blind,
    ...(resolved.compare ? { compare: resolved.compare } : {}),
    elicitation: resolved.elicitation,
  };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ahp-config-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const out = path.join(dir, 'config.json');
  writeFileSync(out, `${JSON.stringify(snapshot, null, 2)}\n`, { mode: 0o600 });
  return { file: out, resolved };
}

