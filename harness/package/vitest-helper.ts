// `ahpConformance()`: our suites as projects of an SDK's own vitest config, so its test explorer lists
// every scenario, `vitest --project ahp:core` works there, and watch mode restarts its adapter when
// its files change (harness/setup/adapter-watch.ts).
//
//   // vitest.config.ts
//   import { defineConfig } from 'vitest/config';
//   import { ahpConformance } from 'ahp-conformance/vitest';
//   export default defineConfig({ test: { projects: [{ test: { name: 'unit' } }, ...ahpConformance({ config: './ahp.config.ts' })] } });

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { TestProjectInlineConfiguration } from 'vitest/config';

import { shardFromArgv } from '../setup/shard-argv.ts';
import { PROJECT_PREFIX } from '../setup/project-suite.ts';
import { CONFIG_NAMES, findConfigFile } from './sdk-config.ts';
import { suiteProjects, type Suite } from './suite-projects.ts';

export interface AhpConformanceOptions {
  /** The SDK's config file (relative to the working directory); default ./ahp.config.{ts,mjs,json}. */
  config?: string;
  /** Which suites become projects (default every one). */
  suites?: Suite[];
}

const SNAPSHOT_SETUP = fileURLToPath(new URL(`./config-snapshot-setup${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url));

/** `ahp:core`, `ahp:lifecycle`, ... for `test.projects`. Throws, naming the file, when there is no config. */
export function ahpConformance(options: AhpConformanceOptions = {}): TestProjectInlineConfiguration[] {
  const file = options.config === undefined ? findConfigFile(process.cwd()) : path.resolve(process.cwd(), options.config);
  if (file === undefined || !existsSync(file)) {
    const looked = file ?? CONFIG_NAMES.map((name) => path.join(process.cwd(), name)).join(', ');
    throw new Error(`ahpConformance: config: no config file at ${looked} — run \`npx ahp-conformance init\` to write one`);
  }
  process.env.AHP_CONFIG = file;
  return suiteProjects({
    ...(options.suites ? { suites: options.suites } : {}),
    prefix: PROJECT_PREFIX,
    sharded: shardFromArgv(process.argv) !== undefined,
    setupFirst: [SNAPSHOT_SETUP],
  });
}
