// `ahp-conformance init`: writes a starting config for the SDK in the working directory and says
// what to run next. A repo with a package.json gets a commented ahp.config.ts; any other (Python, Go,
// Rust, ...) gets ahp.config.json, which cannot hold comments, so the explanation is printed instead.
// An existing config is never overwritten.

import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { CONFIG_NAMES, REFERENCE_NAME, sdkInFolder } from './sdk-config.ts';
import { REFERENCE_CWD } from './reference-cwd.ts';

export interface InitResult {
  file: string;
  /** What to tell the user, ending with the command to run next. */
  message: string;
}

export function initConfig(cwd: string, options: { json: boolean }): InitResult {
  const existing = CONFIG_NAMES.map((name) => path.join(cwd, name)).find((file) => existsSync(file));
  if (existing) throw new Error(`${existing}: already exists — edit it, or remove it to start again`);
  const hasAdapter = existsSync(path.join(cwd, 'interop', 'adapter.json'));
  const sdk = hasAdapter ? sdkInFolder(cwd).name : undefined;
  const json = options.json || !existsSync(path.join(cwd, 'package.json'));
  const file = path.join(cwd, json ? 'ahp.config.json' : 'ahp.config.ts');
  writeFileSync(file, json ? jsonConfig(sdk) : tsConfig(sdk));
  const lines = [`wrote ${file}`];
  if (!sdk) lines.push('No interop/adapter.json here yet, so the config tests only the embedded reference adapter; add your adapter.json (see the README), then list your SDK in the config.');
  if (json) lines.push('The keys are explained in docs/configuration.md of ahp-conformance.');
  lines.push('', 'next: npx ahp-conformance');
  return { file, message: `${lines.join('\n')}\n` };
}

function adapters(sdk: string | undefined): Array<{ name: string; cwd: string }> {
  return [...(sdk ? [{ name: sdk, cwd: '.' }] : []), { name: REFERENCE_NAME, cwd: REFERENCE_CWD }];
}

function pairings(sdk: string | undefined): Array<{ server: string; client: string }> | undefined {
  if (!sdk) return undefined;
  return [
    { server: sdk, client: sdk },
    { server: sdk, client: REFERENCE_NAME },
    { server: REFERENCE_NAME, client: sdk },
  ];
}

function jsonConfig(sdk: string | undefined): string {
  const config = { adapters: adapters(sdk), ...(sdk ? { pairings: pairings(sdk) } : {}), transports: ['http', 'stdio'], auth: ['none', 'bearer', 'oauth', 'mtls', 'workload'], reports: 'reports' };
  return `${JSON.stringify(config, null, 2)}\n`;
}

function tsConfig(sdk: string | undefined): string {
  const list = (entry: Record<string, string>): string =>
    `{ ${Object.entries(entry).map(([key, value]) => `${key}: '${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`).join(', ')} }`;
  const adapterLines = adapters(sdk).map((entry) => `    ${list(entry)},`);
  const sdkHint = sdk ? [] : ["    // { name: 'my-sdk', cwd: '.' }, // once interop/adapter.json exists"];
  const pairingLines = pairings(sdk)?.map((pair) => `    ${list(pair)},`);
  return [
    "import { defineConfig } from 'ahp-conformance';",
    '',
    '// What ahp-conformance tests (`npx ahp-conformance`, or ahpConformance() in vitest.config.ts).',
    "// Paths are relative to this file. Every key is optional; see docs/configuration.md.",
    'export default defineConfig({',
    "  // The SDKs. Each cwd holds interop/adapter.json; its commands run there. The reference adapter",
    `  // ships inside the package: cwd '${REFERENCE_CWD}' names it.`,
    '  adapters: [',
    ...sdkHint,
    ...adapterLines,
    '  ],',
    ...(pairingLines
      ? ['  // Which server→client pairs run (default: every server × every client).', '  pairings: [', ...pairingLines, '  ],']
      : []),
    '  // Narrow these while writing an adapter; CI should run them all.',
    "  transports: ['http', 'stdio'],",
    "  auth: ['none', 'bearer', 'oauth', 'mtls', 'workload'],",
    "  // Our scenario files by default; point a suite at the protocol repo's, e.g.",
    "  // scenarios: { core: '../protocol/interop/canonical/scenarios.json' },",
    "  // Known failures: a listed row that fails is expected, a listed row that passes fails as stale.",
    "  // baseline: 'ahp-baseline.json',",
    "  reports: 'reports',",
    '});',
    '',
  ].join('\n');
}
