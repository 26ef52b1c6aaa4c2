// The page's run header: the config, each SDK's language and version (when its adapter.json names
// one), and the command that reproduces the run — the environment variables the harness reads, then
// the same vitest call. Nothing secret goes in: only variables that select what runs.

import { loadAdapter } from '../adapters/adapter-manifest.ts';
import type { ResolvedConfig } from '../config/load-config.ts';
import type { PageAdapter } from './page-report.ts';

/** Variables that change what a run does; their values are paths and switches, never credentials. */
const REPRODUCING_ENV = ['AHP_CONFIG', 'AHP_BLIND', 'AHP_COMPARE', 'AHP_FUZZ_SEED'];

export function adaptersOf(config: ResolvedConfig): PageAdapter[] {
  return config.adapters.map((entry) => {
    try {
      const { manifest } = loadAdapter(entry);
      const version = typeof manifest.version === 'string' ? manifest.version : typeof manifest.sdkVersion === 'string' ? manifest.sdkVersion : undefined;
      return { name: entry.name, language: manifest.language, ...(version ? { version } : {}) };
    } catch {
      // the run itself reported the broken adapter.json; the header only says it is not known
      return { name: entry.name, language: 'unknown (adapter.json unreadable)' };
    }
  });
}

/** `AHP_CONFIG=… npx vitest run --project core`, from this process's argv and environment. */
export function reproduceCommand(argv: readonly string[] = process.argv, env: NodeJS.ProcessEnv = process.env): string {
  // argv[1] is vitest's own entry (npx vitest, or node …/vitest.mjs) or the installed package's CLI:
  // the same arguments after it reproduce the call.
  const args = argv.slice(2);
  // Under the installed package (harness/package/), AHP_CONFIG is a snapshot it wrote from the SDK's
  // config and flags, gone after the run; the CLI's flags or the SDK's vitest config choose it again.
  const viaPackage = env.AHP_CONFIG_SOURCE !== undefined;
  const vars = REPRODUCING_ENV.filter((name) => env[name] !== undefined && env[name] !== '' && !(viaPackage && name === 'AHP_CONFIG')).map((name) => `${name}=${quote(env[name]!)}`);
  return [...vars, 'npx', env.AHP_PACKAGE_CLI === '1' ? 'ahp-conformance' : 'vitest', ...args.map(quote)].join(' ');
}

/** The config file the run's config came from: the SDK's own under the installed package. */
export function configShown(config: ResolvedConfig, env: NodeJS.ProcessEnv = process.env): string {
  return env.AHP_CONFIG_SOURCE ?? config.file;
}

function quote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
