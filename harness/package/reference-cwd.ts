// A config file in an SDK's repo cannot know where the package is installed (node_modules, or npx's
// cache for a Python repo), so it names the embedded reference adapter with this token as its cwd.

import path from 'node:path';

import type { UserConfig } from '../config/define-config.ts';
import { SUITE_ROOT } from './suite-projects.ts';

/** Not a path (the colon), so it cannot shadow a real folder. */
export const REFERENCE_CWD = 'ahp-conformance:reference';
export const REFERENCE_DIR = path.join(SUITE_ROOT, 'adapters', 'reference');

/** `config` with every adapter whose cwd is REFERENCE_CWD pointed at the installed reference adapter. */
export function locateReference(config: UserConfig): UserConfig {
  if (!config.adapters?.some((entry) => entry.cwd === REFERENCE_CWD)) return config;
  return { ...config, adapters: config.adapters.map((entry) => (entry.cwd === REFERENCE_CWD ? { ...entry, cwd: REFERENCE_DIR } : entry)) };
}
